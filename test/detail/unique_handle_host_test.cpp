// Host tests of umsync/detail/unique_handle.hpp: the one owning handle, with a releaser that
// counts what it releases instead of calling CUDA.
#include <doctest/doctest.h>
#include <umsync/detail/unique_handle.hpp>

#include <string>
#include <utility>
#include <vector>

namespace {

struct released_log {
  std::vector<int> values;
};

/// Records each released value; carries state, as free_on_stream carries its stream.
struct record_release {
  released_log* log = nullptr;
  void operator()(int value) const noexcept { log->values.push_back(value); }
};

using handle = umsync::detail::unique_handle<int, record_release>;

}  // namespace

TEST_CASE("a handle releases its value once, when destroyed")
{
  released_log log;
  {
    handle const h(7, record_release{&log});
    CHECK_FALSE(h.empty());
    CHECK(h.get() == 7);
  }
  CHECK(log.values == std::vector<int>{7});
}

TEST_CASE("moving leaves the source empty, releases nothing, and keeps the releaser on both sides")
{
  released_log log;
  {
    handle a(3, record_release{&log});
    handle b(std::move(a));
    CHECK(a.empty());  // NOLINT(bugprone-use-after-move): moved-from is empty by contract
    CHECK(b.get() == 3);
    CHECK(a.releaser().log == &log);
    CHECK(log.values.empty());
  }
  CHECK(log.values == std::vector<int>{3});
}

TEST_CASE("assigning releases the old value first; self-assignment releases nothing")
{
  released_log log;
  handle a(1, record_release{&log});
  handle b(2, record_release{&log});
  a = std::move(b);
  CHECK(log.values == std::vector<int>{1});
  CHECK(a.get() == 2);
  CHECK(b.empty());  // NOLINT(bugprone-use-after-move)
  handle& same = a;
  a = std::move(same);
  CHECK(log.values == std::vector<int>{1});
  a.reset();
  CHECK(log.values == std::vector<int>{1, 2});
  CHECK(a.empty());
}

TEST_CASE("an empty handle releases nothing, and get_or_throw names the type in a usage_error")
{
  released_log log;
  {
    handle const empty(0, record_release{&log});  // 0 is int's empty value
    CHECK(empty.empty());
    try {
      static_cast<void>(empty.get_or_throw("umsync::widget"));
      FAIL("get_or_throw returned on an empty handle");
    } catch (umsync::usage_error const& e) {
      CHECK(std::string(e.what()) == "umsync: use of a moved-from umsync::widget");
    }
  }
  CHECK(log.values.empty());
}

TEST_CASE("release gives the value up without releasing it")
{
  released_log log;
  {
    handle h(9, record_release{&log});
    CHECK(h.release() == 9);
    CHECK(h.empty());
  }
  CHECK(log.values.empty());
}

TEST_CASE("owned_elements is empty only as {nullptr, 0}")
{
  int word = 0;
  CHECK(umsync::detail::owned_elements<int>{} == umsync::detail::owned_elements<int>{nullptr, 0});
  CHECK_FALSE(umsync::detail::owned_elements<int>{&word, 1} == umsync::detail::owned_elements<int>{});
}
