// Overlapped gradient all-reduce in a backward-like loop, on every visible GPU (one process,
// ncclCommInitAll; one GPU is a one-rank communicator). Each gradient bucket is made on the
// compute stream, crosses to the communication stream by a typed edge, is all-reduced there
// while the next bucket is computed, and crosses back before the optimizer reads it. The same
// loop with the all-reduce on the compute stream (serial) is timed for comparison. Checks
// the parameters against a host reference; exits non-zero on a wrong result or without a GPU.
#include "support/example_main.hpp"

#include <umsync/device.hpp>
#include <umsync/launch.hpp>
#include <umsync/library_call.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/nccl.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

namespace {

struct compute {};
struct comm {};

constexpr std::size_t bucket_elements = std::size_t{4} << 20;  // 16 MiB of floats
constexpr std::uint32_t bucket_count = 8;
constexpr std::uint32_t steps = 3;
constexpr int backward_passes = 64;  // FMA passes per element: the backward pass's compute
constexpr umsync::launch_config grid{.grid = 528, .block = 256};

/// A gradient that is an exact small integer in float, so sums over ranks and steps are exact.
__host__ __device__ inline float gradient(std::size_t i, std::uint32_t bucket, std::uint32_t rank, std::uint32_t step)
{
  return static_cast<float>((i + 31U * bucket + 7U * rank + step) % 1024U);
}

/// The backward pass of one bucket: `passes` FMAs per element that leave the value unchanged
/// (one and zero are kernel arguments, so the compiler cannot drop them).
__global__ void backward(float* grads, std::size_t n, std::uint32_t bucket, std::uint32_t rank, std::uint32_t step,
                         int passes, float one, float zero)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    float g = gradient(i, bucket, rank, step);
    for (int k = 0; k < passes; ++k) {
      g = fmaf(g, one, zero);
    }
    grads[i] = g;
  }
}

/// The optimizer step: accumulates the reduced gradient into the parameters.
__global__ void optimizer(float* params, float const* reduced, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    params[i] += reduced[i];
  }
}

/// One GPU's streams, pool, edges and parameters.
struct rank_state {
  explicit rank_state(int d) : device(d), pool({.device = d})
  {
    for (std::uint32_t b = 0; b < bucket_count; ++b) {
      params.emplace_back(bucket_elements, cs, pool);
    }
  }
  int device;
  umsync::memory_pool pool;
  umsync::stream<compute> cs;
  umsync::stream<comm> ns;
  umsync::stream_edge<compute, comm> to_comm{cs, ns};
  umsync::stream_edge<comm, compute> to_compute{ns, cs};
  std::vector<umsync::stream_buffer<float, compute>> params;
};

void on_device(int device) { UMSYNC_CUDA_CHECK(cudaSetDevice(device)); }

void zero_params(std::vector<std::unique_ptr<rank_state>>& ranks)
{
  for (auto& rank : ranks) {
    on_device(rank->device);
    for (auto& p : rank->params) {
      UMSYNC_CUDA_CHECK(umsync::library_call(
          rank->cs,
          [](cudaStream_t raw, float* memory, std::size_t bytes) { return cudaMemsetAsync(memory, 0, bytes, raw); }, p,
          p.size_bytes()));
    }
  }
}

/// The all-reduce on the compute stream, after each bucket's backward pass.
void serial_step(std::vector<std::unique_ptr<rank_state>>& ranks, std::vector<umsync::nccl::communicator> const& comms,
                 std::uint32_t step)
{
  auto const rank_count = static_cast<std::uint32_t>(ranks.size());
  for (std::uint32_t b = 0; b < bucket_count; ++b) {
    std::vector<umsync::stream_buffer<float, compute>> grads;
    std::vector<umsync::stream_buffer<float, compute>> reduced;
    for (std::uint32_t r = 0; r < rank_count; ++r) {
      auto& rank = *ranks[r];
      on_device(rank.device);
      auto& g = grads.emplace_back(bucket_elements, rank.cs, rank.pool);
      umsync::launch(rank.cs, grid, backward, g, bucket_elements, b, r, step, backward_passes, 1.0F, 0.0F);
      reduced.emplace_back(bucket_elements, rank.cs, rank.pool);
    }
    umsync::nccl::group group;
    for (std::uint32_t r = 0; r < rank_count; ++r) {
      umsync::nccl::all_reduce(grads[r], reduced[r], umsync::nccl::reduction::sum, comms[r], ranks[r]->cs);
    }
    group.end();
    for (std::uint32_t r = 0; r < rank_count; ++r) {
      on_device(ranks[r]->device);
      umsync::launch(ranks[r]->cs, grid, optimizer, ranks[r]->params[b], reduced[r], bucket_elements);
    }
  }  // buffers freed on the compute stream, after the optimizer
}

/// The all-reduce on the communication stream, overlapped with the next buckets' backward pass.
void overlapped_step(std::vector<std::unique_ptr<rank_state>>& ranks,
                     std::vector<umsync::nccl::communicator> const& comms, std::uint32_t step)
{
  auto const rank_count = static_cast<std::uint32_t>(ranks.size());
  struct in_flight {
    umsync::stream_buffer<float, comm> grads;
    umsync::stream_buffer<float, comm> reduced;
  };
  std::vector<std::vector<in_flight>> buckets(rank_count);
  for (std::uint32_t b = 0; b < bucket_count; ++b) {
    for (std::uint32_t r = 0; r < rank_count; ++r) {
      auto& rank = *ranks[r];
      on_device(rank.device);
      umsync::stream_buffer<float, compute> g(bucket_elements, rank.cs, rank.pool);
      umsync::launch(rank.cs, grid, backward, g, bucket_elements, b, r, step, backward_passes, 1.0F, 0.0F);
      buckets[r].push_back({rank.to_comm.transfer(std::move(g)),  // event on compute, comm waits
                            umsync::stream_buffer<float, comm>(bucket_elements, rank.ns, rank.pool)});
    }
    umsync::nccl::group group;
    for (std::uint32_t r = 0; r < rank_count; ++r) {
      auto& bucket = buckets[r].back();
      umsync::nccl::all_reduce(bucket.grads, bucket.reduced, umsync::nccl::reduction::sum, comms[r], ranks[r]->ns);
    }
    group.end();
  }
  for (std::uint32_t r = 0; r < rank_count; ++r) {
    auto& rank = *ranks[r];
    on_device(rank.device);
    for (std::uint32_t b = 0; b < bucket_count; ++b) {
      auto& bucket = buckets[r][b];
      auto reduced = rank.to_compute.transfer(std::move(bucket.reduced));  // event on comm, compute waits
      auto grads = rank.to_compute.transfer(std::move(bucket.grads));      // freed on compute, its last user
      umsync::launch(rank.cs, grid, optimizer, rank.params[b], reduced, bucket_elements);
    }
  }
}

void synchronize_all(std::vector<std::unique_ptr<rank_state>>& ranks)
{
  for (auto& rank : ranks) {
    on_device(rank->device);
    rank->cs.synchronize();
    rank->ns.synchronize();
  }
}

/// Wrong parameters over all ranks and buckets, against the host reference.
std::size_t count_wrong(std::vector<std::unique_ptr<rank_state>>& ranks)
{
  auto const rank_count = static_cast<std::uint32_t>(ranks.size());
  std::size_t wrong = 0;
  std::vector<float> host(bucket_elements);
  for (auto& rank : ranks) {
    on_device(rank->device);
    for (std::uint32_t b = 0; b < bucket_count; ++b) {
      umsync::copy_sync_pageable(host, rank->params[b], rank->cs);
      for (std::size_t i = 0; i < bucket_elements; ++i) {
        float want = 0.0F;
        for (std::uint32_t s = 0; s < steps; ++s) {
          for (std::uint32_t r = 0; r < rank_count; ++r) {
            want += gradient(i, b, r, s);
          }
        }
        wrong += host[i] != want ? 1 : 0;
      }
    }
  }
  return wrong;
}

template <class Step>
double run(std::vector<std::unique_ptr<rank_state>>& ranks, std::vector<umsync::nccl::communicator> const& comms,
           Step step)
{
  zero_params(ranks);
  synchronize_all(ranks);
  auto const start = std::chrono::steady_clock::now();
  for (std::uint32_t s = 0; s < steps; ++s) {
    step(ranks, comms, s);
  }
  synchronize_all(ranks);
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main()
{
  return umsync_example::run("overlapped_allreduce", [&](umsync::device_probe const& probe) {
    std::vector<umsync::nccl::communicator> comms = umsync::nccl::communicator::init_all();
    std::vector<std::unique_ptr<rank_state>> ranks;
    for (int d = 0; d < probe.count; ++d) {
      on_device(d);
      ranks.push_back(std::make_unique<rank_state>(d));
    }
    // Warm-up: pools reserve their memory, NCCL sets up its channels.
    static_cast<void>(run(ranks, comms, overlapped_step));
    static_cast<void>(run(ranks, comms, serial_step));

    double const serial_ms = run(ranks, comms, serial_step);
    std::size_t const serial_wrong = count_wrong(ranks);
    double const overlapped_ms = run(ranks, comms, overlapped_step);
    std::size_t const overlapped_wrong = count_wrong(ranks);
    for (auto const& c : comms) {
      c.check_async_error();
    }
    std::printf("overlapped_allreduce: %d GPU(s), %u buckets of %zu MiB, %u steps: serial %.3f ms, overlapped %.3f ms "
                "(%.2fx); wrong parameters: %zu serial, %zu overlapped\n",
                probe.count, bucket_count, bucket_elements * sizeof(float) >> 20, steps, serial_ms, overlapped_ms,
                serial_ms / overlapped_ms, serial_wrong, overlapped_wrong);
    ranks.clear();
    on_device(0);
    return serial_wrong == 0 && overlapped_wrong == 0 ? 0 : 1;
  });
}
