// compile-cost: a familiar reference, the same work with thrust::device_vector + transform.
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/transform.h>

struct scale {
  __host__ __device__ float operator()(float v) const { return 2.0f * v + 1.0f; }
};

int main()
{
  int const n = 1 << 20;
  thrust::device_vector<float> x(n, 0.0f);
  thrust::transform(x.begin(), x.end(), x.begin(), scale{});
  return 0;
}
