// torch/umsync_torch_ext.cu: a PyTorch extension built on umsync/torch.hpp (docs/torch.md).
//
// Built twice by torch/umsync_torch_build.py: release, and debug (UMSYNC_DEBUG, the ordering
// checker on). Ops:
//   produce_consume(x)        mid = 2x + 1 on a side stream, out = mid * mid on torch's current
//                             stream; the tensors are lent to the side stream and given back
//                             through typed edges (umsync::torch::loan)
//   raw_produce(x, mid), raw_consume(mid, out)
//                             the same kernels on torch's current stream, unchecked: the plain
//                             torch baseline (side stream + record_stream) runs them from Python
//   hazard(n, mode, spin_ns)  the caching allocator's cross-stream hazard: a tensor read by a
//                             long side-stream kernel is freed and its block handed to a new
//                             tensor on the allocating stream; mode 0 nothing, 1 a loan, 2
//                             keep_alive_on (record_stream). Returns (what the side stream read,
//                             whether the new tensor got the freed block)
//   stage_h2d(host, device)   a pinned CPU tensor copied into a CUDA tensor (umsync::copy_async)
//   span_on_device(x, d)      a span of x for a pool stream of device d (checks only)
//   unordered_use(x)          x written on a side stream, then read on torch's stream without an
//                             edge (the debug build reports it)
//   is_debug(), reset_debug()
#include <torch/extension.h>

#include <ATen/cuda/CUDAContext.h>

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/stream_edge.hpp>
#include <umsync/torch.hpp>

#include <cstdint>
#include <tuple>

namespace {

struct torch_stream {};  // tag of torch's current stream
struct side {};          // tag of the side stream

__global__ void produce_kernel(float const* x, float* mid, std::int64_t n)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    mid[i] = 2.0f * x[i] + 1.0f;
  }
}

__global__ void consume_kernel(float const* mid, float* out, std::int64_t n)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    out[i] = mid[i] * mid[i];
  }
}

__global__ void fill_kernel(float* data, float value, std::int64_t n)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    data[i] = value;
  }
}

__global__ void copy_kernel(float const* from, float* to, std::int64_t n)
{
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n;
       i += std::int64_t{gridDim.x} * blockDim.x) {
    to[i] = from[i];
  }
}

/// Spins one thread for `ns` nanoseconds of the GPU's global timer: a kernel of fixed duration.
__global__ void spin_kernel(std::uint64_t ns)
{
  std::uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  std::uint64_t now = start;
  while (now - start < ns) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

umsync::launch_config config_for(std::int64_t n, std::source_location where = std::source_location::current())
{
  std::int64_t const blocks = (n + 255) / 256;
  return {.grid = dim3(static_cast<unsigned>(blocks < 1 ? 1 : (blocks > 4096 ? 4096 : blocks))),
          .block = dim3(256),
          .shared_bytes = 0,
          .where = where};
}

/// A stream of torch's pool on the current device, tagged `side`.
umsync::stream_view<side> side_stream_for(umsync::stream_view<torch_stream>)
{
  return umsync::torch::stream_of<side>(at::cuda::getStreamFromPool(false, c10::cuda::current_device()));
}

at::Tensor produce_consume(at::Tensor const& x)
{
  auto const home = umsync::torch::current_stream<torch_stream>();
  auto const in = umsync::torch::as_device_span<float const>(x, home);  // checks x before anything runs
  auto const on_side = side_stream_for(home);
  std::int64_t const n = x.numel();
  at::Tensor mid = at::empty_like(x);  // both allocated on torch's stream (home)
  at::Tensor out = at::empty_like(x);
  {
    umsync::torch::loan to_side(home, on_side);  // on_side waits for home
    umsync::launch(on_side, config_for(n), produce_kernel, to_side.lend<float const>(x), to_side.lend<float>(mid), n);
  }  // home waits for on_side: mid is ready, and x and mid may be freed
  static_cast<void>(in);
  umsync::launch(home, config_for(n), consume_kernel, umsync::torch::as_device_span<float const>(mid, home),
                 umsync::torch::as_device_span<float>(out, home), n);
  return out;
}

void raw_produce(at::Tensor const& x, at::Tensor mid)
{
  std::int64_t const n = x.numel();
  auto const c = config_for(n);
  produce_kernel<<<c.grid, c.block, 0, at::cuda::getCurrentCUDAStream()>>>(x.data_ptr<float>(), mid.data_ptr<float>(),
                                                                           n);
  umsync::check(cudaGetLastError(), "produce_kernel");
}

void raw_consume(at::Tensor const& mid, at::Tensor out)
{
  std::int64_t const n = mid.numel();
  auto const c = config_for(n);
  consume_kernel<<<c.grid, c.block, 0, at::cuda::getCurrentCUDAStream()>>>(mid.data_ptr<float>(), out.data_ptr<float>(),
                                                                           n);
  umsync::check(cudaGetLastError(), "consume_kernel");
}

std::tuple<at::Tensor, bool> hazard(std::int64_t n, std::int64_t mode, std::int64_t spin_ns)
{
  TORCH_CHECK(mode >= 0 && mode <= 2, "hazard: mode is 0 (no edge), 1 (loan) or 2 (keep_alive_on)");
  auto const home = umsync::torch::current_stream<torch_stream>();
  auto const on_side = side_stream_for(home);
  auto const options = at::TensorOptions().dtype(at::kFloat).device(at::kCUDA, c10::cuda::current_device());
  at::Tensor result = at::empty({n}, options);
  at::Tensor tmp = at::empty({n}, options);
  umsync::launch(home, config_for(n), fill_kernel, umsync::torch::as_device_span<float>(tmp, home), 1.0f, n);
  void const* const old_address = tmp.data_ptr();
  if (mode == 1) {
    umsync::torch::loan to_side(home, on_side);
    umsync::launch(on_side, config_for(1), spin_kernel, static_cast<std::uint64_t>(spin_ns));
    umsync::launch(on_side, config_for(n), copy_kernel, to_side.lend<float const>(tmp), to_side.lend<float>(result), n);
    tmp.reset();  // the loan still holds it: freed when the loan is given back, after home waits
  } else if (mode == 2) {
    auto const from = umsync::torch::keep_alive_on<float const>(tmp, home, on_side);
    auto const into = umsync::torch::keep_alive_on<float>(result, home, on_side);
    umsync::launch(on_side, config_for(1), spin_kernel, static_cast<std::uint64_t>(spin_ns));
    umsync::launch(on_side, config_for(n), copy_kernel, from, into, n);
    tmp.reset();  // the allocator holds the block until the side stream's work completes
  } else {
    umsync::stream_edge<torch_stream, side>(home, on_side).edge();  // the side stream sees the 1s
    umsync::launch(on_side, config_for(1), spin_kernel, static_cast<std::uint64_t>(spin_ns));
    umsync::launch(on_side, config_for(n), copy_kernel, umsync::torch::as_device_span<float const>(tmp, on_side),
                   umsync::torch::as_device_span<float>(result, on_side), n);
    tmp.reset();  // freed now: its block goes back to home's pool while the side stream still reads it
  }
  at::Tensor next = at::empty({n}, options);  // on home: the allocator may hand out tmp's block
  bool const reused = next.data_ptr() == old_address;
  umsync::launch(home, config_for(n), fill_kernel, umsync::torch::as_device_span<float>(next, home), 7.0f, n);
  on_side.synchronize();
  home.synchronize();
  return {result, reused};
}

void stage_h2d(at::Tensor const& host, at::Tensor device)
{
  auto const home = umsync::torch::current_stream<torch_stream>();
  auto const into = umsync::torch::as_device_span<float>(device, home);
  auto const from = umsync::torch::as_pinned_span<float const>(host);
  umsync::copy_async(into, from, home);
}

void span_on_device(at::Tensor const& x, std::int64_t device)
{
  auto const stream = umsync::torch::stream_of<torch_stream>(
      at::cuda::getStreamFromPool(false, static_cast<c10::DeviceIndex>(device)));
  static_cast<void>(umsync::torch::as_device_span<float const>(x, stream));
}

void unordered_use(at::Tensor x)
{
  auto const home = umsync::torch::current_stream<torch_stream>();
  auto const on_side = side_stream_for(home);
  std::int64_t const n = x.numel();
  umsync::stream_edge<torch_stream, side>(home, on_side).edge();
  umsync::launch(on_side, config_for(n), fill_kernel, umsync::torch::as_device_span<float>(x, on_side), 3.0f, n);
  // No edge back: torch's stream reads x while the side stream may still write it.
  umsync::torch::note_read(x, home);
  on_side.synchronize();  // the example itself stays harmless after the report (release builds)
}

bool is_debug() { return umsync::debug_build; }

void reset_debug() { umsync::torch::reset_debug_checker(); }

}  // namespace

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)
{
  m.def("produce_consume", &produce_consume, "mid = 2x+1 on a side stream, out = mid*mid on torch's stream");
  m.def("raw_produce", &raw_produce, "mid = 2x+1 on torch's current stream, unchecked");
  m.def("raw_consume", &raw_consume, "out = mid*mid on torch's current stream, unchecked");
  m.def("hazard", &hazard, "the caching allocator's cross-stream hazard (mode 0 none, 1 loan, 2 keep_alive_on)");
  m.def("stage_h2d", &stage_h2d, "pinned CPU tensor -> CUDA tensor with umsync::copy_async");
  m.def("span_on_device", &span_on_device, "a span of x for a pool stream of a device");
  m.def("unordered_use", &unordered_use, "x written on a side stream, read on torch's stream without an edge");
  m.def("is_debug", &is_debug, "true in the UMSYNC_DEBUG build");
  m.def("reset_debug", &reset_debug, "forget what the ordering checker knows");
}
