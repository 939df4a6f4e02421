// GPU tests of sync/pipeline.hpp: a warp-specialized copy-transform kernel over 1, 2 and 4
// stages. Warp 0's lane 0 produces (acquire, bulk copy fill), warps 1..4 consume: each waits for
// a stage, transforms it into an output tile, releases the stage, and the output tile goes to
// global memory by bulk store, handed over and taken back through a named barrier of the consumer
// warps (barrier_plan). Random inputs, poisoned outputs, exact results, memory back to baseline.
#include "support/device_trap.hpp"
#include "support/device_words.hpp"
#include "support/gpu_test.hpp"

#include <umsync/sync/barrier_plan.hpp>
#include <umsync/sync/pipeline.hpp>

#include <cstdint>
#include <vector>

namespace {

constexpr unsigned tile_words = 2048;  // 8 KiB a stage
constexpr unsigned threads = 160;      // warp 0 produces, warps 1..4 consume
constexpr umsync::warp_mask_t producer_warps = 0x1;
constexpr umsync::warp_mask_t consumer_warps = 0x1E;
constexpr unsigned consumer_threads = 128;
using plan = umsync::barrier_plan<threads, umsync::barrier_spec<1, consumer_warps>>;

__host__ __device__ constexpr std::uint32_t transform(std::uint32_t x, std::uint32_t k) { return x * 2654435761U + k; }

// Block b handles tiles b, b + gridDim.x, ...: out[t][i] = transform(in[t][i], t).
template <std::size_t Stages>
__global__ void __launch_bounds__(threads)
    pipelined_transform(std::uint32_t const* in, std::uint32_t* out, unsigned tiles)
{
  __shared__ umsync::pipeline_storage<std::uint32_t, tile_words, Stages> storage;
  __shared__ umsync::shared_tile<std::uint32_t, tile_words> result;
  auto [pipe, phases] = umsync::init_pipeline<producer_warps, consumer_warps>(storage).publish();
  if (threadIdx.x < 32) {
    if (threadIdx.x == 0) {
      auto producer = pipe.producer(std::move(phases));
      unsigned j = 0;
      for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x, ++j) {
        producer.acquire(j % Stages).fill(in + std::size_t(t) * tile_words);
      }
    }
    return;
  }
  constexpr auto consumers = plan::barrier<0>();
  auto consumer = pipe.consumer(std::move(phases));
  unsigned const thread = threadIdx.x - 32U;
  bool const issuer = thread == 0;
  auto writable = result.first_use();
  unsigned j = 0;
  for (unsigned t = blockIdx.x; t < tiles; t += gridDim.x, ++j) {
    auto stage = consumer.wait(j % Stages);
    auto data = std::move(writable).write();
    for (unsigned i = thread; i < tile_words; i += consumer_threads) {
      data[i] = transform(stage[i], t);
    }
    std::move(stage).release();
    auto token = umsync::bulk_store(out + std::size_t(t) * tile_words, std::move(data).publish_to_async(consumers),
                                    issuer);
    writable = std::move(token).wait(consumers);
  }
}

using umsync_test::device_words;

template <std::size_t Stages>
void check_pipelined_transform()
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  constexpr unsigned blocks = 132;
  // One tile (the producer never waits), fewer tiles than blocks, and 9 rounds of every stage.
  for (unsigned const tiles : {1U, 7U, 132U * 9U}) {
    CAPTURE(tiles);
    device_words in(std::size_t(tiles) * tile_words);
    device_words out(std::size_t(tiles) * tile_words);
    for (int launch = 0; launch < 3; ++launch) {
      std::vector<std::uint32_t> const input = umsync_test::random_words(rng, std::size_t(tiles) * tile_words);
      in.upload(input);
      out.poison();
      pipelined_transform<Stages><<<blocks, threads>>>(in.get(), out.get(), tiles);
      umsync_test::check_launch("pipelined_transform");
      UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
      std::vector<std::uint32_t> const got = out.download();
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        wrong += got[i] == transform(input[i], static_cast<std::uint32_t>(i / tile_words)) ? 0U : 1U;
      }
      CHECK(wrong == 0);
    }
  }
}

}  // namespace

TEST_CASE("a warp-specialized pipeline of 1, 2 and 4 stages on transaction barriers transforms random data exactly")
{
  if (!umsync_test::device_is_sm90()) {
    MESSAGE("bulk copies need compute capability 9.0 or newer");
    return;
  }
  SUBCASE("1 stage") { check_pipelined_transform<1>(); }
  SUBCASE("2 stages") { check_pipelined_transform<2>(); }
  SUBCASE("4 stages") { check_pipelined_transform<4>(); }
}
