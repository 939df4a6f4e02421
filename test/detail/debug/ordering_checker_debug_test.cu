// GPU tests of the UMSYNC_DEBUG ordering checker through umsync's types: it catches what the
// types cannot see (two streams with the same tag, untagged memory shared between streams),
// without needing the race to show up on the GPU.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/umsync.hpp>

#include <cstdint>
#include <source_location>
#include <string>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct compute {};
}  // namespace

TEST_CASE("two streams that share a tag: a use without an edge throws ordering_error naming both sites")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<compute> const first;
  umsync::stream<compute> const second;  // same tag: the types allow it, the checker does not
  std::size_t const n = 1 << 16;
  {
    umsync::stream_buffer<std::uint32_t, compute> in(n, first);
    umsync::stream_buffer<std::uint32_t, compute> out(n, first);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(in.data(), 1, in.size_bytes(), first.view()));
    umsync::launch(first, {.grid = 64, .block = 256}, umsync_test::xor_with, in, out, n, 7U);
    unsigned const line = std::source_location::current().line() + 2;
    try {
      umsync::launch(second, {.grid = 64, .block = 256}, umsync_test::xor_with, out, in, n, 7U);
      FAIL("no ordering_error");
    } catch (umsync::ordering_error const& e) {
      MESSAGE(e.what());
      CHECK(e.earlier().stream == static_cast<void const*>(first.get()));
      CHECK(e.later().stream == static_cast<void const*>(second.get()));
      CHECK(e.later().where.line() == line);
    }
    // With the edge the same launch is accepted.
    umsync::stream_edge edge(first.view(), second.view());
    edge.edge();
    CHECK_NOTHROW(umsync::launch(second, {.grid = 64, .block = 256}, umsync_test::xor_with, out, in, n, 7U));
    // Hand the buffers back before they are freed on `first`.
    umsync::stream_edge back(second.view(), first.view());
    back.edge();
  }
  first.synchronize();
  second.synchronize();
}

TEST_CASE("untagged memory on two untagged streams is checked too; host synchronization orders it")
{
  umsync_test::memory_baseline const baseline;
  umsync::stream<> const a;
  umsync::stream<> const b;
  std::uint32_t* raw = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&raw, 1024 * sizeof(std::uint32_t)));
  auto const span = umsync::device_span<std::uint32_t>::adopt(raw, 1024);
  umsync::pinned_buffer<std::uint32_t> host(1024);
  umsync::copy_async(span, host, a);
  CHECK_THROWS_AS(umsync::copy_async(host, span, b), umsync::ordering_error);
  a.synchronize();  // the host waited for a: what it issues next is ordered after
  CHECK_NOTHROW(umsync::copy_async(host, span, b));
  b.synchronize();
  UMSYNC_CUDA_CHECK(cudaFree(raw));
}

TEST_CASE("fan-out without fan-in: writing the shared buffer again on the owner is reported")
{
  umsync_test::memory_baseline const baseline;
  struct owner_tag {};
  struct reader_tag {};
  umsync::stream<owner_tag> const owner;
  umsync::stream<reader_tag> const reader;
  std::size_t const n = 4096;
  {
    umsync::stream_buffer<std::uint32_t, owner_tag> shared(n, owner);
    umsync::stream_buffer<std::uint32_t, owner_tag> other(n, owner);
    umsync::stream_buffer<std::uint32_t, reader_tag> result(n, reader);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(shared.data(), 3, shared.size_bytes(), owner.view()));
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(other.data(), 4, other.size_bytes(), owner.view()));
    umsync::stream_edge lend(owner, reader);
    auto const view = lend.share(shared);
    umsync::launch(reader, {.grid = 16, .block = 256}, umsync_test::xor_with, view, result, n, 1U);
    // No join: the owner overwriting its buffer races with the reader.
    CHECK_THROWS_AS(umsync::launch(owner, {.grid = 16, .block = 256}, umsync_test::xor_with, other, shared, n, 2U),
                    umsync::ordering_error);
    umsync::stream_edge(reader, owner).edge();  // the join makes the same write legal
    CHECK_NOTHROW(umsync::launch(owner, {.grid = 16, .block = 256}, umsync_test::xor_with, other, shared, n, 2U));
    reader.synchronize();
  }
  owner.synchronize();
}

TEST_CASE("a raw pointer from data() on another stream without an edge throws ordering_error; an edge fixes it")
{
  umsync_test::memory_baseline const baseline;
  struct owner_tag {};
  struct other_tag {};
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  std::uint32_t const first_key = static_cast<std::uint32_t>(rng());
  std::uint32_t const second_key = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> output(n, 0);
  std::vector<std::uint32_t> before(n, 0);
  umsync::stream<owner_tag> const s1;
  umsync::stream<other_tag> const s2;
  {
    umsync::stream_buffer<std::uint32_t, owner_tag> source(n, s1);
    umsync::stream_buffer<std::uint32_t, owner_tag> a(n, s1);
    umsync::stream_buffer<std::uint32_t, other_tag> b(n, s2);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(b.data(), 0xFF, b.size_bytes(), s2.view()));  // poison
    umsync::copy_sync_pageable(source, input, s1);
    unsigned const write_line = std::source_location::current().line() + 1;
    umsync::launch(s1, {.grid = 64, .block = 256}, umsync_test::xor_with, source, a, n, first_key);
    std::uint32_t const* const raw = a.data();  // the buffer's binding to s1 is lost here
    unsigned const line = std::source_location::current().line() + 2;
    try {
      umsync::launch(s2, {.grid = 64, .block = 256}, umsync_test::xor_with, raw, b, n, second_key);
      FAIL("no ordering_error");
    } catch (umsync::ordering_error const& e) {
      MESSAGE(std::string(e.what()));
      CHECK(e.earlier().stream == static_cast<void const*>(s1.get()));
      CHECK(std::string_view(e.earlier().operation) == "write");
      CHECK(e.earlier().where.line() == write_line);
      CHECK(e.later().stream == static_cast<void const*>(s2.get()));
      CHECK(std::string_view(e.later().operation) == "read");
      CHECK(e.later().where.line() == line);
    }
    // A pointer into the middle of the buffer is the same allocation.
    CHECK_THROWS_AS(umsync::launch(s2, {.grid = 64, .block = 256}, umsync_test::xor_with, raw + n / 2, b, n / 2,
                                   second_key),
                    umsync::ordering_error);
    umsync::copy_sync_pageable(before, b, s2);  // nothing refused ran: b is still poisoned
    // With an event edge the same launch is accepted.
    umsync::event written;
    written.record(s1);
    s2.wait(written);
    CHECK_NOTHROW(umsync::launch(s2, {.grid = 64, .block = 256}, umsync_test::xor_with, raw, b, n, second_key));
    umsync::copy_sync_pageable(output, b, s2);
    umsync::event read;  // a is freed on s1: after s2's read
    read.record(s2);
    s1.wait(read);
  }
  s1.synchronize();
  s2.synchronize();
  std::size_t poisoned = 0;
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    poisoned += before[i] == 0xFFFFFFFFU ? 1 : 0;
    wrong += output[i] != (input[i] ^ first_key ^ second_key) ? 1 : 0;
  }
  CHECK(poisoned == n);
  CHECK(wrong == 0);
}

TEST_CASE("raw pointers umsync did not allocate pass unchecked; spans of one buffer conflict only where they overlap")
{
  umsync_test::memory_baseline const baseline;
  struct owner_tag {};
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  std::size_t const half = n / 2;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  std::uint32_t const first_key = static_cast<std::uint32_t>(rng());
  std::uint32_t const second_key = static_cast<std::uint32_t>(rng());
  std::uint32_t const third_key = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> halves(n, 0);
  std::vector<std::uint32_t> whole(n, 0);
  std::vector<std::uint32_t> untracked_copy(n, 0);
  umsync::stream<owner_tag> const s1;
  umsync::stream<> const s2;
  {
    umsync::pinned_buffer<std::uint32_t> host(n);
    for (std::size_t i = 0; i < n; ++i) {
      host[i] = input[i];
    }
    umsync::stream_buffer<std::uint32_t, owner_tag> a(n, s1);
    umsync::stream_buffer<std::uint32_t> result(n, s2);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(result.data(), 0xFF, result.size_bytes(), s2.view()));
    umsync::event allocated;  // a's allocation (a write on s1) happens before s2 touches it
    allocated.record(s1);
    s2.wait(allocated);
    // Two halves of one buffer, written on two streams at once: disjoint, so not reported.
    auto const first_half = umsync::device_span<std::uint32_t>::adopt(a.data(), half);
    auto const second_half = umsync::device_span<std::uint32_t>::adopt(a.data() + half, n - half);
    umsync::launch(s1, {.grid = 64, .block = 256}, umsync_test::xor_with,
                   umsync::pinned_span<std::uint32_t const>::adopt(host.data(), half), first_half, half, first_key);
    CHECK_NOTHROW(umsync::launch(s2, {.grid = 64, .block = 256}, umsync_test::xor_with,
                                 umsync::pinned_span<std::uint32_t const>::adopt(host.data() + half, n - half),
                                 second_half, n - half, second_key));
    // The whole buffer on s2 overlaps the half s1 wrote: reported until s2 waits for s1.
    auto const all = umsync::device_span<std::uint32_t const>::adopt(a.data(), n);
    CHECK_THROWS_AS(umsync::launch(s2, {.grid = 64, .block = 256}, umsync_test::xor_with, all, result, n, third_key),
                    umsync::ordering_error);
    umsync::event first_written;
    first_written.record(s1);
    s2.wait(first_written);
    umsync::launch(s2, {.grid = 64, .block = 256}, umsync_test::xor_with, all, result, n, third_key);
    umsync::copy_sync_pageable(whole, result, s2);

    // Memory umsync did not allocate: a raw pointer to it is passed on unchecked, whichever
    // stream used it before (here one that synchronized, unseen by the checker).
    std::uint32_t* untracked = nullptr;
    UMSYNC_CUDA_CHECK(cudaMalloc(&untracked, n * sizeof(std::uint32_t)));
    umsync::launch(s1, {.grid = 64, .block = 256}, umsync_test::xor_with, host, untracked, n, first_key);
    UMSYNC_CUDA_CHECK(cudaStreamSynchronize(s1.get()));
    CHECK_NOTHROW(umsync::launch(s2, {.grid = 64, .block = 256}, umsync_test::xor_with,
                                 static_cast<std::uint32_t const*>(untracked), result, n, second_key));
    umsync::copy_sync_pageable(untracked_copy, result, s2);
    UMSYNC_CUDA_CHECK(cudaFree(untracked));

    umsync::event done;  // s1 reads all of a (s2 wrote half of it) and frees it, after s2's work
    done.record(s2);
    s1.wait(done);
    umsync::copy_sync_pageable(halves, a, s1);
  }
  s1.synchronize();
  s2.synchronize();
  std::size_t wrong_halves = 0;
  std::size_t wrong_whole = 0;
  std::size_t wrong_untracked = 0;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t const key = i < half ? first_key : second_key;
    wrong_halves += halves[i] != (input[i] ^ key) ? 1 : 0;
    wrong_whole += whole[i] != (input[i] ^ key ^ third_key) ? 1 : 0;
    wrong_untracked += untracked_copy[i] != (input[i] ^ first_key ^ second_key) ? 1 : 0;
  }
  CHECK(wrong_halves == 0);
  CHECK(wrong_whole == 0);
  CHECK(wrong_untracked == 0);
}

// PyTorch CSAN's whole-device scenarios, with real streams: after a synchronization of the whole
// device, another stream's use of the memory, and a stream created afterwards, are ordered.
TEST_CASE(
    "after umsync::synchronize_device, other streams and streams created later are ordered; raw syncs are not seen")
{
  umsync_test::memory_baseline const baseline;
  auto rng = umsync_test::make_rng();
  std::size_t const n = std::size_t{1} << 16;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  std::uint32_t const key = static_cast<std::uint32_t>(rng());
  std::vector<std::uint32_t> output(n, 0);
  umsync::stream<> const a;
  umsync::stream<> const b;
  {
    umsync::stream_buffer<std::uint32_t> in(n, a);
    umsync::stream_buffer<std::uint32_t> out(n, a);
    umsync::copy_sync_pageable(in, input, a);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, out.size_bytes(), a.view()));  // poison
    umsync::launch(a, {.grid = 64, .block = 256}, umsync_test::xor_with, in, out, n, key);
    // A raw cudaDeviceSynchronize orders the GPU, but the checker cannot see it; it says so.
    UMSYNC_CUDA_CHECK(cudaDeviceSynchronize());
    try {
      umsync::copy_sync_pageable(output, out, b);
      FAIL("no ordering_error");
    } catch (umsync::ordering_error const& e) {
      CHECK(std::string(e.what()).find("umsync::synchronize_device()") != std::string::npos);
    }
    {
      umsync::stream<> const before;  // first seen before the synchronization: not ordered yet
      CHECK_THROWS_AS(umsync::copy_sync_pageable(output, out, before), umsync::ordering_error);
    }
    umsync::synchronize_device();
    CHECK_NOTHROW(umsync::copy_sync_pageable(output, out, b));
    {
      umsync::stream<> const created_after;
      std::vector<std::uint32_t> again(n, 0);
      CHECK_NOTHROW(umsync::copy_sync_pageable(again, out, created_after));
      CHECK(again == output);
    }
    // What is enqueued after the synchronization is not covered by it.
    umsync::launch(a, {.grid = 64, .block = 256}, umsync_test::xor_with, in, out, n, key);
    CHECK_THROWS_AS(umsync::launch(b, {.grid = 64, .block = 256}, umsync_test::xor_with, out, in, n, key),
                    umsync::ordering_error);
    umsync::synchronize_device();
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != (input[i] ^ key) ? 1 : 0;
  }
  CHECK(wrong == 0);
}

TEST_CASE("a successful ready() orders as a synchronize does; a blocking stream's work orders the legacy stream's")
{
  umsync_test::memory_baseline const baseline;
  std::size_t const n = 4096;
  std::vector<std::uint32_t> output(n, 0);
  umsync::stream<> const a;
  umsync::stream<> const b;
  umsync::stream<> const blocking{{.non_blocking = false}};
  {
    umsync::stream_buffer<std::uint32_t> buffer(n, a);
    UMSYNC_CUDA_CHECK(cudaMemsetAsync(buffer.data(), 0x5A, buffer.size_bytes(), a.view()));
    umsync::launch(a, {.grid = 1, .block = 1}, umsync_test::spin_for, std::uint64_t{1'000'000});
    umsync::launch(a, {.grid = 16, .block = 256}, umsync_test::xor_with, buffer, buffer, n, 1U);
    CHECK_THROWS_AS(umsync::copy_sync_pageable(output, buffer, b), umsync::ordering_error);
    while (!a.ready()) {
    }
    CHECK_NOTHROW(umsync::copy_sync_pageable(output, buffer, b));
    // An event's ready() likewise.
    umsync::launch(a, {.grid = 16, .block = 256}, umsync_test::xor_with, buffer, buffer, n, 1U);
    umsync::event done;
    done.record(a);
    while (!done.ready()) {
    }
    CHECK_NOTHROW(umsync::copy_sync_pageable(output, buffer, b));
    // The legacy default stream waits for a blocking stream's earlier work, not a non-blocking one's.
    umsync::event written;
    written.record(a);
    blocking.wait(written);
    umsync::launch(blocking, {.grid = 16, .block = 256}, umsync_test::xor_with, buffer, buffer, n, 2U);
    CHECK_NOTHROW(umsync::copy_sync_pageable(output, buffer, umsync::legacy_default_stream()));
    umsync::launch(b, {.grid = 16, .block = 256}, umsync_test::xor_with, buffer, buffer, n, 4U);
    CHECK_THROWS_AS(umsync::copy_sync_pageable(output, buffer, umsync::legacy_default_stream()),
                    umsync::ordering_error);
    umsync::synchronize_device();  // the buffer is freed on a, after everything
  }
  a.synchronize();
  std::size_t wrong = 0;
  std::uint32_t const byte = 0x5A5A5A5AU;
  for (std::size_t i = 0; i < n; ++i) {
    wrong += output[i] != (byte ^ 1U ^ 1U ^ 2U) ? 1 : 0;
  }
  CHECK(wrong == 0);
}
