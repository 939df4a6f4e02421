// compile-cost, the larger translation unit in raw CUDA: three streams (a loader, a compute
// stream, an optimizer stream), eleven device buffers from the stream-ordered allocator, events
// between the streams, a dozen kernels (large_kernels.cuh), a library call, copies and memsets,
// every call checked. umsync_large.cu is the same program written with umsync.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

#include "large_kernels.cuh"

#define CHECK(call)                                                                \
  do {                                                                             \
    cudaError_t const status_ = (call);                                            \
    if (status_ != cudaSuccess) {                                                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(status_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

namespace {

float* device_floats(int n, cudaStream_t s)
{
  float* p = nullptr;
  CHECK(cudaMallocAsync(reinterpret_cast<void**>(&p), static_cast<std::size_t>(n) * sizeof(float), s));
  return p;
}

/// The loader's batch: inputs and labels, made on the loader stream.
void load_batch(cudaStream_t loader, float* inputs, int* labels, int batch, int features, int classes)
{
  fill_ramp<<<blocks_for(batch * features), 256, 0, loader>>>(inputs, batch * features);
  CHECK(cudaGetLastError());
  CHECK(cudaMemsetAsync(labels, 0, static_cast<std::size_t>(batch) * sizeof(int), loader));
  static_cast<void>(classes);
}

}  // namespace

int main()
{
  int const batch = 64;
  int const features = 512;
  int const hidden = 256;
  int const classes = 16;
  int const steps = 4;

  cudaStream_t loader = nullptr;
  cudaStream_t compute = nullptr;
  cudaStream_t optimizer = nullptr;
  CHECK(cudaStreamCreateWithFlags(&loader, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&optimizer, cudaStreamNonBlocking));
  cudaEvent_t loaded = nullptr;
  cudaEvent_t computed = nullptr;
  cudaEvent_t updated = nullptr;
  CHECK(cudaEventCreateWithFlags(&loaded, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&computed, cudaEventDisableTiming));
  CHECK(cudaEventCreateWithFlags(&updated, cudaEventDisableTiming));

  float* w1 = device_floats(hidden * features, compute);
  float* w2 = device_floats(classes * hidden, compute);
  float* dw1 = device_floats(hidden * features, compute);
  float* dw2 = device_floats(classes * hidden, compute);
  float* h = device_floats(batch * hidden, compute);
  float* a = device_floats(batch * hidden, compute);
  float* logits = device_floats(batch * classes, compute);
  float* probs = device_floats(batch * classes, compute);
  float* losses = device_floats(batch, compute);
  float* total = device_floats(1, compute);
  float* dh = device_floats(batch * hidden, compute);
  fill_ramp<<<blocks_for(hidden * features), 256, 0, compute>>>(w1, hidden * features);
  CHECK(cudaGetLastError());
  fill_ramp<<<blocks_for(classes * hidden), 256, 0, compute>>>(w2, classes * hidden);
  CHECK(cudaGetLastError());
  CHECK(cudaStreamSynchronize(compute));

  for (int step = 0; step < steps; ++step) {
    float* inputs = device_floats(batch * features, loader);
    int* labels = nullptr;
    CHECK(cudaMallocAsync(reinterpret_cast<void**>(&labels), static_cast<std::size_t>(batch) * sizeof(int), loader));
    load_batch(loader, inputs, labels, batch, features, classes);
    CHECK(cudaEventRecord(loaded, loader));
    CHECK(cudaStreamWaitEvent(compute, loaded));

    CHECK(cudaMemsetAsync(dw1, 0, static_cast<std::size_t>(hidden) * features * sizeof(float), compute));
    CHECK(cudaMemsetAsync(dw2, 0, static_cast<std::size_t>(classes) * hidden * sizeof(float), compute));
    CHECK(cudaMemsetAsync(total, 0, sizeof(float), compute));
    for (int b = 0; b < batch; ++b) {
      matvec<<<blocks_for(hidden), 256, 0, compute>>>(w1, inputs + b * features, h + b * hidden, hidden, features);
      CHECK(cudaGetLastError());
    }
    relu<<<blocks_for(batch * hidden), 256, 0, compute>>>(h, a, batch * hidden);
    CHECK(cudaGetLastError());
    for (int b = 0; b < batch; ++b) {
      matvec<<<blocks_for(classes), 256, 0, compute>>>(w2, a + b * hidden, logits + b * classes, classes, hidden);
      CHECK(cudaGetLastError());
    }
    softmax_rows<<<blocks_for(batch), 256, 0, compute>>>(logits, probs, batch, classes);
    CHECK(cudaGetLastError());
    cross_entropy<<<blocks_for(batch), 256, 0, compute>>>(probs, labels, losses, batch, classes);
    CHECK(cudaGetLastError());
    sum_reduce<<<blocks_for(batch), 256, 0, compute>>>(losses, total, batch);
    CHECK(cudaGetLastError());
    for (int b = 0; b < batch; ++b) {
      outer_accumulate<<<blocks_for(classes * hidden), 256, 0, compute>>>(probs + b * classes, a + b * hidden, dw2,
                                                                          classes, hidden);
      CHECK(cudaGetLastError());
      matvec_transposed<<<blocks_for(hidden), 256, 0, compute>>>(w2, probs + b * classes, dh + b * hidden, classes,
                                                                 hidden);
      CHECK(cudaGetLastError());
    }
    relu_backward<<<blocks_for(batch * hidden), 256, 0, compute>>>(h, dh, dh, batch * hidden);
    CHECK(cudaGetLastError());
    for (int b = 0; b < batch; ++b) {
      outer_accumulate<<<blocks_for(hidden * features), 256, 0, compute>>>(dh + b * hidden, inputs + b * features, dw1,
                                                                           hidden, features);
      CHECK(cudaGetLastError());
    }
    CHECK(library_axpy(compute, 1e-4f, w1, dw1, hidden * features));  // weight decay
    CHECK(cudaEventRecord(computed, compute));
    CHECK(cudaStreamWaitEvent(optimizer, computed));

    sgd_step<<<blocks_for(hidden * features), 256, 0, optimizer>>>(w1, dw1, 0.01f, hidden * features);
    CHECK(cudaGetLastError());
    sgd_step<<<blocks_for(classes * hidden), 256, 0, optimizer>>>(w2, dw2, 0.01f, classes * hidden);
    CHECK(cudaGetLastError());
    scale<<<blocks_for(classes * hidden), 256, 0, optimizer>>>(w2, 0.999f, classes * hidden);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(updated, optimizer));
    CHECK(cudaStreamWaitEvent(compute, updated));
    CHECK(cudaStreamWaitEvent(loader, updated));
    CHECK(cudaFreeAsync(inputs, loader));
    CHECK(cudaFreeAsync(labels, loader));

    float loss = 0.0f;
    CHECK(cudaMemcpyAsync(&loss, total, sizeof(float), cudaMemcpyDeviceToHost, compute));
    CHECK(cudaStreamSynchronize(compute));
    std::printf("step %d loss %f\n", step, static_cast<double>(loss / batch));
  }

  for (float* p : {w1, w2, dw1, dw2, h, a, logits, probs, losses, total, dh}) {
    CHECK(cudaFreeAsync(p, compute));
  }
  CHECK(cudaStreamSynchronize(compute));
  CHECK(cudaStreamSynchronize(optimizer));
  CHECK(cudaStreamSynchronize(loader));
  CHECK(cudaEventDestroy(loaded));
  CHECK(cudaEventDestroy(computed));
  CHECK(cudaEventDestroy(updated));
  CHECK(cudaStreamDestroy(optimizer));
  CHECK(cudaStreamDestroy(compute));
  CHECK(cudaStreamDestroy(loader));
  return 0;
}
