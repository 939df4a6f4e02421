// GPU tests of umsync/telemetry/ (um_scope, um_counters, um_budget, doctest_gate): the counters
// against workloads whose migrations are known, as measured by the probe on the H200
// (docs/unified_memory.md, "What CUPTI reports"). 64 MiB of managed memory at most.
//
// What the probe saw, per workload (64 MiB): kernel reading host-resident memory: H2D exactly
// 64 MiB all on demand, 102 GPU fault records, no CPU faults; prefetch + kernel: H2D 64 MiB all
// by prefetch (cause USER), no faults; kernel on resident data: no record at all; host reading
// one word per page of device-resident memory: D2H exactly 64 MiB, 192 CPU faults, no GPU
// faults; host and kernel writing the same pages for 300 ms: 1,814 thrashing and 667
// throttling records.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/device.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/stream.hpp>
#include <umsync/telemetry/doctest_gate.hpp>
#include <umsync/telemetry/um_budget.hpp>
#include <umsync/telemetry/um_counters.hpp>
#include <umsync/telemetry/um_scope.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// CUPTI failures belong to umsync's error family (umsync/error.hpp).
static_assert(std::is_base_of_v<umsync::error, umsync::telemetry::cupti_error>);
static_assert(std::is_base_of_v<umsync::error, umsync::telemetry::counters_unavailable>);
static_assert(std::is_base_of_v<umsync::error, umsync::telemetry::scope_conflict>);

namespace {
using u32 = std::uint32_t;
using u64 = unsigned long long;
using umsync::managed_location;
namespace telemetry = umsync::telemetry;

constexpr std::size_t bytes = std::size_t{64} << 20;
constexpr std::size_t words = bytes / sizeof(u32);
constexpr std::size_t page = 4096;
constexpr umsync::launch_config grid{.grid = 264, .block = 256};

__global__ void sum_words(u32 const* data, std::size_t n, u64* total)
{
  u64 partial = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    partial += data[i];
  }
  atomicAdd(total, partial);
}

__global__ void add_one(u32* data, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    data[i] += 1U;
  }
}

// Writes one word in each of `pages` pages until `nanoseconds` have passed.
__global__ void hammer_pages(u32* data, std::size_t pages, std::uint64_t nanoseconds)
{
  std::uint64_t start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  std::uint64_t now = start;
  while (now - start < nanoseconds) {
    for (std::size_t p = threadIdx.x; p < pages; p += blockDim.x) {
      u32 volatile& word = reinterpret_cast<u32 volatile*>(data)[p * (page / sizeof(u32))];
      word = word + 1U;
    }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  }
}

/// A device-memory 64-bit total (not managed: its own migrations would be counted).
class device_total {
 public:
  device_total() { UMSYNC_CUDA_CHECK(cudaMalloc(&value_, sizeof(u64))); }
  device_total(device_total const&) = delete;
  device_total& operator=(device_total const&) = delete;
  ~device_total() { umsync::detail::report_in_destructor(cudaFree(value_), "cudaFree"); }
  void reset(cudaStream_t s) { UMSYNC_CUDA_CHECK(cudaMemsetAsync(value_, 0, sizeof(u64), s)); }
  [[nodiscard]] u64* get() const noexcept { return value_; }
  [[nodiscard]] u64 read(cudaStream_t s) const
  {
    u64 host = 0;
    UMSYNC_CUDA_CHECK(cudaMemcpyAsync(&host, value_, sizeof host, cudaMemcpyDeviceToHost, s));
    UMSYNC_CUDA_CHECK(cudaStreamSynchronize(s));
    return host;
  }

 private:
  u64* value_ = nullptr;
};

/// Random words below 2^31 written by the host: every page of `buffer` is host-resident afterwards.
u64 fill_on_host(umsync::managed_buffer<u32>& buffer)
{
  auto rng = umsync_test::make_rng();
  auto values = umsync_test::random_words(rng, buffer.size());
  for (auto& value : values) {
    value &= 0x7FFFFFFFU;  // room for the increments the tests add: sums compare exactly
  }
  std::memcpy(buffer.data(), values.data(), buffer.size_bytes());
  return std::accumulate(values.begin(), values.end(), u64{0});
}

/// Reads one word per 4 KiB page on the host.
u64 read_each_page_on_host(umsync::managed_buffer<u32> const& buffer)
{
  u64 sum = 0;
  for (std::size_t i = 0; i < buffer.size(); i += page / sizeof(u32)) {
    sum += reinterpret_cast<u32 const volatile*>(buffer.data())[i];
  }
  return sum;
}

bool concurrent_managed_access() { return umsync::capabilities(umsync::current_device()).concurrent_managed_access; }

}  // namespace

TEST_CASE("records are counted by kind: a CPU fault's value is a program counter, not a count")
{
  // The first H200 probe summed `value` of CPU fault records and read garbage: it holds the
  // faulting instruction's address (0x55b8cb91204b there).
  telemetry::um_counters c;
  CUpti_ActivityUnifiedMemoryCounter3 record{};
  record.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
  record.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT;
  record.value = 0x55b8cb91204bULL;
  c.add(record);
  c.add(record);
  CHECK(c.cpu_page_faults == 2);
  record.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT;
  record.value = 7;  // fault groups for the page
  c.add(record);
  CHECK(c.gpu_page_faults == 1);
  CHECK(c.gpu_fault_groups == 7);
  record.counterKind = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
  record.value = 2 << 20;
  record.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER;
  c.add(record);
  record.value = 4096;
  record.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE;
  c.add(record);
  record.value = 61440;
  record.flags = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH;  // the driver's speculation
  c.add(record);
  CHECK(c.htod_bytes == (2 << 20) + 4096 + 61440);
  CHECK(c.htod_prefetch_bytes == 2 << 20);
  CHECK(c.htod_fault_bytes == 4096 + 61440);
  CHECK(c.dtoh_bytes == 0);
  record.kind = CUPTI_ACTIVITY_KIND_MEMCPY;  // not a UM record: ignored
  c.add(record);
  CHECK(c.htod_bytes == (2 << 20) + 4096 + 61440);
}

TEST_CASE("budgets: each limit is inclusive, breaches are named, dropped records never pass")
{
  telemetry::um_counters c;
  c.htod_bytes = 1000;
  c.htod_fault_bytes = 1000;
  c.gpu_page_faults = 3;
  CHECK(telemetry::check_budget(c, {.max_htod_bytes = 1000, .max_gpu_page_faults = 3}).within_budget());
  auto const over = telemetry::check_budget(
      c, {.max_htod_bytes = 999, .max_cpu_page_faults = 0, .max_gpu_page_faults = 2});
  CHECK_FALSE(over.within_budget());
  REQUIRE(over.breaches().size() == 2);
  CHECK(over.describe().find("GPU page faults = 3, budget 2") != std::string::npos);
  CHECK(over.describe().find("host-to-device bytes = 1000, budget 999") != std::string::npos);
  c.dropped_records = 1;
  CHECK_FALSE(telemetry::check_budget(c, {}).within_budget());
  UMSYNC_CHECK_UM_BUDGET(telemetry::um_counters{}, .max_htod_bytes = 0, .max_gpu_page_faults = 0);
}

TEST_CASE("counters_unavailable says how long it waited and what counting would read")
{
  telemetry::counters_unavailable const failure(std::chrono::milliseconds(2000));
  std::string const what = failure.what();
  CHECK(what.find("umsync: CUPTI delivered no unified-memory record") == 0);
  CHECK(what.find("within 2000 ms") != std::string::npos);
  CHECK(what.find("would read zero") != std::string::npos);
}

// The first scope of this process (the cases above open none): before the first-delivery
// handshake in telemetry/detail/cupti_activity.hpp, exactly this case read all zeros on the H200.
TEST_CASE("a kernel on host-resident managed memory: H2D bytes >= N, all on demand, GPU faults")
{
  umsync::stream<> const s;
  umsync::managed_buffer<u32> data(words);
  u64 const expected = fill_on_host(data);
  device_total total;
  total.reset(s.get());
  s.synchronize();

  telemetry::um_counters const c = telemetry::measure_um([&] {
    umsync::launch(s, grid, sum_words, std::as_const(data).span(), words, total.get());
    s.synchronize();
  });
  MESSAGE(c.describe());
  CHECK(total.read(s.get()) == expected);  // the kernel read every word
  CHECK(c.htod_bytes >= bytes);
  CHECK(c.htod_fault_bytes >= bytes);
  CHECK(c.htod_prefetch_bytes == 0);
  CHECK(c.gpu_page_faults > 0);
  CHECK(c.gpu_fault_groups >= c.gpu_page_faults);
  CHECK(c.cpu_page_faults == 0);
  CHECK(c.dtoh_bytes == 0);
  CHECK(c.dropped_records == 0);
}

TEST_CASE("prefetch to the device, then the kernel: bytes counted as prefetch, no faults; resident data: nothing")
{
  if (!concurrent_managed_access()) {
    MESSAGE("skipped: prefetch to a device needs concurrent managed access");
    return;
  }
  int const device = umsync::current_device();
  umsync::stream<> const s;
  umsync::managed_buffer<u32> data(words);
  u64 const expected = fill_on_host(data);
  device_total total;
  total.reset(s.get());
  s.synchronize();

  telemetry::um_counters const advised = telemetry::measure_um([&] {
    data.prefetch(managed_location::device(device), s);
    umsync::launch(s, grid, add_one, data.span(), words);
    s.synchronize();
  });
  MESSAGE("prefetch + kernel:\n" << advised.describe());
  CHECK(advised.htod_prefetch_bytes >= bytes);
  CHECK(advised.htod_fault_bytes == 0);
  CHECK(advised.gpu_page_faults == 0);
  CHECK(advised.cpu_page_faults == 0);
  UMSYNC_CHECK_UM_BUDGET(advised, .max_htod_fault_bytes = 0, .max_cpu_page_faults = 0, .max_gpu_page_faults = 0);

  telemetry::um_counters const resident = telemetry::measure_um([&] {
    umsync::launch(s, grid, sum_words, std::as_const(data).span(), words, total.get());
    s.synchronize();
  });
  MESSAGE("kernel on resident data:\n" << resident.describe());
  CHECK(resident.quiet());
  CHECK(total.read(s.get()) == expected + words);  // add_one ran on every word
}

TEST_CASE("the host touching device-resident pages: CPU faults > 0 and D2H bytes >= N; prefetch back: no faults")
{
  umsync::stream<> const s;
  umsync::managed_buffer<u32> data(words);
  u64 const expected_sum = [&] {
    u64 const all = fill_on_host(data);
    static_cast<void>(all);
    return read_each_page_on_host(data);
  }();
  // Move every page to the device (a kernel writing all of it works without concurrent
  // managed access too), then read one word per page on the host.
  umsync::launch(s, grid, add_one, data.span(), words);
  s.synchronize();

  u64 host_sum = 0;
  telemetry::um_counters const c = telemetry::measure_um([&] { host_sum = read_each_page_on_host(data); });
  MESSAGE(c.describe());
  CHECK(host_sum == expected_sum + bytes / page);  // each word read was incremented once
  CHECK(c.cpu_page_faults > 0);
  CHECK(c.cpu_page_faults <= bytes / page);  // a count, at most one per page touched (192 seen)
  CHECK(c.dtoh_bytes >= bytes);
  CHECK(c.dtoh_fault_bytes >= bytes);
  CHECK(c.gpu_page_faults == 0);
  CHECK(c.htod_bytes == 0);

  if (concurrent_managed_access()) {
    umsync::launch(s, grid, add_one, data.span(), words);  // back to the device
    s.synchronize();
    telemetry::um_counters const back = telemetry::measure_um([&] {
      data.prefetch(managed_location::host(), s);
      s.synchronize();
      host_sum = read_each_page_on_host(data);
    });
    MESSAGE("prefetch to host, then host reads:\n" << back.describe());
    CHECK(back.dtoh_prefetch_bytes >= bytes);
    CHECK(back.dtoh_fault_bytes == 0);
    CHECK(back.cpu_page_faults == 0);
    CHECK(host_sum == expected_sum + 2 * (bytes / page));
  }
}

TEST_CASE("host and kernel writing the same pages at once: thrashing is reported")
{
  if (!concurrent_managed_access()) {
    MESSAGE("skipped: the host cannot write managed memory while a kernel runs without concurrent managed access");
    return;
  }
  constexpr std::size_t pages = 32;
  umsync::stream<> const s;
  umsync::managed_buffer<u32> data(pages * page / sizeof(u32));
  std::memset(data.data(), 0, data.size_bytes());
  constexpr auto contention = std::chrono::milliseconds(300);

  telemetry::um_counters const c = telemetry::measure_um([&] {
    umsync::launch(s, {.grid = 1, .block = 32}, hammer_pages, data.span(), pages,
                   std::uint64_t(std::chrono::nanoseconds(contention).count()));
    auto const until = std::chrono::steady_clock::now() + contention;
    while (std::chrono::steady_clock::now() < until) {
      for (std::size_t p = 0; p < pages; ++p) {
        u32 volatile& word = reinterpret_cast<u32 volatile*>(data.data())[p * (page / sizeof(u32))];
        word = word + 1U;
      }
    }
    s.synchronize();
  });
  MESSAGE(c.describe());
  CHECK(c.thrashing_events > 0);  // 1,814 on the H200 probe
  CHECK(c.htod_fault_bytes > 0);
  CHECK(c.dtoh_fault_bytes > 0);
  auto const verdict = telemetry::check_budget(c, {.max_thrashing_events = 0});
  CHECK_FALSE(verdict.within_budget());
}

TEST_CASE("one scope at a time: a second throws scope_conflict; after stop, a new scope works")
{
  telemetry::um_scope first;
  CHECK(first.running());
  CHECK_THROWS_AS(telemetry::um_scope{}, telemetry::scope_conflict);
  CHECK_THROWS_AS(static_cast<void>(telemetry::measure_um([] {})), umsync::usage_error);
  telemetry::um_counters const c = first.stop();
  CHECK_FALSE(first.running());
  CHECK(c.quiet());
  CHECK(first.stop() == c);  // stop is idempotent
  {
    telemetry::um_scope second;  // the slot is free again; the destructor stops it
    CHECK(second.running());
  }
  telemetry::um_scope third;
  CHECK(third.stop().quiet());
}
