// Family A: unified memory strategies for host-written data that a device phase uses and the
// host then reads back, 256 MiB to 2 GiB, each against the pinned-copy ceiling measured in the
// same iteration (alternating order, so drift hits both alike).
//
// Each iteration: the host writes every byte (pages end up on the host), then
//   to_device: event-timed, move to the device + one scale kernel;
//   to_host:   host-timed, move back + stream sync + the host reads one word per 4 KiB page.
// Ceiling: explicit device memory with pinned copies (cudaMemcpyAsync) and the same kernel.
// Counters: *_ms for the strategy and the ceiling, ratio_* = strategy / ceiling (1.0 is the
// ceiling; lower is better). At most one managed allocation (<= 2 GiB) is live at a time, so
// managed memory stays far below the card's free memory: no oversubscription runs.
#include "support/timing.cuh"

#include <umsync/device.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/step_memory.hpp>
#include <umsync/phase_advisor.hpp>
#include <umsync/stream.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>

namespace {

using u32 = std::uint32_t;
constexpr umsync::launch_config grid{.grid = 264, .block = 512};

__global__ void scale(u32* data, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    data[i] = data[i] * 3U + 1U;
  }
}

/// The host reads one word per 4 KiB page: enough to fault every page back, cheap otherwise.
u32 touch_pages(u32 const* data, std::size_t n)
{
  u32 sum = 0;
  for (std::size_t i = 0; i < n; i += 1024) {
    sum += data[i];
  }
  benchmark::DoNotOptimize(sum);
  return sum;
}

enum class strategy { no_hints, prefetch, preferred_and_prefetch, accessed_by, advisor_plan, device_only_policy };

struct device_phase {};
struct host_phase {};
struct data_tag {};
using round_trip = umsync::phase_plan<umsync::phase<device_phase, umsync::uses<data_tag, umsync::device_read_write>>,
                                      umsync::phase<host_phase, umsync::uses<data_tag, umsync::host_read_write>>>;

struct timings {
  double to_device = 0;
  double to_host = 0;
};

/// The ceiling: pinned host memory, explicit copies, device memory.
class pinned_ceiling {
 public:
  explicit pinned_ceiling(std::size_t n) : n_(n), host_(n)
  {
    UMSYNC_CUDA_CHECK(cudaMalloc(&device_, n * sizeof(u32)));
  }
  pinned_ceiling(pinned_ceiling const&) = delete;
  pinned_ceiling& operator=(pinned_ceiling const&) = delete;
  ~pinned_ceiling() { umsync::detail::report_in_destructor(cudaFree(device_), "cudaFree (ceiling)"); }

  timings run(umsync::stream<> const& s)
  {
    std::memset(host_.data(), 0x5A, n_ * sizeof(u32));
    timings t;
    t.to_device = umsync_bench::time_on_device(s.get(), [&](cudaStream_t stream) {
      UMSYNC_CUDA_CHECK(cudaMemcpyAsync(device_, host_.data(), n_ * sizeof(u32), cudaMemcpyHostToDevice, stream));
      umsync::launch(umsync::stream_view<>{stream}, grid, scale, device_, n_);
    });
    t.to_host = umsync_bench::time_on_host([&] {
      UMSYNC_CUDA_CHECK(cudaMemcpyAsync(host_.data(), device_, n_ * sizeof(u32), cudaMemcpyDeviceToHost, s.get()));
      s.synchronize();
      touch_pages(host_.data(), n_);
    });
    return t;
  }

 private:
  std::size_t n_;
  umsync::pinned_buffer<u32> host_;
  u32* device_ = nullptr;
};

/// One strategy's memory and its round trip.
class managed_round_trip {
 public:
  managed_round_trip(strategy kind, std::size_t n) : kind_(kind), n_(n), device_(umsync::current_device())
  {
    if (kind == strategy::device_only_policy) {
      policy_.emplace(n);
      return;
    }
    memory_.emplace(n);
    auto const here = umsync::managed_location::device(device_);
    if (kind == strategy::preferred_and_prefetch) {
      memory_->advise(umsync::advice::preferred_location{here});
    } else if (kind == strategy::accessed_by) {
      memory_->advise(umsync::advice::accessed_by{here});
    }
  }

  timings run(umsync::stream<> const& s)
  {
    if (kind_ == strategy::device_only_policy) {
      return run_policy(s);
    }
    if (kind_ == strategy::advisor_plan) {
      return run_advisor(s);
    }
    umsync::managed_buffer<u32>& m = *memory_;
    std::memset(m.data(), 0x5A, m.size_bytes());
    bool const prefetching = kind_ == strategy::prefetch || kind_ == strategy::preferred_and_prefetch;
    timings t;
    t.to_device = umsync_bench::time_on_device(s.get(), [&](cudaStream_t stream) {
      umsync::stream_view<> const view{stream};
      if (prefetching) {
        m.prefetch(umsync::managed_location::device(device_), view);
      }
      umsync::launch(view, grid, scale, m.span(), n_);
    });
    t.to_host = umsync_bench::time_on_host([&] {
      if (prefetching) {
        m.prefetch(umsync::managed_location::host(), s);
      }
      s.synchronize();
      touch_pages(m.data(), n_);
    });
    return t;
  }

 private:
  timings run_advisor(umsync::stream<> const& s)
  {
    auto advisor = umsync::make_phase_advisor<round_trip>(umsync::bind_buffer<data_tag>(*memory_));
    std::memset(memory_->data(), 0x5A, memory_->size_bytes());
    timings t;
    t.to_device = umsync_bench::time_on_device(s.get(), [&](cudaStream_t stream) {
      auto scope = advisor.enter<device_phase>(umsync::stream_view<>{stream});
      umsync::launch(scope.stream(), grid, scale, scope.view<data_tag>(), n_);
    });
    t.to_host = umsync_bench::time_on_host([&] {
      auto scope = advisor.enter<host_phase>(s);
      s.synchronize();
      touch_pages(scope.view<data_tag>().data(), n_);
    });
    return t;
  }

  timings run_policy(umsync::stream<> const& s)
  {
    auto& b = *policy_;
    std::memset(b.host().data(), 0x5A, b.size_bytes());
    timings t;
    t.to_device = umsync_bench::time_on_device(s.get(), [&](cudaStream_t stream) {
      umsync::stream_view<> const view{stream};
      b.to_device(view);
      umsync::launch(view, grid, scale, b.device(), n_);
    });
    t.to_host = umsync_bench::time_on_host([&] {
      b.to_host(s);
      s.synchronize();
      touch_pages(b.host().data(), n_);
    });
    return t;
  }

  strategy kind_;
  std::size_t n_;
  int device_;
  std::optional<umsync::managed_buffer<u32>> memory_;
  std::optional<umsync::step_buffer<u32, umsync::device_only>> policy_;
};

void family_a(benchmark::State& state, strategy kind)
{
  auto const bytes = static_cast<std::size_t>(state.range(0)) << 20;
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  UMSYNC_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // The ceiling's and the strategy's device copies plus the managed pages, with room to spare.
  if (3 * bytes + (std::size_t{2} << 30) > free_bytes) {
    state.SkipWithError("not enough free device memory for this size without oversubscription");
    return;
  }
  std::size_t const n = bytes / sizeof(u32);
  umsync::stream<> const s;
  pinned_ceiling ceiling(n);
  managed_round_trip subject(kind, n);
  timings sum;
  timings ceiling_sum;
  int iteration = 0;
  for (auto _ : state) {
    timings a;
    timings c;
    if ((iteration++ & 1) == 0) {
      c = ceiling.run(s);
      a = subject.run(s);
    } else {
      a = subject.run(s);
      c = ceiling.run(s);
    }
    state.SetIterationTime(a.to_device + a.to_host);
    sum.to_device += a.to_device;
    sum.to_host += a.to_host;
    ceiling_sum.to_device += c.to_device;
    ceiling_sum.to_host += c.to_host;
  }
  double const k = 1e3 / static_cast<double>(iteration);
  state.counters["to_device_ms"] = sum.to_device * k;
  state.counters["to_host_ms"] = sum.to_host * k;
  state.counters["ceiling_to_device_ms"] = ceiling_sum.to_device * k;
  state.counters["ceiling_to_host_ms"] = ceiling_sum.to_host * k;
  state.counters["ratio_to_device"] = sum.to_device / ceiling_sum.to_device;
  state.counters["ratio_to_host"] = sum.to_host / ceiling_sum.to_host;
}

}  // namespace

// One row per strategy and size (MiB).
#define UMSYNC_FAMILY_A(name, kind) \
  BENCHMARK_CAPTURE(family_a, name, kind)->Arg(256)->Arg(1024)->Arg(2048)->Iterations(3)->UseManualTime()->Unit(benchmark::kMillisecond)

UMSYNC_FAMILY_A(um_no_hints, strategy::no_hints);
UMSYNC_FAMILY_A(um_prefetch, strategy::prefetch);
UMSYNC_FAMILY_A(um_preferred_location_prefetch, strategy::preferred_and_prefetch);
UMSYNC_FAMILY_A(um_accessed_by, strategy::accessed_by);
UMSYNC_FAMILY_A(phase_advisor_plan, strategy::advisor_plan);
UMSYNC_FAMILY_A(step_buffer_device_only, strategy::device_only_policy);
