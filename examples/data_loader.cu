// A data-loader pipeline: the host stages each batch into a ring of pinned slots
// (umsync::staging_ring: acquire() waits for the copy that last read the slot, upload() copies
// it and releases it), a loader stream copies batch i+1 to the device while a compute stream
// works on batch i, and every
// batch crosses from the loader stream to the compute stream through a typed edge
// (umsync::stream_edge::transfer), so the compute kernel cannot be written to read a batch
// before its copy is ordered before it.
//
//   host:    fill slot 0 | fill slot 1 | fill slot 2 | (wait slot 0 copied) fill slot 0 | ...
//   loader:  copy 0 | copy 1 | copy 2 | copy 3 | ...
//   compute:        | work 0 | work 1 | work 2 | ...      (work i waits for copy i: the edge)
//
// Each batch gets a stream buffer allocated on the loader stream, filled there, transferred to the
// compute stream and freed there after its kernel. The pool is told not to insert hidden waits
// to reuse memory (reuse_policy::allow_internal_dependencies = false): such a wait would make
// the loader stream wait for the compute stream, which is exactly the serialization this
// pipeline exists to avoid.
//
// Measured (CUDA events): the same batches run serially on one stream (copy, then work, per
// batch) give T_copy and T_compute; the pipeline gives T_overlapped, from the first copy to the
// last kernel. Printed:
//   speedup over serial = (T_copy + T_compute) / T_overlapped   (ideal: (T_copy + T_compute) / max)
//   overlap efficiency  = (T_copy + T_compute - T_overlapped) / min(T_copy, T_compute)
//                         1.0: the shorter of copy and compute is completely hidden; 0: no overlap.
// The work per batch is calibrated at start so that the GPU, not the single host thread that
// fills the ring, is the bottleneck (printed: the host fill time and the chosen rounds).
//
// Correctness: each kernel folds its batch into two 64-bit checksums (sum and position-weighted
// sum of an iterated affine map of every element); the host computes the same from the dataset.
// Both runs are checked. Exits 0 only if every checksum matches.
#include "support/example_main.hpp"

#include <umsync/timed_event.hpp>
#include <umsync/umsync.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <utility>
#include <vector>

namespace {

struct loader {};
struct compute {};

using u32 = std::uint32_t;
using u64 = unsigned long long;  // what atomicAdd takes

constexpr std::size_t batch_elements = std::size_t{1} << 21;  // 8 MiB per batch
constexpr std::size_t batches = 16;
constexpr std::size_t ring_slots = 3;
constexpr u32 map_a = 1664525U;  // x -> a x + c (mod 2^32), iterated `rounds` times per element
constexpr u32 map_c = 1013904223U;

// Zeroes the checksums (two per batch).
__global__ void clear(u64* sums, std::size_t count)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += std::size_t(gridDim.x) * blockDim.x) {
    sums[i] = 0;
  }
}

// The work on one batch: iterate the affine map `rounds` times on each element (compute-bound,
// its cost set by `rounds`), then fold into sums[2b] (sum) and sums[2b+1] (sum of value times
// position + 1). Both are order-independent, so atomics give exact, deterministic results.
__global__ void digest(u32 const* in, std::size_t n, u32 a, u32 c, unsigned rounds, u64* sums, unsigned batch)
{
  u64 sum = 0;
  u64 weighted = 0;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    u32 x = in[i];
    for (unsigned r = 0; r < rounds; ++r) {
      x = x * a + c;
    }
    sum += x;
    weighted += u64(x) * u64(i + 1);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    sum += __shfl_down_sync(0xFFFFFFFFU, sum, offset);
    weighted += __shfl_down_sync(0xFFFFFFFFU, weighted, offset);
  }
  if (threadIdx.x % 32 == 0) {
    atomicAdd(&sums[2 * batch], sum);
    atomicAdd(&sums[2 * batch + 1], weighted);
  }
}

struct checksum {
  u64 sum = 0;
  u64 weighted = 0;
  friend bool operator==(checksum, checksum) = default;
};

// The host reference: `rounds` applications of x -> a x + c are one affine map A x + C.
std::vector<checksum> reference(std::vector<u32> const& dataset, unsigned rounds)
{
  u32 big_a = 1;
  u32 big_c = 0;
  for (unsigned r = 0; r < rounds; ++r) {
    big_a = map_a * big_a;
    big_c = map_a * big_c + map_c;
  }
  std::vector<checksum> sums(batches);
  for (std::size_t b = 0; b < batches; ++b) {
    for (std::size_t i = 0; i < batch_elements; ++i) {
      u32 const x = big_a * dataset[b * batch_elements + i] + big_c;
      sums[b].sum += x;
      sums[b].weighted += u64(x) * u64(i + 1);
    }
  }
  return sums;
}

std::size_t count_wrong(char const* run, std::vector<checksum> const& got, std::vector<checksum> const& want)
{
  std::size_t wrong = 0;
  for (std::size_t b = 0; b < batches; ++b) {
    if (!(got[b] == want[b])) {
      std::fprintf(stderr, "data_loader: %s run, batch %zu: checksums %llu/%llu, host reference %llu/%llu\n", run, b,
                   got[b].sum, got[b].weighted, want[b].sum, want[b].weighted);
      ++wrong;
    }
  }
  return wrong;
}

double ms_since(std::chrono::steady_clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main()
{
  return umsync_example::run("data_loader", [&](umsync::device_probe const&) {
    int const device = umsync::current_device();
    umsync::launch_config const config{.grid = static_cast<unsigned>(4 *
                                                                     umsync::capabilities(device).multiprocessor_count),
                                       .block = 256};

    // The dataset the loader reads from (pageable, as a decoded file would be), fresh each run.
    std::vector<u32> dataset(batches * batch_elements);
    std::mt19937_64 rng{std::random_device{}()};
    for (std::size_t i = 0; i < dataset.size(); i += 2) {
      u64 const r = rng();
      dataset[i] = static_cast<u32>(r);
      dataset[i + 1] = static_cast<u32>(r >> 32U);
    }

    umsync::memory_pool pool;
    pool.ref().set_reuse(
        {.follow_event_dependencies = true, .allow_opportunistic = true, .allow_internal_dependencies = false});
    umsync::stream<loader> load_s;
    umsync::stream<compute> compute_s;
    umsync::staging_ring<u32> ring(ring_slots, batch_elements);
    auto const fill_slot = [&](umsync::staging_ring<u32>::slot& slot, std::size_t batch) {
      std::copy_n(dataset.begin() + static_cast<std::ptrdiff_t>(batch * batch_elements), batch_elements, slot.begin());
    };

    umsync::stream_buffer<u64, compute> sums(2 * batches, compute_s, pool);
    umsync::pinned_buffer<u64> host_sums(2 * batches);
    auto const read_sums = [&] {
      umsync::copy_async(host_sums, sums, compute_s);
      compute_s.synchronize();
      std::vector<checksum> got(batches);
      for (std::size_t b = 0; b < batches; ++b) {
        got[b] = {host_sums[2 * b], host_sums[2 * b + 1]};
      }
      return got;
    };

    // --- Calibration: the copy, the host fill, then the kernel's rounds per element. ---
    double copy_ms = 1e30;
    double fill_ms = 0;
    // Work per batch well above what the loader side needs, so the GPU is the bottleneck.
    // The host fill is timed as the pipeline sees it: every batch once, each from a part of
    // the dataset not read just before. Timing one slot filled three times from the same
    // batch read a cache-warm source (0.77 ms on the H200 host, 2026-12-03) and the pipeline
    // still ran at the speed of the host (T_overlapped = T_copy + T_compute).
    // The kernel costs a fixed part plus a part per round, so scaling from one short kernel
    // overshoots the per-round cost and undershoots the target: on the H200 (2026-12-03) scaling
    // from 64 rounds gave 0.36 ms per batch against a target of 0.86 ms, the host fill became
    // the bottleneck and the pipeline ran slower than serial. So the rounds are rescaled from a
    // measurement at the chosen count until the kernel is within 10% of the target.
    double target_ms = 0;
    unsigned rounds = 64;
    double kernel_ms = 0;
    {
      umsync::stream_buffer<u32, compute> probe_batch(batch_elements, compute_s, pool);
      umsync::launch(compute_s, {.grid = 1, .block = 64}, clear, sums, sums.size());
      auto const time_kernel = [&](unsigned r) {
        double best = 1e30;
        for (int trial = 0; trial < 2; ++trial) {
          umsync::timed_event t0;
          umsync::timed_event t1;
          t0.record(compute_s);
          umsync::launch(compute_s, config, digest, std::as_const(probe_batch), batch_elements, map_a, map_c, r, sums,
                         0U);
          t1.record(compute_s);
          t1.synchronize();
          best = std::min(best, static_cast<double>((t1 - t0).count()));
        }
        return best;
      };
      for (std::size_t b = 0; b < batches; ++b) {
        auto slot = ring.acquire();
        auto const start = std::chrono::steady_clock::now();
        fill_slot(slot, b);
        fill_ms = std::max(fill_ms, ms_since(start));
      }  // each slot is given back without an upload
      for (int trial = 0; trial < 3; ++trial) {
        auto slot = ring.acquire();
        umsync::timed_event t0;
        umsync::timed_event t1;
        t0.record(compute_s);
        ring.upload(std::move(slot), probe_batch, compute_s);
        t1.record(compute_s);
        t1.synchronize();
        copy_ms = std::min(copy_ms, static_cast<double>((t1 - t0).count()));
      }
      target_ms = 1.5 * std::max(copy_ms, fill_ms);
      kernel_ms = time_kernel(rounds);
      for (int step = 0; step < 6 && std::abs(kernel_ms - target_ms) > 0.1 * target_ms; ++step) {
        double const scaled = static_cast<double>(rounds) * target_ms / std::max(kernel_ms, 1e-3);
        rounds = static_cast<unsigned>(std::clamp(scaled, 1.0, 1048576.0));
        kernel_ms = time_kernel(rounds);
      }
    }
    std::printf("data_loader: %zu batches of %zu MiB, ring of %zu pinned slots, %d-thread grid of %u blocks\n", batches,
                batch_elements * sizeof(u32) >> 20U, ring_slots, 256, config.grid.x);
    std::printf("data_loader: calibration: H2D copy %.3f ms (%.1f GB/s), host fill of a slot %.3f ms (%.1f GB/s); "
                "kernel target %.3f ms, %u rounds per element take %.3f ms\n",
                copy_ms, batch_elements * sizeof(u32) / (copy_ms * 1e6), fill_ms,
                batch_elements * sizeof(u32) / (fill_ms * 1e6), target_ms, rounds, kernel_ms);
    std::vector<checksum> const want = reference(dataset, rounds);

    // --- Serial: copy then work, batch after batch, on one stream. ---
    double serial_copy_ms = 0;
    double serial_compute_ms = 0;
    umsync::launch(compute_s, {.grid = 1, .block = 64}, clear, sums, sums.size());
    for (std::size_t b = 0; b < batches; ++b) {
      auto slot = ring.acquire();
      fill_slot(slot, b);
      umsync::stream_buffer<u32, compute> batch(batch_elements, compute_s, pool);
      umsync::timed_event t0;
      umsync::timed_event t1;
      umsync::timed_event t2;
      t0.record(compute_s);
      ring.upload(std::move(slot), batch, compute_s);
      t1.record(compute_s);
      umsync::launch(compute_s, config, digest, std::as_const(batch), batch_elements, map_a, map_c, rounds, sums,
                     static_cast<unsigned>(b));
      t2.record(compute_s);
      t2.synchronize();  // the intervals are readable
      serial_copy_ms += static_cast<double>((t1 - t0).count());
      serial_compute_ms += static_cast<double>((t2 - t1).count());
    }
    std::size_t wrong = count_wrong("serial", read_sums(), want);

    // --- Pipelined: copies on the loader stream, work on the compute stream. ---
    umsync::launch(compute_s, {.grid = 1, .block = 64}, clear, sums, sums.size());
    std::vector<umsync::staging_ring<u32>::slot> staged;  // the first slots, filled before the clock starts
    for (std::size_t b = 0; b < ring_slots; ++b) {
      staged.push_back(ring.acquire());
      fill_slot(staged.back(), b);
    }
    umsync::timed_event begin;
    umsync::timed_event end;
    umsync::event cleared;
    cleared.record(compute_s);
    load_s.wait(cleared);  // the clock starts after the checksums are cleared
    begin.record(load_s);
    double host_wait_ms = 0;
    double host_fill_ms = 0;  // the slowest fill inside the pipeline, against the kernel's time
    auto const next_slot = [&](std::size_t b) {
      auto const start = std::chrono::steady_clock::now();
      auto slot = ring.acquire();  // waits for the copy of batch b - ring_slots, which read the slot
      host_wait_ms += ms_since(start);
      auto const fill_start = std::chrono::steady_clock::now();
      fill_slot(slot, b);
      host_fill_ms = std::max(host_fill_ms, ms_since(fill_start));
      return slot;
    };
    umsync::stream_edge to_compute(load_s, compute_s);
    for (std::size_t b = 0; b < batches; ++b) {
      auto slot = b < ring_slots ? std::move(staged[b]) : next_slot(b);
      umsync::stream_buffer<u32, loader> batch(batch_elements, load_s, pool);
      ring.upload(std::move(slot), batch, load_s);  // copies, records the slot's event, releases it
      // The edge: the compute stream waits for the copy; the buffer is now bound to (and will
      // be freed on) the compute stream. Launching with `batch` itself would not compile.
      auto on_compute = to_compute.transfer(std::move(batch));
      umsync::launch(compute_s, config, digest, std::as_const(on_compute), batch_elements, map_a, map_c, rounds, sums,
                     static_cast<unsigned>(b));
    }
    end.record(compute_s);
    end.synchronize();
    load_s.synchronize();
    double const overlapped_ms = static_cast<double>((end - begin).count());
    wrong += count_wrong("pipelined", read_sums(), want);

    double const serial_ms = serial_copy_ms + serial_compute_ms;
    double const shorter = std::min(serial_copy_ms, serial_compute_ms);
    double const longer = std::max(serial_copy_ms, serial_compute_ms);
    double const efficiency = shorter > 0 ? (serial_ms - overlapped_ms) / shorter : 0.0;
    double const bytes = double(batches) * batch_elements * sizeof(u32);
    std::printf("data_loader: serial    T_copy %.3f ms (%.1f GB/s) + T_compute %.3f ms = %.3f ms\n", serial_copy_ms,
                bytes / (serial_copy_ms * 1e6), serial_compute_ms, serial_ms);
    std::printf("data_loader: pipelined T_overlapped %.3f ms (%.1f GB/s end to end); host waited %.3f ms for ring "
                "slots; slowest host fill in the pipeline %.3f ms (kernel %.3f ms)\n",
                overlapped_ms, bytes / (overlapped_ms * 1e6), host_wait_ms, host_fill_ms, kernel_ms);
    std::printf("data_loader: speedup over serial %.3f (ideal %.3f); overlap efficiency %.3f "
                "(1.0 = the shorter of copy and compute fully hidden)\n",
                serial_ms / overlapped_ms, serial_ms / longer, efficiency);
    if (efficiency < 0.5) {
      std::printf("data_loader: note: little overlap; expected near 1.0 on an idle GPU without tools attached%s\n",
                  host_fill_ms > kernel_ms ? " (the host fill was slower than the kernel: the host is the bottleneck)"
                                           : "");
    }
    std::printf("data_loader: %zu of %zu batch checksums wrong: %s\n", wrong, 2 * batches,
                wrong == 0 ? "PASS" : "FAIL");
    return wrong == 0 ? 0 : 1;
  });
}
