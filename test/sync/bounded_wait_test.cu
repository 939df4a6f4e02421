// GPU tests of umsync/sync/bounded_wait.hpp: bounded waits that are satisfied return what they
// saw and leave the record clear; a wait that times out traps, and the host learns which wait
// it was from the record. A trap poisons the CUDA context for good, so that case runs in a
// child process: this executable started again with a filter for one test case that is
// otherwise skipped.
#include "support/child_process.hpp"
#include "support/gpu_test.hpp"
#include "support/sync_kernels.cuh"

#include <umsync/sync/bounded_wait.hpp>
#include <umsync/sync/signal.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr char const* child_case = "child process - a counter wait that times out traps and fills the record";
constexpr char const* child_report = "CHILD-REPORT: ";

// Block 0 publishes after a delay; block 1 waits in the three bounded forms.
__global__ void late_producer(std::uint32_t* flag_word, std::uint64_t* counter_word, std::uint64_t* phase_word,
                              std::uint64_t* seen, std::uint64_t delay_ns, umsync::wait_record* record)
{
  if (threadIdx.x != 0) {
    return;
  }
  umsync::flag<umsync::device_global> const ready{flag_word};
  umsync::counter<umsync::device_global> const tiles{counter_word};
  umsync::exact_value<umsync::device_global> const phase{phase_word};
  if (blockIdx.x == 0) {
    std::uint64_t const start = umsync::detail::global_time_ns();
    while (umsync::detail::global_time_ns() - start < delay_ns) {
    }
    tiles.add(3);
    tiles.add(4);  // overshoots 5: an at-least wait is still satisfied
    phase.store(42);
    ready.post();
  } else {
    umsync::wait_budget const budget{record, 2'000'000'000, "satisfied wait"};
    seen[0] = tiles.wait_at_least(5, budget);
    phase.wait_equal(42, budget);
    ready.wait(budget);
    seen[1] = phase.load();
    seen[2] = ready.load();
  }
}

// Block 0 adds 4; block 1 thread 32 waits for 5, which never comes.
__global__ void short_producer(std::uint64_t* counter_word, std::uint64_t timeout_ns, umsync::wait_record* record)
{
  umsync::counter<umsync::device_global> const tiles{counter_word};
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    tiles.add(4);
  }
  if (blockIdx.x == 1 && threadIdx.x == 32) {
    tiles.wait_at_least(5, umsync::wait_budget{record, timeout_ns, "consumer waits for 5 tiles"});
  }
}

}  // namespace

TEST_CASE("bounded waits that are satisfied in time return what they saw and leave the record clear")
{
  umsync_test::memory_baseline const baseline;
  umsync_test::sync_buffer<std::uint32_t> flag_word(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint64_t> counter_word(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint64_t> phase_word(1, umsync_test::memory::device);
  umsync_test::sync_buffer<std::uint64_t> seen(3, umsync_test::memory::device);
  seen.fill_bytes(0xA5);
  umsync::wait_diagnostics diagnostics;
  umsync_test::launch_cooperative(late_producer, 2, 32, nullptr, flag_word.get(), counter_word.get(), phase_word.get(),
                                  seen.get(), std::uint64_t{200'000}, diagnostics.device_record());
  diagnostics.check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after late_producer");
  std::vector<std::uint64_t> const result = seen.download();
  CHECK(result[0] >= 5U);
  CHECK(result[0] <= 7U);
  CHECK(result[1] == 42U);
  CHECK(result[2] == 1U);
  CHECK_FALSE(diagnostics.timed_out());
  CHECK(diagnostics.describe().empty());
}

TEST_CASE("wait_diagnostics::check passes success and reports other failures as plain cuda_error")
{
  umsync::wait_diagnostics const diagnostics;
  CHECK_NOTHROW(diagnostics.check(cudaSuccess, "nothing"));
  bool plain = false;
  try {
    diagnostics.check(cudaErrorInvalidValue, "a failing call");
  } catch (umsync::wait_timeout_error const&) {
    plain = false;
  } catch (umsync::cuda_error const& failure) {
    plain = failure.code() == cudaErrorInvalidValue;
  }
  CHECK(plain);
}

TEST_CASE("child process - a counter wait that times out traps and fills the record" * doctest::skip())
{
  // Runs only when bounded_wait's parent test starts it (--no-skip): the trap below ends this
  // process's CUDA context.
  umsync_test::sync_buffer<std::uint64_t> counter_word(1, umsync_test::memory::device);
  umsync::wait_diagnostics diagnostics;
  constexpr std::uint64_t timeout_ns = 2'000'000;
  umsync_test::launch_cooperative(short_producer, 2, 64, nullptr, counter_word.get(), timeout_ns,
                                  diagnostics.device_record());
  cudaError_t const status = cudaDeviceSynchronize();
  CHECK(status != cudaSuccess);
  REQUIRE(diagnostics.timed_out());
  umsync::wait_record const& record = *diagnostics.device_record();
  CHECK(record.block[0] == 1U);
  CHECK(record.thread[0] == 32U);
  CHECK(record.condition == umsync::wait_condition::at_least);
  CHECK(record.expected == 5U);
  CHECK(record.observed == 4U);
  CHECK(record.waited_ns > timeout_ns);
  CHECK(std::string(record.label) == "consumer waits for 5 tiles");
  try {
    diagnostics.check(status, "cudaDeviceSynchronize");
    FAIL("a timed-out wait must throw wait_timeout_error");
  } catch (umsync::wait_timeout_error const& failure) {
    CHECK(failure.code() == status);
    std::printf("%s%s\n", child_report, failure.what());
    std::fflush(stdout);
  }
}

TEST_CASE("a bounded wait that times out traps, and the host reads which wait it was")
{
  if (umsync::cuda_tool_attached()) {
    MESSAGE("a CUDA tool instruments this process: it would report the deliberate trap; not run here");
    return;
  }
  int status = 0;
  std::string const output = umsync_test::run_own_case(child_case, status);
  INFO("child output:\n" << output);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  std::size_t const report = output.find(child_report);
  REQUIRE(report != std::string::npos);  // the child ran its case up to the report
  std::string const line = output.substr(report, output.find('\n', report) - report);
  CHECK(line.find("umsync: bounded wait 'consumer waits for 5 tiles' timed out in block (1,0,0) thread (32,0,0)") !=
        std::string::npos);
  CHECK(line.find("waited for value >= 5, saw 4") != std::string::npos);
}
