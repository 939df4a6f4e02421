// The launch checks of umsync/launch.hpp (cluster shapes, programmatic dependent launch) against a
// stubbed CUDA runtime, so they run on any machine: the runtime functions the checks call are
// defined here, and the executable's definitions take the place of libcudart's. Each case sets
// what the "device" reports and checks what launch and launch_dependent accept or refuse. The
// same refusals on a real H200: test/pdl_test.cu. A plain launch goes through the stubbed
// cudaLaunchKernel, which refuses a grid of partial clusters as CUDA does.
#include <doctest/doctest.h>
#include <umsync/launch.hpp>

#include <cstddef>
#include <string>

namespace {

// What the stubbed device reports, and what reached the stubbed launch.
struct stub_state {
  int major = 9;
  int ptx_version = 90;
  int binary_version = 90;
  int non_portable = 0;
  int max_cluster = 8;
  int required_cluster[3] = {0, 0, 0};  // the kernel's __cluster_dims__
  int attribute_reads = 0;
  int launches = 0;
  int plain_launches = 0;
  unsigned last_attributes = 0;
  dim3 last_cluster{0, 0, 0};
  bool last_programmatic = false;
};
stub_state stub;

}  // namespace

extern "C" {
cudaError_t cudaGetDeviceCount(int* count)
{
  *count = 1;
  return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device)
{
  *device = 0;
  return cudaSuccess;
}
cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attribute, int)
{
  *value = attribute == cudaDevAttrComputeCapabilityMajor ? stub.major : 0;
  return cudaSuccess;
}
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attributes, void const*)
{
  ++stub.attribute_reads;
  *attributes = {};
  attributes->ptxVersion = stub.ptx_version;
  attributes->binaryVersion = stub.binary_version;
  attributes->nonPortableClusterSizeAllowed = stub.non_portable;
  attributes->requiredClusterWidth = stub.required_cluster[0];
  attributes->requiredClusterHeight = stub.required_cluster[1];
  attributes->requiredClusterDepth = stub.required_cluster[2];
  return cudaSuccess;
}
// As CUDA does: a kernel compiled with __cluster_dims__ on a grid of partial clusters is refused.
cudaError_t cudaLaunchKernel(void const*, dim3 grid, dim3, void**, std::size_t, cudaStream_t)
{
  ++stub.plain_launches;
  int const* const required = stub.required_cluster;
  if (required[0] != 0 &&
      (grid.x % static_cast<unsigned>(required[0]) != 0 || grid.y % static_cast<unsigned>(required[1]) != 0 ||
       grid.z % static_cast<unsigned>(required[2]) != 0)) {
    return cudaErrorInvalidClusterSize;
  }
  return cudaSuccess;
}
cudaError_t cudaOccupancyMaxPotentialClusterSize(int* size, void const*, cudaLaunchConfig_t const*)
{
  *size = stub.max_cluster;
  return cudaSuccess;
}
cudaError_t cudaLaunchKernelExC(cudaLaunchConfig_t const* config, void const*, void**)
{
  ++stub.launches;
  stub.last_attributes = config->numAttrs;
  stub.last_cluster = dim3{0, 0, 0};
  stub.last_programmatic = false;
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    if (config->attrs[i].id == cudaLaunchAttributeClusterDimension) {
      stub.last_cluster = dim3{config->attrs[i].val.clusterDim.x, config->attrs[i].val.clusterDim.y,
                               config->attrs[i].val.clusterDim.z};
    }
    if (config->attrs[i].id == cudaLaunchAttributeProgrammaticStreamSerialization) {
      stub.last_programmatic = config->attrs[i].val.programmaticStreamSerializationAllowed != 0;
    }
  }
  return cudaSuccess;
}
}

namespace {
struct compute {};

// Distinct functions, so each has entries of its own in launch's table of kernel facts.
void dependent_a(umsync::pending<float const>, umsync::independent<float>, std::size_t) {}
void dependent_b(umsync::pending<float const>, umsync::independent<float>, std::size_t) {}
void clustered_a(float*, std::size_t) {}
void clustered_b(float*, std::size_t) {}
void compiled_cluster_dependent(umsync::independent<float>, std::size_t) {}
void compiled_cluster_plain(float*, std::size_t) {}

umsync::stream_view<compute> stream() { return umsync::stream_view<compute>{reinterpret_cast<cudaStream_t>(0x10)}; }

std::string refusal(auto&& launch)
{
  try {
    launch();
  } catch (umsync::invalid_argument const& e) {
    return e.what();
  }
  return {};
}

bool contains(std::string const& text, char const* part) { return text.find(part) != std::string::npos; }
}  // namespace

TEST_CASE("a dependent launch of a kernel built for sm_90 carries the programmatic attribute, read once")
{
  stub = {};
  float* x = nullptr;
  int const before = stub.attribute_reads;
  for (int i = 0; i < 3; ++i) {
    umsync::launch_dependent(stream(), {.grid = 4, .block = 32}, dependent_a, x, x, std::size_t{0});
  }
  CHECK(stub.launches == 3);
  CHECK(stub.last_programmatic);
  CHECK(stub.last_attributes == 1);
  CHECK(stub.attribute_reads - before == 1);  // the facts are read at the first launch only
}

TEST_CASE("a dependent launch of a kernel compiled for compute_80 is refused, naming NVIDIA/cccl #9134")
{
  stub = {};
  stub.ptx_version = 80;
  float* x = nullptr;
  std::string const why = refusal([&] {
    umsync::launch_dependent(stream(), {.grid = 4, .block = 32}, dependent_b, x, x, std::size_t{0});
  });
  CHECK(contains(why, "compiled for compute_80"));
  CHECK(contains(why, "NVIDIA/cccl #9134"));
  CHECK(stub.launches == 0);
}

TEST_CASE("cluster and dependent launches are refused on a device below compute capability 9.0")
{
  stub = {};
  stub.major = 8;
  float* x = nullptr;
  std::string const why = refusal([&] {
    umsync::launch(stream(), {.grid = 4, .block = 32, .cluster = {2, 1, 1}}, clustered_a, x, std::size_t{0});
  });
  CHECK(contains(why, "thread block clusters need a device of compute capability 9.0 or newer; device 0 is 8.x"));
  CHECK(stub.launches == 0);
}

TEST_CASE("a cluster above the portable 8 is refused until the kernel allows it, read again before refusing")
{
  stub = {};
  float* x = nullptr;
  umsync::launch_config const sixteen{.grid = 32, .block = 64, .cluster = {16, 1, 1}};
  stub.max_cluster = 16;
  CHECK(contains(refusal([&] { umsync::launch(stream(), sixteen, clustered_b, x, std::size_t{0}); }),
                 "larger than the portable 8"));
  stub.non_portable = 1;  // cudaFuncSetAttribute(cudaFuncAttributeNonPortableClusterSizeAllowed, 1)
  CHECK(refusal([&] { umsync::launch(stream(), sixteen, clustered_b, x, std::size_t{0}); }).empty());
  CHECK(stub.launches == 1);
  CHECK(stub.last_cluster.x == 16);
  // More than the device places: refused with the limit in the message.
  stub.max_cluster = 16;
  CHECK(contains(
      refusal([&] {
        umsync::launch(stream(), {.grid = 64, .block = 64, .cluster = {32, 1, 1}}, clustered_b, x, std::size_t{0});
      }),
      "allows at most 16 blocks per cluster"));
}

TEST_CASE("a dependent launch of a kernel compiled with __cluster_dims__ on a grid of partial clusters is refused")
{
  stub = {};
  stub.required_cluster[0] = 2;
  stub.required_cluster[1] = 1;
  stub.required_cluster[2] = 1;
  float* x = nullptr;
  std::string const why = refusal([&] {
    umsync::launch_dependent(stream(), {.grid = 3, .block = 32}, compiled_cluster_dependent, x, std::size_t{0});
  });
  CHECK(contains(why, "grid {3, 1, 1} is not a multiple of the kernel's __cluster_dims__ {2, 1, 1}; a kernel compiled "
                      "with a cluster shape runs only on a grid of whole clusters"));
  CHECK(stub.launches == 0);
  // A grid of whole clusters goes through.
  CHECK(refusal([&] {
          umsync::launch_dependent(stream(), {.grid = 4, .block = 32}, compiled_cluster_dependent, x, std::size_t{0});
        }).empty());
  CHECK(stub.launches == 1);
}

TEST_CASE("a plain launch of a kernel compiled with __cluster_dims__ on a grid of partial clusters names the rule")
{
  stub = {};
  stub.required_cluster[0] = 2;
  stub.required_cluster[1] = 2;
  stub.required_cluster[2] = 1;
  float* x = nullptr;
  std::string const why = refusal([&] {
    umsync::launch(stream(), {.grid = {4, 3, 1}, .block = 32}, compiled_cluster_plain, x, std::size_t{0});
  });
  CHECK(contains(why, "launch at "));
  CHECK(contains(why, "grid {4, 3, 1} is not a multiple of the kernel's __cluster_dims__ {2, 2, 1}"));
  CHECK(refusal([&] {
          umsync::launch(stream(), {.grid = {4, 4, 1}, .block = 32}, compiled_cluster_plain, x, std::size_t{0});
        }).empty());
  CHECK(stub.plain_launches == 2);
}
