// Probe: when does CUPTI deliver unified-memory counter records relative to a scope that
// enables the record kind, runs work, synchronizes, force-flushes and disables it?
// (issue 9: the first um_scope of a process read zero; a later scope read an earlier one's bytes)
// Not part of any build: nvcc -std=c++17 -arch=sm_90 -o /tmp/sp cupti_scope_probe.cu -lcupti
//   /tmp/sp toggle      enable/disable per phase, like um_scope
//   /tmp/sp always      enable once at start, never disable; sync + forced flush per phase
//   /tmp/sp always-wait same, 500 ms after the enable before the first phase
//   /tmp/sp toggle-wait toggle, 200 ms after each enable before the work
//   /tmp/sp toggle-poll toggle, at stop: flush every 20 ms until 200 ms pass with nothing new
//   /tmp/sp toggle-late toggle, but CUPTI's callbacks registered after the buffers are allocated
//                       and host-written (the order of the test files and the health gate)
//   /tmp/sp toggle-late-primed  same, plus one enable/disable of the kind before the allocations
//   /tmp/sp toggle-late-handshake  toggle-late, plus: after registering, enable the kind and
//                       prefetch a 2 MiB buffer back and forth until a record arrives (prints
//                       how many rounds and how long), then disable
// Buffer c is allocated after the first phase in every mode.
#include <cuda_runtime.h>
#include <cupti.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#define CU(call)                                                  \
  do {                                                            \
    cudaError_t s_ = (call);                                      \
    if (s_ != cudaSuccess) {                                      \
      std::printf("FATAL %s: %s\n", #call, cudaGetErrorName(s_)); \
      std::exit(2);                                               \
    }                                                             \
  } while (0)
#define CP(call)                                \
  do {                                          \
    CUptiResult r_ = (call);                    \
    if (r_ != CUPTI_SUCCESS) {                  \
      const char* m_ = "?";                     \
      cuptiGetResultString(r_, &m_);            \
      std::printf("FATAL %s: %s\n", #call, m_); \
      std::exit(3);                             \
    }                                           \
  } while (0)

using rec_t = CUpti_ActivityUnifiedMemoryCounter3;
static std::mutex g_mutex;
static std::vector<rec_t> g_records;

static void CUPTIAPI on_request(uint8_t** b, size_t* size, size_t* max)
{
  *size = 8u << 20;
  *b = static_cast<uint8_t*>(std::aligned_alloc(8, *size));
  *max = 0;
}
static void CUPTIAPI on_complete(CUcontext, uint32_t, uint8_t* b, size_t, size_t valid)
{
  std::lock_guard<std::mutex> lock(g_mutex);
  CUpti_Activity* r = nullptr;
  while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS) {
    if (r->kind == CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER) {
      rec_t c;
      std::memcpy(&c, r, sizeof c);
      g_records.push_back(c);
    }
  }
  std::free(b);
}
static std::vector<rec_t> take()
{
  CP(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
  std::lock_guard<std::mutex> lock(g_mutex);
  std::vector<rec_t> out;
  out.swap(g_records);
  return out;
}
static uint64_t ts()
{
  uint64_t t = 0;
  CP(cuptiGetTimestamp(&t));
  return t;
}
static void configure()
{
  std::vector<CUpti_ActivityUnifiedMemoryCounterConfig> cfg;
  for (int k = 1; k <= 7; ++k) {
    CUpti_ActivityUnifiedMemoryCounterConfig c{};
    c.scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
    c.kind = CUpti_ActivityUnifiedMemoryCounterKind(k);
    c.enable = 1;
    cfg.push_back(c);
  }
  CP(cuptiActivityConfigureUnifiedMemoryCounter(cfg.data(), uint32_t(cfg.size())));
}
static void sleep_ms(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

__global__ void read_all(uint32_t const* p, size_t n, unsigned long long* sink)
{
  unsigned long long a = 0;
  for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) a += p[i];
  atomicAdd(sink, a);
}

static std::string g_mode;
static std::vector<rec_t> g_carry;  // records delivered by earlier phases' stop, for "late" stats

static void report(char const* name, std::vector<rec_t> const& recs, uint64_t t0, uint64_t t1, int delivered_where)
{
  uint64_t htod = 0, dtoh = 0, cpu = 0, gpu = 0, before = 0, after = 0;
  for (auto const& r : recs) {
    if (r.counterKind == 1) htod += r.value;
    if (r.counterKind == 2) dtoh += r.value;
    if (r.counterKind == 3) ++cpu;
    if (r.counterKind == 4) ++gpu;
    if (r.start < t0) ++before;
    if (r.start > t1) ++after;
  }
  std::printf("%-11s %-34s %s: %5zu records, H2D %9llu B, D2H %9llu B, CPU faults %4llu, GPU faults %4llu; start<t0 "
              "%llu, start>t1 %llu\n",
              g_mode.c_str(), name, delivered_where == 0 ? "in scope " : "late     ", recs.size(),
              (unsigned long long)htod, (unsigned long long)dtoh, (unsigned long long)cpu, (unsigned long long)gpu,
              (unsigned long long)before, (unsigned long long)after);
}

template <class Work>
static void phase(char const* name, Work&& work)
{
  bool const toggle = g_mode.rfind("toggle", 0) == 0;
  CU(cudaDeviceSynchronize());
  auto stale = take();
  if (!stale.empty()) report("(stale before phase)", stale, 0, ~0ull, 1);
  if (toggle) {
    configure();
    CP(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    if (g_mode == "toggle-wait") sleep_ms(200);
  }
  uint64_t const t0 = ts();
  work();
  CU(cudaDeviceSynchronize());
  uint64_t const t1 = ts();
  auto recs = take();
  if (g_mode == "toggle-poll") {
    auto quiet_since = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - quiet_since < std::chrono::milliseconds(200)) {
      sleep_ms(20);
      auto more = take();
      if (!more.empty()) {
        std::printf("  poll found %zu more after %.0f ms\n", more.size(),
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - quiet_since).count());
        recs.insert(recs.end(), more.begin(), more.end());
        quiet_since = std::chrono::steady_clock::now();
      }
    }
  }
  if (toggle) {
    CP(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    auto tail = take();
    recs.insert(recs.end(), tail.begin(), tail.end());
  }
  report(name, recs, t0, t1, 0);
  sleep_ms(300);
  auto late = take();
  if (!late.empty()) report(name, late, t0, t1, 1);
}

int main(int argc, char** argv)
{
  std::setvbuf(stdout, nullptr, _IONBF, 0);
  g_mode = argc > 1 ? argv[1] : "toggle";
  CU(cudaFree(nullptr));
  constexpr size_t bytes = 64u << 20, n = bytes / 4;
  {  // warm-up as the test mains do, before any CUPTI call
    void* m = nullptr;
    CU(cudaMallocManaged(&m, 2 << 20));
    CU(cudaMemPrefetchAsync(m, 2 << 20, cudaMemLocation{cudaMemLocationTypeDevice, 0}, 0, nullptr));
    CU(cudaMemPrefetchAsync(m, 2 << 20, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, nullptr));
    CU(cudaDeviceSynchronize());
    CU(cudaFree(m));
  }
  bool const late = g_mode.rfind("toggle-late", 0) == 0;
  if (g_mode == "toggle-late-primed") {
    configure();
    CP(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    CP(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
  }
  if (!late) CP(cuptiActivityRegisterCallbacks(on_request, on_complete));
  if (g_mode.rfind("always", 0) == 0) {
    configure();
    CP(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    if (g_mode == "always-wait") sleep_ms(500);
  }
  unsigned long long* sink = nullptr;
  CU(cudaMalloc(&sink, 8));
  uint32_t *a = nullptr, *b = nullptr;
  CU(cudaMallocManaged(&a, bytes));
  CU(cudaMallocManaged(&b, bytes));
  std::memset(a, 1, bytes);
  std::memset(b, 2, bytes);
  CU(cudaDeviceSynchronize());
  if (late) CP(cuptiActivityRegisterCallbacks(on_request, on_complete));
  if (g_mode == "toggle-late-handshake") {
    auto const t_start = std::chrono::steady_clock::now();
    void* h = nullptr;
    CU(cudaMallocManaged(&h, 2 << 20));
    std::memset(h, 7, 2 << 20);
    configure();
    CP(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    int rounds = 0;
    std::size_t seen = 0;
    while (seen == 0 && rounds < 400) {
      ++rounds;
      cudaMemLocation const to = rounds % 2 ? cudaMemLocation{cudaMemLocationTypeDevice, 0}
                                            : cudaMemLocation{cudaMemLocationTypeHost, 0};
      CU(cudaMemPrefetchAsync(h, 2 << 20, to, 0, nullptr));
      CU(cudaDeviceSynchronize());
      seen = take().size();
      if (seen == 0) sleep_ms(5);
    }
    CP(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER));
    take();
    CU(cudaFree(h));
    std::printf("handshake: first record after %d prefetch rounds, %.1f ms\n", rounds,
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t_start).count());
  }
  phase("1 kernel reads 64 MiB host-resident", [&] {
    read_all<<<264, 256>>>(a, n, sink);
    CU(cudaGetLastError());
  });
  phase("2 nothing (sleep 100 ms)", [&] { sleep_ms(100); });
  uint32_t* c = nullptr;
  CU(cudaMallocManaged(&c, bytes));
  std::memset(c, 3, bytes);
  CU(cudaDeviceSynchronize());
  phase("2c kernel reads c (allocated after 1)", [&] {
    read_all<<<264, 256>>>(c, n, sink);
    CU(cudaGetLastError());
  });
  CU(cudaFree(c));
  phase("3 kernel reads other 64 MiB", [&] {
    read_all<<<264, 256>>>(b, n, sink);
    CU(cudaGetLastError());
  });
  phase("4 prefetch 64 MiB to host", [&] {
    CU(cudaMemPrefetchAsync(a, bytes, cudaMemLocation{cudaMemLocationTypeHost, 0}, 0, nullptr));
  });
  phase("5 kernel reads it again (faults)", [&] {
    read_all<<<264, 256>>>(a, n, sink);
    CU(cudaGetLastError());
  });
  phase("6 host reads b one word/page", [&] {
    volatile uint32_t s = 0;
    for (size_t i = 0; i < n; i += 1024) s += b[i];
  });
  CU(cudaFree(a));
  CU(cudaFree(b));
  CU(cudaFree(sink));
  std::printf("%s done\n", g_mode.c_str());
  return 0;
}
