// umsync/sync/bounded_wait.hpp: spin waits that give up. A wait that is not satisfied within
// its budget writes what it waited for and what it saw into a host-readable record, prints the
// same line, and traps: the host then gets a launch error and a description of the wait
// instead of a hang.
//
//   umsync::wait_diagnostics diagnostics;                       // host: pinned record
//   kernel<<<grid, block, 0, stream>>>(..., diagnostics.device_record());
//   diagnostics.check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
//       // throws wait_timeout_error: "umsync: bounded wait 'tile ready' timed out in block
//       // (1,0,0) thread (32,0,0) after 2000000 ns: waited for value >= 5, saw 4 ..."
//
//   // device: the label is a string literal in device code, the record comes from the host
//   ready.wait_at_least(5, umsync::wait_budget{record, 2'000'000, "tile ready"});
//
// A trap poisons the CUDA context (cudaErrorLaunchFailure is sticky): the process must be
// restarted. The record lives in pinned host memory, so reading it needs no CUDA call.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <cuda/atomic>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

UMSYNC_NAMESPACE_BEGIN

/// What a wait was waiting for.
enum class wait_condition : std::uint32_t {
  flag_set = 1,  ///< a flag becoming non-zero
  at_least = 2,  ///< a monotonic counter reaching `expected` or more
  equal_to = 3,  ///< an exact value equal to `expected`
};

/// One timed-out wait, as the device saw it. The first wait to time out writes it.
struct wait_record {
  static constexpr std::size_t label_capacity = 64;
  std::uint32_t complete;  ///< set (release, system scope) once the fields below are written
  std::uint32_t block[3];
  std::uint32_t thread[3];
  wait_condition condition;
  std::uint64_t expected;
  std::uint64_t observed;
  std::uint64_t waited_ns;
  char label[label_capacity];
};

/// How long a device-side wait may spin, where to report a timeout and what to call the wait.
/// `label` must point to device-readable memory: a string literal written in device code.
struct wait_budget {
  wait_record* record = nullptr;  ///< may be null: the wait then only prints before trapping
  std::uint64_t timeout_ns = 0;
  char const* label = "unnamed wait";
};

namespace detail {

/// Which timed-out wait writes the record. A read-modify-write atomic on pinned host memory is
/// invalid on systems without host native atomics (compute-sanitizer memcheck reports it; the
/// H200 host here has none), so the claim lives in device memory: one word per module (each
/// translation unit without -rdc), never reset, because the trap that follows the first timeout
/// ends the context anyway.
static __device__ std::uint32_t wait_record_claim = 0;

inline constexpr unsigned first_backoff_ns = 32;
inline constexpr unsigned max_backoff_ns = 4096;

__device__ inline std::uint64_t global_time_ns() noexcept
{
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

__host__ __device__ constexpr char const* condition_text(wait_condition condition) noexcept
{
  switch (condition) {
    case wait_condition::flag_set: return "flag set (non-zero)";
    case wait_condition::at_least: return "value >=";
    case wait_condition::equal_to: return "value ==";
  }
  return "?";
}

/// Writes the record (once per launch), prints, traps. Never returns.
__device__ inline void report_timeout(wait_budget const& budget, wait_condition condition, std::uint64_t expected,
                                      std::uint64_t observed, std::uint64_t waited_ns) noexcept
{
  if (wait_record* const record = budget.record; record != nullptr && atomicCAS(&wait_record_claim, 0U, 1U) == 0U) {
    record->block[0] = blockIdx.x;
    record->block[1] = blockIdx.y;
    record->block[2] = blockIdx.z;
    record->thread[0] = threadIdx.x;
    record->thread[1] = threadIdx.y;
    record->thread[2] = threadIdx.z;
    record->condition = condition;
    record->expected = expected;
    record->observed = observed;
    record->waited_ns = waited_ns;
    std::size_t i = 0;
    for (; i + 1 < wait_record::label_capacity && budget.label[i] != '\0'; ++i) {
      record->label[i] = budget.label[i];
    }
    record->label[i] = '\0';
    cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(record->complete)
        .store(1U, cuda::std::memory_order_release);
    __threadfence_system();
  }
  std::printf("umsync: bounded wait '%s' timed out in block (%u,%u,%u) thread (%u,%u,%u) after %llu ns: waited "
              "for %s %llu, saw %llu\n",
              budget.label, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
              static_cast<unsigned long long>(waited_ns), condition_text(condition),
              static_cast<unsigned long long>(expected), static_cast<unsigned long long>(observed));
  __trap();
}

/// Polls `observe()` until `satisfied(value)`, sleeping with exponential backoff between polls
/// so spinning warps leave issue slots to the warps they wait for. Returns the value seen.
template <class Observe, class Satisfied>
__device__ auto spin_until(Observe observe, Satisfied satisfied) noexcept
{
  auto seen = observe();
  unsigned backoff = first_backoff_ns;
  while (!satisfied(seen)) {
    __nanosleep(backoff);
    backoff = backoff < max_backoff_ns ? 2 * backoff : backoff;
    seen = observe();
  }
  return seen;
}

/// spin_until with a budget: on timeout reports and traps.
template <class Observe, class Satisfied>
__device__ auto spin_until(Observe observe, Satisfied satisfied, wait_budget const& budget, wait_condition condition,
                           std::uint64_t expected) noexcept
{
  auto seen = observe();
  if (satisfied(seen)) {
    return seen;
  }
  std::uint64_t const start = global_time_ns();
  unsigned backoff = first_backoff_ns;
  for (;;) {
    __nanosleep(backoff);
    backoff = backoff < max_backoff_ns ? 2 * backoff : backoff;
    seen = observe();
    if (satisfied(seen)) {
      return seen;
    }
    std::uint64_t const waited = global_time_ns() - start;
    if (waited > budget.timeout_ns) {
      report_timeout(budget, condition, expected, static_cast<std::uint64_t>(seen), waited);
    }
  }
}

}  // namespace detail

/// A bounded wait timed out on the device. what() names the wait, where it ran, what it
/// waited for and what it saw; code() is the launch error the trap caused.
class wait_timeout_error : public cuda_error {
 public:
  wait_timeout_error(cudaError_t status, std::string const& description,
                     std::source_location where = std::source_location::current())
      : cuda_error(status, description, where)
  {}
};

/// Host side of the bounded waits: owns one pinned, mapped wait_record that kernels receive
/// as device_record(), and turns a failed synchronization into a wait_timeout_error that says
/// which wait timed out.
class wait_diagnostics {
 public:
  wait_diagnostics()
  {
    void* memory = nullptr;
    UMSYNC_CUDA_CHECK(cudaHostAlloc(&memory, sizeof(wait_record), cudaHostAllocMapped | cudaHostAllocPortable));
    record_ = static_cast<wait_record*>(memory);
    reset();
  }
  wait_diagnostics(wait_diagnostics const&) = delete;
  wait_diagnostics& operator=(wait_diagnostics const&) = delete;
  ~wait_diagnostics() { detail::report_in_destructor(cudaFreeHost(record_), "cudaFreeHost(wait record)"); }

  /// The pointer kernels get (unified addressing: the same address on host and device).
  [[nodiscard]] wait_record* device_record() const noexcept { return record_; }

  /// True once a wait has timed out and finished writing the record.
  [[nodiscard]] bool timed_out() const noexcept
  {
    return cuda::atomic_ref<std::uint32_t, cuda::thread_scope_system>(record_->complete)
               .load(cuda::std::memory_order_acquire) != 0U;
  }

  /// The timed-out wait in one line, or an empty string when none timed out.
  [[nodiscard]] std::string describe() const
  {
    if (!timed_out()) {
      return {};
    }
    wait_record const& r = *record_;
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on chains of
    // operator+ that start from a string literal.
    std::string text = "bounded wait '";
    text.append(r.label).append("' timed out in block (");
    text.append(std::to_string(r.block[0])).append(",").append(std::to_string(r.block[1])).append(",");
    text.append(std::to_string(r.block[2])).append(") thread (").append(std::to_string(r.thread[0])).append(",");
    text.append(std::to_string(r.thread[1])).append(",").append(std::to_string(r.thread[2])).append(") after ");
    text.append(std::to_string(r.waited_ns)).append(" ns: waited for ").append(detail::condition_text(r.condition));
    if (r.condition != wait_condition::flag_set) {
      text.append(" ").append(std::to_string(r.expected));
    }
    text.append(", saw ").append(std::to_string(r.observed));
    return text;
  }

  /// Like check(status, call), but a failure caused by a timed-out wait throws
  /// wait_timeout_error naming the wait.
  void check(cudaError_t status, std::string_view call,
             std::source_location where = std::source_location::current()) const
  {
    if (status != cudaSuccess && timed_out()) {
      static_cast<void>(cudaGetLastError());
      std::string description = describe();
      description.append(" (reported by ").append(call).append(")");
      throw wait_timeout_error(status, description, where);
    }
    umsync::check(status, call, where);
  }

  /// Clears the record for the next launch (only while no kernel uses it).
  void reset() noexcept { *record_ = wait_record{}; }

 private:
  wait_record* record_ = nullptr;
};

UMSYNC_NAMESPACE_END
