// One-shot probe of CUPTI's unified-memory counter records on a real GPU (issue 9, part 4).
// Not part of any build: nvcc -std=c++17 -arch=sm_90 -o /tmp/p cupti_um_probe.cu -lcupti
// Prints, per known workload, every counter kind seen: record count, sum/min/max of `value`,
// flags histogram, and raw fields of the first records, so the meaning of each field can be
// read off instead of guessed.
#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <unistd.h>
#include <vector>

#define CU(call)                                                                      \
  do {                                                                                \
    cudaError_t s_ = (call);                                                          \
    if (s_ != cudaSuccess) {                                                          \
      std::printf("FATAL %s: %s (line %d)\n", #call, cudaGetErrorName(s_), __LINE__); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

static const char* cupti_str(CUptiResult r)
{
  const char* s = nullptr;
  if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || s == nullptr) return "?";
  return s;
}

#define CP(call)                                                                           \
  do {                                                                                     \
    CUptiResult r_ = (call);                                                               \
    if (r_ != CUPTI_SUCCESS) {                                                             \
      std::printf("FATAL %s: %d %s (line %d)\n", #call, int(r_), cupti_str(r_), __LINE__); \
      std::exit(3);                                                                        \
    }                                                                                      \
  } while (0)

using rec_t = CUpti_ActivityUnifiedMemoryCounter3;
static std::mutex g_mutex;
static std::vector<rec_t> g_records;
static std::map<int, int> g_other_kinds;
static std::size_t g_buffers_completed = 0;

static void CUPTIAPI on_request(uint8_t** buffer, size_t* size, size_t* max_records)
{
  *size = 8u << 20;
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max_records = 0;
}

static void CUPTIAPI on_complete(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid)
{
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_buffers_completed;
  CUpti_Activity* record = nullptr;
  for (;;) {
    CUptiResult r = cuptiActivityGetNextRecord(buffer, valid, &record);
    if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
    if (r != CUPTI_SUCCESS) {
      std::printf("  cuptiActivityGetNextRecord: %s\n", cupti_str(r));
      break;
    }
    if (record->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
      rec_t copy;
      std::memcpy(&copy, record, sizeof copy);
      g_records.push_back(copy);
    } else {
      ++g_other_kinds[int(record->kind)];
    }
  }
  std::free(buffer);
}

static const char* kind_name(int k)
{
  switch (k) {
    case 1: return "BYTES_HTOD";
    case 2: return "BYTES_DTOH";
    case 3: return "CPU_PAGE_FAULT_COUNT";
    case 4: return "GPU_PAGE_FAULT";
    case 5: return "THRASHING";
    case 6: return "THROTTLING";
    case 7: return "REMOTE_MAP";
    case 8: return "BYTES_DTOD";
    default: return "OTHER";
  }
}

static uint64_t now_ts()
{
  uint64_t t = 0;
  CP(cuptiGetTimestamp(&t));
  return t;
}

static std::vector<rec_t> take()
{
  CP(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<rec_t> out;
  out.swap(g_records);
  return out;
}

static void summarize(const char* name, std::vector<rec_t> const& recs, uint64_t t0, uint64_t t1, void const* buf,
                      std::size_t bytes)
{
  std::printf("== %s: %zu records (phase %.3f ms)\n", name, recs.size(), (t1 - t0) / 1e6);
  std::map<int, std::vector<rec_t const*>> by_kind;
  for (auto const& r : recs) by_kind[int(r.counterKind)].push_back(&r);
  uint64_t lo = reinterpret_cast<uint64_t>(buf);
  uint64_t hi = lo + bytes;
  for (auto const& [k, v] : by_kind) {
    uint64_t sum = 0, mn = UINT64_MAX, mx = 0;
    std::map<uint32_t, int> flags, src, dst;
    int in_buf = 0, in_phase = 0;
    for (auto* r : v) {
      sum += r->value;
      mn = std::min<uint64_t>(mn, r->value);
      mx = std::max<uint64_t>(mx, r->value);
      ++flags[r->flags];
      ++src[r->srcId];
      ++dst[r->dstId];
      if (r->address >= lo && r->address < hi) ++in_buf;
      if (r->start >= t0 && r->start <= t1) ++in_phase;
    }
    std::printf("  kind %d %-20s n=%zu sum(value)=%llu min=%llu max=%llu addr_in_buffer=%d start_in_phase=%d\n", k,
                kind_name(k), v.size(), (unsigned long long)sum, (unsigned long long)mn, (unsigned long long)mx, in_buf,
                in_phase);
    std::printf("    flags:");
    for (auto [f, c] : flags) std::printf(" %u:%d", f, c);
    std::printf("  src:");
    for (auto [f, c] : src) std::printf(" %u:%d", f, c);
    std::printf("  dst:");
    for (auto [f, c] : dst) std::printf(" %u:%d", f, c);
    std::printf("\n");
    for (std::size_t i = 0; i < v.size() && i < 3; ++i) {
      auto* r = v[i];
      std::printf("    raw[%zu] value=0x%llx (%llu) addr=0x%llx (buf+%lld) start-t0=%lld end-start=%lld src=%u dst=%u "
                  "flags=%u stream=%u pid=%u pad=%u proc0=0x%llx\n",
                  i, (unsigned long long)r->value, (unsigned long long)r->value, (unsigned long long)r->address,
                  (long long)(r->address - lo), (long long)(r->start - t0), (long long)(r->end - r->start), r->srcId,
                  r->dstId, r->flags, r->streamId, r->processId, r->pad, (unsigned long long)r->processors[0]);
    }
  }
}

__global__ void touch_read(uint32_t const* p, std::size_t n, uint32_t* sink)
{
  uint32_t acc = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc += p[i];
  if (acc == 0xdeadbeef) *sink = acc;
}

__global__ void touch_write(uint32_t* p, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) p[i] += 1;
}

__global__ void spin_write(volatile uint32_t* p, long long cycles)
{
  long long start = clock64();
  while (clock64() - start < cycles) {
    p[threadIdx.x * 1024] += 1;  // one word per 4 KiB page, 32 pages
  }
}

struct phase_t {
  const char* name;
  uint64_t t0;
  void const* buf;
  std::size_t bytes;
};

static phase_t begin(const char* name, void const* buf, std::size_t bytes)
{
  CU(cudaDeviceSynchronize());
  auto stale = take();
  if (!stale.empty()) std::printf("  (discarded %zu records from before %s)\n", stale.size(), name);
  return phase_t{name, now_ts(), buf, bytes};
}

static void end(phase_t const& p)
{
  CU(cudaDeviceSynchronize());
  uint64_t t1 = now_ts();
  auto recs = take();
  summarize(p.name, recs, p.t0, t1, p.buf, p.bytes);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  auto late = take();
  std::printf("  late records after 200 ms + second forced flush: %zu\n", late.size());
  if (!late.empty()) summarize("  (late)", late, p.t0, now_ts(), p.buf, p.bytes);
}

static void host_read_pages(uint32_t const* p, std::size_t bytes, volatile uint32_t* sink)
{
  uint32_t acc = 0;
  for (std::size_t off = 0; off < bytes / 4; off += 1024) acc += p[off];
  *sink = acc;
}

int main()
{
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  uint32_t cupti_version = 0;
  CP(cuptiGetVersion(&cupti_version));
  int driver = 0, runtime = 0;
  CU(cudaDriverGetVersion(&driver));
  CU(cudaRuntimeGetVersion(&runtime));
  std::printf("CUPTI API version %u, driver %d, runtime %d\n", cupti_version, driver, runtime);
  std::printf("sizeof(CUpti_ActivityUnifiedMemoryCounter3)=%zu offsets: kind %zu counterKind %zu value %zu start %zu "
              "end %zu address %zu srcId %zu dstId %zu streamId %zu processId %zu flags %zu pad %zu processors %zu\n",
              sizeof(rec_t), offsetof(rec_t, kind), offsetof(rec_t, counterKind), offsetof(rec_t, value),
              offsetof(rec_t, start), offsetof(rec_t, end), offsetof(rec_t, address), offsetof(rec_t, srcId),
              offsetof(rec_t, dstId), offsetof(rec_t, streamId), offsetof(rec_t, processId), offsetof(rec_t, flags),
              offsetof(rec_t, pad), offsetof(rec_t, processors));
  std::printf("probe function address (a host PC nearby): %p, pid %d\n", (void*)&host_read_pages, (int)getpid());

  CU(cudaFree(nullptr));
  int cma = 0;
  CU(cudaDeviceGetAttribute(&cma, cudaDevAttrConcurrentManagedAccess, 0));
  std::printf("concurrentManagedAccess=%d\n", cma);

  // Warm-up as the test main does, before any CUPTI call.
  {
    void* m = nullptr;
    CU(cudaMallocManaged(&m, 2 << 20));
    CU(cudaMemPrefetchAsync(m, 2 << 20, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, nullptr));
    CU(cudaMemPrefetchAsync(m, 2 << 20, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, nullptr));
    CU(cudaDeviceSynchronize());
    CU(cudaFree(m));
  }

  CP(cuptiActivityRegisterCallbacks(on_request, on_complete));

  // Which kinds can be configured, one at a time.
  std::vector<CUpti_ActivityUnifiedMemoryCounterConfig> ok;
  for (int k = 1; k <= 8; ++k) {
    CUpti_ActivityUnifiedMemoryCounterConfig c{};
    c.scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    c.kind = CUpti_ActivityUnifiedMemoryCounterKind(k);
    c.deviceId = 0;
    c.enable = 1;
    CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(&c, 1);
    std::printf("configure kind %d %s alone: %s\n", k, kind_name(k), cupti_str(r));
    if (r == CUPTI_SUCCESS) ok.push_back(c);
  }
  CUptiResult all = cuptiActivityConfigureUnifiedMemoryCounter(ok.data(), uint32_t(ok.size()));
  std::printf("configure %zu kinds together: %s\n", ok.size(), cupti_str(all));
  if (all != CUPTI_SUCCESS) {
    ok.resize(4);
    CP(cuptiActivityConfigureUnifiedMemoryCounter(ok.data(), uint32_t(ok.size())));
    std::printf("fell back to kinds 1-4\n");
  }
  CP(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
  std::printf("enabled CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER\n");

  constexpr std::size_t bytes = 64u << 20;
  constexpr std::size_t n = bytes / 4;
  uint32_t* sink = nullptr;
  CU(cudaMalloc(&sink, 4));
  volatile uint32_t host_sink = 0;
  cudaMemLocation const dev{cudaMemLocationTypeDevice, 0};
  cudaMemLocation const host{cudaMemLocationTypeHost, 0};

  // A: GPU reads host-resident managed memory, no prefetch.
  uint32_t* a = nullptr;
  CU(cudaMallocManaged(&a, bytes));
  std::memset(a, 1, bytes);
  {
    auto p = begin("A kernel reads 64 MiB host-resident (no prefetch)", a, bytes);
    touch_read<<<264, 256>>>(a, n, sink);
    CU(cudaGetLastError());
    end(p);
  }
  // A2: the same kernel again, pages now on the device.
  {
    auto p = begin("A2 same kernel again (pages resident on device)", a, bytes);
    touch_read<<<264, 256>>>(a, n, sink);
    CU(cudaGetLastError());
    end(p);
  }
  // E: host reads device-resident pages (one word per 4 KiB page).
  {
    auto p = begin("E host reads one word per 4 KiB page of 64 MiB device-resident", a, bytes);
    host_read_pages(a, bytes, &host_sink);
    end(p);
  }
  // E2: kernel writes everything (back to device), then host writes one word per page.
  {
    touch_write<<<264, 256>>>(a, n);
    CU(cudaGetLastError());
    CU(cudaDeviceSynchronize());
    auto p = begin("E2 host writes one word per 4 KiB page of device-resident (after kernel wrote)", a, bytes);
    for (std::size_t off = 0; off < n; off += 1024) a[off] += 1;
    end(p);
  }
  CU(cudaFree(a));

  // B: prefetch of host-written memory to the device, then C: kernel on it.
  uint32_t* b = nullptr;
  CU(cudaMallocManaged(&b, bytes));
  std::memset(b, 2, bytes);
  {
    auto p = begin("B prefetch 64 MiB host-resident to device", b, bytes);
    CU(cudaMemPrefetchAsync(b, bytes, dev, 0, nullptr));
    end(p);
  }
  {
    auto p = begin("C kernel reads the prefetched 64 MiB", b, bytes);
    touch_read<<<264, 256>>>(b, n, sink);
    CU(cudaGetLastError());
    end(p);
  }
  {
    auto p = begin("F prefetch 64 MiB device-resident to host", b, bytes);
    CU(cudaMemPrefetchAsync(b, bytes, host, 0, nullptr));
    end(p);
  }
  {
    auto p = begin("F2 host reads the prefetched-to-host pages", b, bytes);
    host_read_pages(b, bytes, &host_sink);
    end(p);
  }
  // D: prefetch + kernel in one phase (the test's shape).
  {
    std::memset(b, 3, bytes);
    auto p = begin("D prefetch to device + kernel, one phase", b, bytes);
    CU(cudaMemPrefetchAsync(b, bytes, dev, 0, nullptr));
    touch_write<<<264, 256>>>(b, n);
    CU(cudaGetLastError());
    end(p);
  }
  CU(cudaFree(b));

  // G: contention: a kernel writes 32 pages for ~300 ms while the host writes the same pages.
  uint32_t* g = nullptr;
  CU(cudaMallocManaged(&g, 1 << 20));
  std::memset(g, 0, 1 << 20);
  {
    int clock_khz = 0;
    CU(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    auto p = begin("G host and kernel write the same 32 pages for ~300 ms", g, 1 << 20);
    spin_write<<<1, 32>>>(g, (long long)clock_khz * 300);
    CU(cudaGetLastError());
    auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < until) {
      for (int i = 0; i < 32; ++i) reinterpret_cast<volatile uint32_t*>(g)[i * 1024] += 1;
    }
    end(p);
  }
  CU(cudaFree(g));

  // H: disable, work, re-enable (configure again), work: can a scope turn collection on and off?
  uint32_t* h = nullptr;
  CU(cudaMallocManaged(&h, bytes));
  std::memset(h, 4, bytes);
  CU(cudaDeviceSynchronize());
  CP(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  CP(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
  {
    auto p = begin("H1 kernel reads 64 MiB host-resident with the kind DISABLED", h, bytes);
    touch_read<<<264, 256>>>(h, n, sink);
    CU(cudaGetLastError());
    end(p);
  }
  std::memset(h, 5, bytes);  // back to the host
  CU(cudaDeviceSynchronize());
  {
    CUptiResult r = cuptiActivityConfigureUnifiedMemoryCounter(ok.data(), uint32_t(ok.size()));
    std::printf("re-configure while disabled: %s\n", cupti_str(r));
    CP(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    auto p = begin("H2 same after re-enable", h, bytes);
    touch_read<<<264, 256>>>(h, n, sink);
    CU(cudaGetLastError());
    end(p);
    CUptiResult r2 = cuptiActivityConfigureUnifiedMemoryCounter(ok.data(), uint32_t(ok.size()));
    std::printf("re-configure while enabled: %s\n", cupti_str(r2));
  }
  CU(cudaFree(h));

  // I: small buffer (1 MiB) fault-driven, to see granularity.
  uint32_t* s = nullptr;
  CU(cudaMallocManaged(&s, 1 << 20));
  std::memset(s, 6, 1 << 20);
  {
    auto p = begin("I kernel reads 1 MiB host-resident", s, 1 << 20);
    touch_read<<<8, 256>>>(s, (1 << 20) / 4, sink);
    CU(cudaGetLastError());
    end(p);
  }
  {
    auto p = begin("I2 host reads 1 MiB device-resident, one word per page", s, 1 << 20);
    host_read_pages(s, 1 << 20, &host_sink);
    end(p);
  }
  CU(cudaFree(s));

  CU(cudaDeviceSynchronize());
  take();
  size_t dropped = 0;
  CP(cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped));
  std::printf("dropped records: %zu; buffers completed: %zu; other kinds:", dropped, g_buffers_completed);
  for (auto [k, c] : g_other_kinds) std::printf(" %d:%d", k, c);
  std::printf("\n");
  CP(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
  CU(cudaFree(sink));
  std::printf("PROBE DONE\n");
  return 0;
}
