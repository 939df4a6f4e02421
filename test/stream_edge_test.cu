// GPU tests of umsync/stream_edge.hpp: typed handoff between streams.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/stream_edge.hpp>

#include <cstdint>
#include <vector>

namespace {
struct producer {};
struct consumer {};
}  // namespace

TEST_CASE("transfer orders a consumer after a slow producer and rebinds the buffer")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 21;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  std::uint32_t const key = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> output(n, 0);
  {
    umsync::stream<producer> const ps;
    umsync::stream<consumer> const cs;
    umsync::stream_edge forward(ps, cs);
    umsync::stream_buffer<std::uint32_t, producer> in(n, ps);
    umsync::stream_buffer<std::uint32_t, producer> mid(n, ps);
    umsync::stream_buffer<std::uint32_t, consumer> out(n, cs);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(mid.data(), 0xA5, mid.size_bytes(), ps.view()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0x5A, out.size_bytes(), cs.view()));
    umsync::copy_sync_pageable(in, input, ps);
    umsync::launch(ps, {.grid = 264, .block = 256}, umsync_test::delayed_affine, in, mid, n,
                   std::uint64_t{20'000'000});  // 20 ms late
    auto mid_on_consumer = forward.transfer(std::move(mid));
    CHECK(mid.data() == nullptr);  // NOLINT(bugprone-use-after-move)
    CHECK(mid_on_consumer.stream() == cs.view());
    umsync::launch(cs, {.grid = 264, .block = 256}, umsync_test::xor_with, mid_on_consumer, out, n, key);
    umsync::copy_sync_pageable(output, out, cs);
  }  // mid_on_consumer is freed on the consumer stream, after its last use there
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != ((3U * input[i] + 1U) ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("pool memory freed on one stream and reused on another after an edge stays correct")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  umsync::memory_pool pool;
  umsync::stream<producer> const ps;
  umsync::stream<consumer> const cs;
  std::size_t const n = std::size_t{1} << 18;
  std::vector<std::uint32_t> output(n);
  for (int round = 0; round < 8; ++round) {
    std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
    std::uint32_t const key = static_cast<std::uint32_t>(rng());
    {
      umsync::stream_buffer<std::uint32_t, producer> a(n, ps, pool);
      umsync::stream_buffer<std::uint32_t, producer> b(n, ps, pool);
      umsync::copy_sync_pageable(a, input, ps);
      umsync::launch(ps, {.grid = 132, .block = 256}, umsync_test::delayed_affine, a, b, n, std::uint64_t{2'000'000});
      umsync::stream_edge edge(ps, cs);
      auto b_on_consumer = edge.transfer(std::move(b));
      umsync::stream_buffer<std::uint32_t, consumer> c(n, cs, pool);  // may reuse memory the producer freed
      umsync::launch(cs, {.grid = 132, .block = 256}, umsync_test::xor_with, b_on_consumer, c, n, key);
      umsync::copy_sync_pageable(output, c, cs);
    }
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      wrong += output[i] != ((3U * input[i] + 1U) ^ key) ? 1 : 0;
    }
    CHECK(wrong == 0);
  }
  ps.synchronize();
  cs.synchronize();
  CHECK(pool.ref().used_bytes() == 0);  // every buffer was freed back into the pool
}

TEST_CASE("fan-out to two reader streams and fan-in back before the owner frees")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  struct reader_a {};
  struct reader_b {};
  std::size_t const n = std::size_t{1} << 20;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  std::uint32_t const key_a = static_cast<std::uint32_t>(rng());
  std::uint32_t const key_b = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> out_a(n, 0);
  std::vector<std::uint32_t> out_b(n, 0);
  {
    umsync::stream<producer> const owner;
    umsync::stream<reader_a> const sa;
    umsync::stream<reader_b> const sb;
    umsync::stream_buffer<std::uint32_t, producer> source(n, owner);
    umsync::stream_buffer<std::uint32_t, producer> staged(n, owner);
    umsync::stream_buffer<std::uint32_t, reader_a> result_a(n, sa);
    umsync::stream_buffer<std::uint32_t, reader_b> result_b(n, sb);
    umsync::copy_sync_pageable(source, input, owner);
    umsync::launch(owner, {.grid = 264, .block = 256}, umsync_test::delayed_affine, source, staged, n,
                   std::uint64_t{10'000'000});  // 10 ms late
    umsync::stream_edge to_a(owner, sa);
    umsync::stream_edge to_b(owner, sb);
    auto const view_a = to_a.share(staged);
    auto const view_b = to_b.share(staged);
    umsync::launch(sa, {.grid = 264, .block = 256}, umsync_test::xor_with, view_a, result_a, n, key_a);
    umsync::launch(sb, {.grid = 264, .block = 256}, umsync_test::xor_with, view_b, result_b, n, key_b);
    umsync::stream_edge(sa, owner).edge();  // fan-in before `staged` is freed on owner
    umsync::stream_edge(sb, owner).edge();
    umsync::copy_sync_pageable(out_a, result_a, sa);
    umsync::copy_sync_pageable(out_b, result_b, sb);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t const staged_value = 3U * input[i] + 1U;
    wrong += out_a[i] != (staged_value ^ key_a) ? 1 : 0;
    wrong += out_b[i] != (staged_value ^ key_b) ? 1 : 0;
  }
  CHECK(wrong == 0);
}
