// Family P: a chain of dependent kernels on one stream (each reads the previous one's output),
// launched four ways, each raw CUDA against umsync in the same iterations (side_by_side):
//   launch_chain_stream     stream order: <<<>>> against umsync::launch
//   launch_chain_pdl        programmatic dependent launch: cudaLaunchKernelEx with the
//                           programmatic-serialization attribute and a kernel that triggers first and
//                           waits before its dependent read, against umsync::launch_dependent with
//                           pending<T> parameters (pdl.hpp)
//   launch_chain_graph      a graph captured from stream-order launches, replayed
//   launch_chain_graph_pdl  a graph captured from PDL launches (programmatic edges), replayed
//   launch_chain_pdl_same_kernel  launch_chain_pdl with the raw side launching umsync's kernel
//                           (pending<T> parameters, the same SASS) by cudaLaunchKernelExC: what is
//                           left of launch_chain_pdl's ratio here is umsync's host code, not the kernel
// Host-timed per chain, from the first launch to the stream's synchronization, as the raw figures
// of ../shared/docs/hopper-ordering.md were. Args: kernels per chain, elements per kernel (132 x
// 256 threads touch 33,792 floats once: launch-bound; 16 Mi floats: bandwidth-bound, where
// PDL's saved gap is small beside the kernel). Counters raw_us and umsync_us per kernel, ratio.
#include "support/timing.cuh"

#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/pdl.hpp>
#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>

namespace {

struct chain {};

constexpr unsigned blocks = 132;
constexpr unsigned threads = 256;

__device__ __forceinline__ void step_body(float const* in, float* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i] * 0.5F + 1.0F;
  }
}

__global__ void step_plain(float const* in, float* out, std::size_t n) { step_body(in, out, n); }

__global__ void step_raw_pdl(float const* in, float* out, std::size_t n)
{
  cudaTriggerProgrammaticLaunchCompletion();
  cudaGridDependencySynchronize();
  step_body(in, out, n);
}

__global__ void step_typed_pdl(umsync::pending<float const> in, umsync::pending<float> out, std::size_t n)
{
  umsync::trigger_dependent_launch();
  umsync::prerequisites_complete const done = umsync::wait_for_prerequisite_grids();
  step_body(in.after(done), out.after(done), n);
}

/// The chain's two buffers, and the raw-CUDA ways of launching one step.
struct chain_state {
  umsync::stream<chain> s;
  std::size_t n;
  umsync::stream_buffer<float, chain> a;
  umsync::stream_buffer<float, chain> b;
  umsync::launch_config config{.grid = blocks, .block = threads};

  explicit chain_state(std::size_t elements) : n(elements), a(elements, s), b(elements, s)
  {
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(a.data(), 0, a.size_bytes(), s.view()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(b.data(), 0, b.size_bytes(), s.view()));
    s.synchronize();
  }

  void raw_plain(int kernels, cudaStream_t stream)
  {
    for (int k = 0; k < kernels; ++k) {
      float* const in = k % 2 == 0 ? a.data() : b.data();
      float* const out = k % 2 == 0 ? b.data() : a.data();
      step_plain<<<blocks, threads, 0, stream>>>(in, out, n);
    }
    UMSYNC_CUDA_CHECK(cudaGetLastError());
  }

  void raw_pdl(int kernels, cudaStream_t stream)
  {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t launch{};
    launch.gridDim = blocks;
    launch.blockDim = threads;
    launch.stream = stream;
    launch.attrs = &attribute;
    launch.numAttrs = 1;
    for (int k = 0; k < kernels; ++k) {
      float const* const in = k % 2 == 0 ? a.data() : b.data();
      float* const out = k % 2 == 0 ? b.data() : a.data();
      UMSYNC_CUDA_CHECK(cudaLaunchKernelEx(&launch, step_raw_pdl, in, out, n));
    }
  }

  /// raw_pdl of umsync's kernel: its pending<T> parameters hold one pointer each, so the
  /// raw pointers' bytes are its arguments.
  void raw_pdl_of_typed_kernel(int kernels, cudaStream_t stream)
  {
    static_assert(sizeof(umsync::pending<float>) == sizeof(float*) &&
                  std::is_trivially_copyable_v<umsync::pending<float>>);
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t launch{};
    launch.gridDim = blocks;
    launch.blockDim = threads;
    launch.stream = stream;
    launch.attrs = &attribute;
    launch.numAttrs = 1;
    for (int k = 0; k < kernels; ++k) {
      float const* in = k % 2 == 0 ? a.data() : b.data();
      float* out = k % 2 == 0 ? b.data() : a.data();
      void* arguments[] = {&in, &out, &n};
      UMSYNC_CUDA_CHECK(cudaLaunchKernelExC(&launch, reinterpret_cast<void const*>(step_typed_pdl), arguments));
    }
  }

  template <class Stream>
  void typed_plain(int kernels, Stream const& stream)
  {
    for (int k = 0; k < kernels; ++k) {
      if (k % 2 == 0) {
        umsync::launch(stream, config, step_plain, std::as_const(a), b, n);
      } else {
        umsync::launch(stream, config, step_plain, std::as_const(b), a, n);
      }
    }
  }

  template <class Stream>
  void typed_pdl(int kernels, Stream const& stream)
  {
    for (int k = 0; k < kernels; ++k) {
      if (k % 2 == 0) {
        umsync::launch_dependent(stream, config, step_typed_pdl, std::as_const(a), b, n);
      } else {
        umsync::launch_dependent(stream, config, step_typed_pdl, std::as_const(b), a, n);
      }
    }
  }

  template <class Launches>
  umsync::graph_exec raw_graph(Launches&& launches)
  {
    cudaGraph_t captured = nullptr;
    UMSYNC_CUDA_CHECK(cudaStreamBeginCapture(s.get(), cudaStreamCaptureModeGlobal));
    launches(s.get());
    UMSYNC_CUDA_CHECK(cudaStreamEndCapture(s.get(), &captured));
    return umsync::graph_exec(umsync::graph::adopt(captured));
  }

  template <class Launches>
  umsync::graph_exec typed_graph(Launches&& launches)
  {
    umsync::graph g = [&] {
      umsync::capture_scope scope(s);
      launches(scope.stream());
      return scope.end();
    }();
    return umsync::graph_exec(g);
  }
};

enum class chain_mode { stream, pdl, graph, graph_pdl, pdl_same_kernel };

template <chain_mode Mode>
void launch_chain(benchmark::State& state)
{
  int const kernels = static_cast<int>(state.range(0));
  chain_state c(static_cast<std::size_t>(state.range(1)));
  auto const raw_stream = [&](cudaStream_t stream) {
    if constexpr (Mode == chain_mode::pdl_same_kernel) {
      c.raw_pdl_of_typed_kernel(kernels, stream);
    } else {
      Mode == chain_mode::stream || Mode == chain_mode::graph ? c.raw_plain(kernels, stream)
                                                              : c.raw_pdl(kernels, stream);
    }
  };
  auto const typed_stream = [&](auto const& stream) {
    Mode == chain_mode::stream || Mode == chain_mode::graph ? c.typed_plain(kernels, stream)
                                                            : c.typed_pdl(kernels, stream);
  };
  constexpr bool graphs = Mode == chain_mode::graph || Mode == chain_mode::graph_pdl;
  std::optional<umsync::graph_exec> raw_exec;
  std::optional<umsync::graph_exec> typed_exec;
  if constexpr (graphs) {
    raw_exec.emplace(c.raw_graph(raw_stream));
    typed_exec.emplace(c.typed_graph(typed_stream));
  }
  auto run_raw = [&] {
    if constexpr (graphs) {
      raw_exec->launch(c.s);
    } else {
      raw_stream(c.s.get());
    }
    UMSYNC_CUDA_CHECK(cudaStreamSynchronize(c.s.get()));
  };
  auto run_typed = [&] {
    if constexpr (graphs) {
      typed_exec->launch(c.s);
    } else {
      typed_stream(c.s);
    }
    c.s.synchronize();
  };
  run_raw();  // warm: module load, first-launch attribute reads, graph upload
  run_typed();
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration([&] { return umsync_bench::time_on_host(run_raw); },
                      [&] { return umsync_bench::time_on_host(run_typed); });
  }
  compare.report(kernels);
}

void chain_sizes(benchmark::internal::Benchmark* b)
{
  b->Args({256, std::int64_t{blocks} * threads})->Args({64, std::int64_t{1} << 24});
}

}  // namespace

BENCHMARK(launch_chain<chain_mode::stream>)
    ->Name("launch_chain_stream")
    ->Apply(chain_sizes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(launch_chain<chain_mode::pdl>)
    ->Name("launch_chain_pdl")
    ->Apply(chain_sizes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(launch_chain<chain_mode::pdl_same_kernel>)
    ->Name("launch_chain_pdl_same_kernel")
    ->Args({256, std::int64_t{blocks} * threads})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(launch_chain<chain_mode::graph>)
    ->Name("launch_chain_graph")
    ->Apply(chain_sizes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(launch_chain<chain_mode::graph_pdl>)
    ->Name("launch_chain_graph_pdl")
    ->Apply(chain_sizes)
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
