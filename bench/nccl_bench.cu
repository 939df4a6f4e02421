// Family F: overlapped gradient all-reduce (NCCL), one GPU as a one-rank communicator.
// A backward-like loop: per bucket (1 to 256 MiB; at least 4 buckets, 512 MiB of gradients
// in all) a compute kernel makes the gradients on the compute stream and an out-of-place
// ncclAllReduce reduces them on the communication stream while the next bucket is computed;
// the optimizer reads each reduced bucket on the compute stream afterwards.
//   nccl_overlap_typed_vs_raw: the loop with raw CUDA events, cudaMallocFromPoolAsync and
//     ncclAllReduce against the typed loop (stream_buffer, stream_edge::transfer,
//     umsync::nccl::all_reduce), side by side in every iteration; ratio = typed / raw.
//   nccl_overlap_efficiency: the typed loop with the all-reduce on the compute stream (serial)
//     against the overlapped loop, with compute alone and communication alone for reference;
//     overlap_efficiency = (serial - overlapped) / min(compute, comm): the share of the shorter
//     phase hidden behind the other (1 is perfect overlap, 0 none).
// Event-timed on the compute stream after a blocking kernel (timing.cuh).
#include "support/timing.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/nccl/collectives.hpp>
#include <umsync/nccl/communicator.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>

#include <algorithm>
#include <cstddef>
#include <vector>

namespace {

struct compute {};
struct comm {};

constexpr std::size_t mib = std::size_t{1} << 20;
constexpr std::size_t gradient_bytes = 512 * mib;
constexpr int backward_passes = 64;
constexpr umsync::launch_config grid{.grid = 528, .block = 256};

__global__ void backward(float* grads, std::size_t n, int passes, float one, float zero)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    float g = static_cast<float>(i & 1023U);
    for (int k = 0; k < passes; ++k) {
      g = fmaf(g, one, zero);
    }
    grads[i] = g;
  }
}

__global__ void optimizer(float* params, float const* reduced, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    params[i] += reduced[i];
  }
}

/// One rank's communicator, streams, pool and edges; bucket of `bucket_bytes`.
struct loop_fixture {
  explicit loop_fixture(std::size_t bucket_bytes)
      : elements(bucket_bytes / sizeof(float)),
        buckets(std::max<std::size_t>(4, gradient_bytes / bucket_bytes)),
        comms(make_comms()),
        params(elements, cs, pool)
  {
    UMSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&raw_to_comm, cudaEventDisableTiming));
    UMSYNC_CUDA_CHECK(cudaEventCreateWithFlags(&raw_to_compute, cudaEventDisableTiming));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(params.data(), 0, params.size_bytes(), cs.get()));
    cs.synchronize();
  }
  loop_fixture(loop_fixture const&) = delete;
  loop_fixture& operator=(loop_fixture const&) = delete;
  ~loop_fixture()
  {
    static_cast<void>(cudaEventDestroy(raw_to_comm));
    static_cast<void>(cudaEventDestroy(raw_to_compute));
  }

  static std::vector<umsync::nccl::communicator> make_comms()
  {
    int const devices[] = {umsync::current_device()};
    return umsync::nccl::communicator::init_all(devices);
  }

  /// Raw CUDA and NCCL: the loop as one writes it by hand.
  void raw_overlapped()
  {
    std::vector<void*> grads(buckets, nullptr);
    std::vector<void*> reduced(buckets, nullptr);
    std::size_t const bytes = elements * sizeof(float);
    for (std::size_t b = 0; b < buckets; ++b) {
      UMSYNC_CUDA_CHECK(cudaMallocFromPoolAsync(&grads[b], bytes, pool.get(), cs.get()));
      backward<<<grid.grid, grid.block, 0, cs.get()>>>(static_cast<float*>(grads[b]), elements, backward_passes, 1.0F,
                                                       0.0F);
      UMSYNC_CUDA_CHECK(cudaGetLastError());
      UMSYNC_CUDA_CHECK(cudaEventRecord(raw_to_comm, cs.get()));
      UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(ns.get(), raw_to_comm, 0));
      UMSYNC_CUDA_CHECK(cudaMallocFromPoolAsync(&reduced[b], bytes, pool.get(), ns.get()));
      umsync::nccl::check(ncclAllReduce(grads[b], reduced[b], elements, ncclFloat32, ncclSum, comms[0].get(), ns.get()),
                          "ncclAllReduce");
    }
    for (std::size_t b = 0; b < buckets; ++b) {
      // One edge per buffer, as the typed loop's transfers make.
      UMSYNC_CUDA_CHECK(cudaEventRecord(raw_to_compute, ns.get()));
      UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(cs.get(), raw_to_compute, 0));
      UMSYNC_CUDA_CHECK(cudaEventRecord(raw_to_compute, ns.get()));
      UMSYNC_CUDA_CHECK(cudaStreamWaitEvent(cs.get(), raw_to_compute, 0));
      optimizer<<<grid.grid, grid.block, 0, cs.get()>>>(params.data(), static_cast<float const*>(reduced[b]), elements);
      UMSYNC_CUDA_CHECK(cudaGetLastError());
      UMSYNC_CUDA_CHECK(cudaFreeAsync(grads[b], cs.get()));
      UMSYNC_CUDA_CHECK(cudaFreeAsync(reduced[b], cs.get()));
    }
  }

  /// The typed loop: buckets cross by transfer and are freed on the stream that used them last.
  void typed_overlapped()
  {
    struct in_flight {
      umsync::stream_buffer<float, comm> grads;
      umsync::stream_buffer<float, comm> reduced;
    };
    std::vector<in_flight> flight;
    flight.reserve(buckets);
    for (std::size_t b = 0; b < buckets; ++b) {
      umsync::stream_buffer<float, compute> g(elements, cs, pool);
      umsync::launch(cs, grid, backward, g, elements, backward_passes, 1.0F, 0.0F);
      auto& bucket = flight.emplace_back(in_flight{to_comm.transfer(std::move(g)),
                                                   umsync::stream_buffer<float, comm>(elements, ns, pool)});
      umsync::nccl::all_reduce(bucket.grads, bucket.reduced, umsync::nccl::reduction::sum, comms[0], ns);
    }
    for (auto& bucket : flight) {
      auto grads = to_compute.transfer(std::move(bucket.grads));
      auto reduced = to_compute.transfer(std::move(bucket.reduced));
      umsync::launch(cs, grid, optimizer, params, reduced, elements);
    }
  }

  /// The typed loop with the all-reduce on the compute stream: nothing overlaps.
  void typed_serial()
  {
    for (std::size_t b = 0; b < buckets; ++b) {
      umsync::stream_buffer<float, compute> g(elements, cs, pool);
      umsync::launch(cs, grid, backward, g, elements, backward_passes, 1.0F, 0.0F);
      umsync::stream_buffer<float, compute> reduced(elements, cs, pool);
      umsync::nccl::all_reduce(g, reduced, umsync::nccl::reduction::sum, comms[0], cs);
      umsync::launch(cs, grid, optimizer, params, reduced, elements);
    }
  }

  /// Compute alone: the backward and optimizer kernels of the loop.
  void compute_only(umsync::stream_buffer<float, compute>& scratch)
  {
    for (std::size_t b = 0; b < buckets; ++b) {
      umsync::launch(cs, grid, backward, scratch, elements, backward_passes, 1.0F, 0.0F);
      umsync::launch(cs, grid, optimizer, params, scratch, elements);
    }
  }

  /// Communication alone: the loop's all-reduces, on the compute stream (timed there).
  void comm_only(umsync::stream_buffer<float, compute>& send, umsync::stream_buffer<float, compute>& receive)
  {
    for (std::size_t b = 0; b < buckets; ++b) {
      umsync::nccl::all_reduce(send, receive, umsync::nccl::reduction::sum, comms[0], cs);
    }
  }

  std::size_t elements;
  std::size_t buckets;
  std::vector<umsync::nccl::communicator> comms;
  umsync::memory_pool pool;
  umsync::stream<compute> cs;
  umsync::stream<comm> ns;
  umsync::stream_edge<compute, comm> to_comm{cs, ns};
  umsync::stream_edge<comm, compute> to_compute{ns, cs};
  umsync::stream_buffer<float, compute> params;
  cudaEvent_t raw_to_comm = nullptr;
  cudaEvent_t raw_to_compute = nullptr;
};

void nccl_overlap_typed_vs_raw(benchmark::State& state)
{
  loop_fixture loop(static_cast<std::size_t>(state.range(0)) * mib);
  loop.typed_overlapped();  // warm-up: the pool reserves, NCCL sets up
  loop.raw_overlapped();
  loop.cs.synchronize();
  umsync_bench::side_by_side compare(state);
  for (auto _ : state) {
    compare.iteration(
        [&] { return umsync_bench::time_on_device(loop.cs.get(), [&](cudaStream_t) { loop.raw_overlapped(); }); },
        [&] { return umsync_bench::time_on_device(loop.cs.get(), [&](cudaStream_t) { loop.typed_overlapped(); }); });
  }
  compare.report(1);  // per backward step
  state.counters["buckets"] = static_cast<double>(loop.buckets);
  loop.comms[0].check_async_error();
}

void nccl_overlap_efficiency(benchmark::State& state)
{
  loop_fixture loop(static_cast<std::size_t>(state.range(0)) * mib);
  umsync::stream_buffer<float, compute> scratch(loop.elements, loop.cs, loop.pool);
  umsync::stream_buffer<float, compute> receive(loop.elements, loop.cs, loop.pool);
  loop.typed_overlapped();  // warm-up
  loop.typed_serial();
  loop.cs.synchronize();
  double serial = 0;
  double overlapped = 0;
  double compute_alone = 0;
  double comm_alone = 0;
  for (auto _ : state) {
    double const s = umsync_bench::time_on_device(loop.cs.get(), [&](cudaStream_t) { loop.typed_serial(); });
    double const o = umsync_bench::time_on_device(loop.cs.get(), [&](cudaStream_t) { loop.typed_overlapped(); });
    compute_alone += umsync_bench::time_on_device(loop.cs.get(), [&](cudaStream_t) { loop.compute_only(scratch); });
    comm_alone += umsync_bench::time_on_device(loop.cs.get(), [&](cudaStream_t) { loop.comm_only(scratch, receive); });
    serial += s;
    overlapped += o;
    state.SetIterationTime(o);
  }
  auto const n = static_cast<double>(state.iterations());
  if (n > 0) {
    state.counters["serial_ms"] = serial / n * 1e3;
    state.counters["overlapped_ms"] = overlapped / n * 1e3;
    state.counters["compute_ms"] = compute_alone / n * 1e3;
    state.counters["comm_ms"] = comm_alone / n * 1e3;
    state.counters["speedup"] = serial / overlapped;
    state.counters["overlap_efficiency"] = (serial - overlapped) / std::min(compute_alone, comm_alone);
    state.counters["buckets"] = static_cast<double>(loop.buckets);
  }
  loop.comms[0].check_async_error();
}

}  // namespace

// Bucket size in MiB.
BENCHMARK(nccl_overlap_typed_vs_raw)->RangeMultiplier(4)->Range(1, 256)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(nccl_overlap_efficiency)->RangeMultiplier(4)->Range(1, 256)->UseManualTime()->Unit(benchmark::kMillisecond);
