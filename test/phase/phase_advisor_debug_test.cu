// GPU tests of the UMSYNC_DEBUG phase guard (phase/phase_advisor.hpp): while a phase is in
// force, the buffers it only reads are read-only to the checker. A write that reaches one past
// the phase's views (the bound buffer itself, a raw pointer into it) throws usage_error before
// the kernel is launched; reads, the phase's writable views, and writes after the scope ends
// are accepted.
#include "support/gpu_test.hpp"
#include "support/kernels.cuh"

#include <umsync/launch.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/phase/phase_advisor.hpp>
#include <umsync/stream.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

static_assert(umsync::debug_build, "this file is built with UMSYNC_DEBUG");

namespace {
struct forward {};
struct weights {};
struct activations {};

using plan = umsync::phase_plan<umsync::phase<forward, umsync::uses<weights, umsync::device_read>,
                                              umsync::uses<activations, umsync::device_read_write>>>;
constexpr umsync::launch_config grid{.grid = 16, .block = 256};
}  // namespace

TEST_CASE("a write to a buffer that the phase in force reads only throws usage_error, and nothing runs")
{
  umsync_test::memory_baseline const baseline;
  if (!umsync::capabilities(umsync::current_device()).managed_memory) {
    MESSAGE("the device has no managed memory: not run");
    return;
  }
  auto rng = umsync_test::make_rng();
  std::size_t const n = 1 << 14;
  std::vector<std::uint32_t> const input = umsync_test::random_words(rng, n);
  umsync::stream<> const s;
  {
    umsync::managed_buffer<std::uint32_t> w(n);
    umsync::managed_buffer<std::uint32_t> act(n);
    std::copy(input.begin(), input.end(), w.data());
    std::fill(act.data(), act.data() + n, 0xA5A5A5A5U);  // poison
    auto advisor = umsync::make_phase_advisor<plan>(umsync::bind_buffer<weights>(w),
                                                    umsync::bind_buffer<activations>(act));
    {
      auto scope = advisor.enter<forward>(s);
      // The phase's own views: read the weights, write the activations.
      umsync::launch(s, grid, umsync_test::xor_with, scope.view<weights>(), scope.view<activations>(), n, 5U);
      // The bound buffer itself, as a kernel's read: fine.
      umsync::launch(s, grid, umsync_test::xor_with, w, act, n, 5U);
      // ... and as a kernel's write: refused, naming the phase and the buffer.
      std::string message;
      try {
        umsync::launch(s, grid, umsync_test::xor_with, act, w, n, 9U);
      } catch (umsync::usage_error const& refused) {
        message = refused.what();
      }
      CHECK(message.find("umsync: phase ") == 0);
      CHECK(message.find("forward") != std::string::npos);
      CHECK(message.find("declared buffer ") != std::string::npos);
      CHECK(message.find("weights") != std::string::npos);
      CHECK(message.find("read-only, and a write reaches it at ") != std::string::npos);
      CHECK(message.find("phase/phase_advisor_debug_test.cu") != std::string::npos);
      // A raw pointer into the buffer is mapped back to it and refused the same way.
      CHECK_THROWS_AS(umsync::launch(s, grid, umsync_test::xor_with, act, w.data() + 16, n - 16, 9U),
                      umsync::usage_error);
      // A copy into it as well.
      CHECK_THROWS_AS(umsync::copy_async(w, act, s), umsync::usage_error);
      s.synchronize();
    }
    // The phase has ended: the weights may be written again.
    CHECK_NOTHROW(umsync::launch(s, grid, umsync_test::xor_with, act, w, n, 9U));
    s.synchronize();
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t const activation = input[i] ^ 5U;
      wrong += act.data()[i] == activation && w.data()[i] == (activation ^ 9U) ? 0U : 1U;
    }
    CHECK(wrong == 0);  // only the accepted launches ran
  }
}
