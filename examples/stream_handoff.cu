// Two streams, one typed edge: a producer stream fills a stream buffer, and a consumer stream reads
// it only after umsync::stream_edge::transfer has ordered the two streams and rebound the
// buffer to the consumer (where it is also freed, after its last use there).
//
// The buffer's type carries the stream it is bound to, so the same code without the edge does
// not compile. Build this file with -DUMSYNC_EXAMPLE_WITHOUT_EDGE to see it:
//   error: umsync: memory bound to one stream is used on another stream; cross with
//          umsync::stream_edge::transfer (an event edge) first
// test/compile_fail/stream_handoff_without_edge.cu compiles this very file that way (and
// without the define as its control build); test/compile_fail/buffer_on_foreign_stream.cu
// states the rule on its own.
//
// Prints the time of each handoff (CUDA events from the producer's first kernel to the
// consumer's last), the bandwidth of the two kernels together, and how many outputs were wrong
// against a host reference computed from fresh random input. Exits 0 only if none was.
#include "support/example_main.hpp"

#include <umsync/timed_event.hpp>
#include <umsync/umsync.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <utility>
#include <vector>

namespace {

struct producer {};
struct consumer {};

constexpr std::uint32_t multiplier = 2654435761U;
constexpr std::uint32_t offset = 7U;

__global__ void produce(std::uint32_t const* in, std::uint32_t* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[i] * multiplier;
  }
}

// Reads its neighbour's element, so an early start would read what the producer has not yet
// written (or the previous iteration's values), not only its own.
__global__ void consume(std::uint32_t const* in, std::uint32_t* out, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    out[i] = in[n - 1 - i] + offset;
  }
}

}  // namespace

int main()
{
  return umsync_example::run("stream_handoff", [&](umsync::device_probe const&) {
    constexpr std::size_t n = std::size_t{1} << 24;  // 64 MiB per buffer
    constexpr int iterations = 5;
    constexpr umsync::launch_config config{.grid = 528, .block = 256};

    umsync::memory_pool pool;  // keeps its memory: the handoffs after the first allocate nothing new
    umsync::stream<producer> ps;
    umsync::stream<consumer> cs;

    std::mt19937 rng{std::random_device{}()};
    umsync::pinned_buffer<std::uint32_t> host_in(n);
    umsync::pinned_buffer<std::uint32_t> host_out(n);
    std::vector<double> ms(iterations);
    std::size_t wrong_total = 0;

    for (int iteration = 0; iteration < iterations; ++iteration) {
      for (auto& x : host_in) {
        x = static_cast<std::uint32_t>(rng());
      }
      std::fill(host_out.begin(), host_out.end(), 0xA5A5A5A5U);  // poison

      umsync::timed_event start;
      umsync::timed_event stop;
      {
        umsync::stream_buffer<std::uint32_t, producer> in(n, ps, pool);
        umsync::stream_buffer<std::uint32_t, producer> mid(n, ps, pool);
        umsync::copy_async(in, host_in, ps);

        start.record(ps);
        umsync::launch(ps, config, produce, std::as_const(in), mid, n);

#if defined(UMSYNC_EXAMPLE_WITHOUT_EDGE)
        // The race: the consumer may read `mid` before (or while) the producer writes it.
        umsync::stream_buffer<std::uint32_t, consumer> out(n, cs, pool);
        umsync::launch(cs, config, consume, std::as_const(mid), out, n);
#else
        // The edge: an event recorded on ps, waited on by cs; `mid` is now bound to cs.
        umsync::stream_edge edge(ps, cs);
        auto mid_on_cs = edge.transfer(std::move(mid));
        umsync::stream_buffer<std::uint32_t, consumer> out(n, cs, pool);
        umsync::launch(cs, config, consume, std::as_const(mid_on_cs), out, n);
#endif
        stop.record(cs);
        umsync::copy_async(host_out, out, cs);
        // Leaving the block frees `out` and `mid_on_cs` on cs and `in` on ps, each after its
        // last use on that stream.
      }
      cs.synchronize();
      ps.synchronize();

      std::size_t wrong = 0;
      std::size_t first_wrong = n;
      for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t const expected = host_in[n - 1 - i] * multiplier + offset;
        if (host_out[i] != expected) {
          first_wrong = wrong == 0 ? i : first_wrong;
          ++wrong;
        }
      }
      if (wrong != 0) {
        std::fprintf(stderr, "stream_handoff: iteration %d: %zu of %zu outputs wrong; first at %zu: got %u, want %u\n",
                     iteration, wrong, n, first_wrong, host_out[first_wrong],
                     host_in[n - 1 - first_wrong] * multiplier + offset);
      }
      wrong_total += wrong;
      ms[static_cast<std::size_t>(iteration)] = static_cast<double>((stop - start).count());
    }

    // Two kernels, each reading and writing n words.
    double const bytes = 4.0 * n * sizeof(std::uint32_t);
    std::vector<double> sorted = ms;
    std::sort(sorted.begin(), sorted.end());
    double const median = sorted[sorted.size() / 2];
    std::printf("stream_handoff: %zu elements, producer -> transfer -> consumer, %d handoffs\n", n, iterations);
    std::printf("stream_handoff: per handoff (ms):");
    for (double const t : ms) {
      std::printf(" %.3f", t);
    }
    std::printf("\nstream_handoff: median %.3f ms, %.1f GB/s over both kernels (first handoff includes warm-up)\n",
                median, bytes / (median * 1e6));
    std::printf("stream_handoff: %zu wrong of %zu checked: %s\n", wrong_total, n * iterations,
                wrong_total == 0 ? "PASS" : "FAIL");
    return wrong_total == 0 ? 0 : 1;
  });
}
