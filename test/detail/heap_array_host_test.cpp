// Tests of umsync/detail/heap_array.hpp: the growable array umsync keeps and returns in place of
// std::vector. Elements keep their values and order through growth, copies and moves; every
// element made is destroyed once.
#include <umsync/detail/heap_array.hpp>

#include <doctest/doctest.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <random>
#include <utility>

namespace detail = umsync::detail;

namespace {

// Counts the live objects, so each test can see that every element made was destroyed.
struct counted {
  static inline int live = 0;
  std::uint64_t value = 0;
  counted() noexcept { ++live; }
  explicit counted(std::uint64_t v) noexcept : value(v) { ++live; }
  counted(counted const& other) noexcept : value(other.value) { ++live; }
  counted(counted&& other) noexcept : value(std::exchange(other.value, 0)) { ++live; }
  counted& operator=(counted const&) = default;
  counted& operator=(counted&&) = default;
  ~counted() { --live; }
};

std::mt19937_64& generator()
{
  static std::mt19937_64 random(std::random_device{}());
  return random;
}

detail::heap_array<counted> filled(std::size_t count, std::uint64_t* values)
{
  detail::heap_array<counted> array;
  for (std::size_t i = 0; i < count; ++i) {
    values[i] = generator()();
    array.emplace_back(values[i]);
  }
  return array;
}

}  // namespace

TEST_CASE("appended elements keep their values and order through every growth")
{
  std::size_t const count = 100 + generator()() % 900;
  auto* const values = new std::uint64_t[count];
  {
    detail::heap_array<counted> const array = filled(count, values);
    REQUIRE(array.size() == count);
    CHECK(array.capacity() >= count);
    CHECK(counted::live == static_cast<int>(count));
    for (std::size_t i = 0; i < count; ++i) {
      CHECK(array[i].value == values[i]);
    }
    std::size_t seen = 0;
    for (counted const& element : array) {
      CHECK(element.value == values[seen++]);
    }
    CHECK(seen == count);
  }
  CHECK(counted::live == 0);
  delete[] values;
}

TEST_CASE("a copy is equal and independent; a moved-from array is empty")
{
  std::uint64_t values[37];
  detail::heap_array<counted> original = filled(37, values);
  detail::heap_array<counted> copy = original;
  REQUIRE(copy.size() == 37);
  copy[0].value = ~values[0];
  CHECK(original[0].value == values[0]);
  for (std::size_t i = 1; i < 37; ++i) {
    CHECK(copy[i].value == values[i]);
  }
  detail::heap_array<counted> moved = std::move(original);
  CHECK(original.empty());  // NOLINT(bugprone-use-after-move): moved-from is documented empty
  CHECK(original.data() == nullptr);
  CHECK(moved.size() == 37);
  CHECK(moved[36].value == values[36]);
  copy = moved;  // copy-assigned over 37 others
  CHECK(copy[0].value == values[0]);
  const detail::heap_array<counted>& same = copy;  // through a reference: compilers warn on `copy = copy`
  copy = same;                                     // self-assignment keeps the elements
  CHECK(copy.size() == 37);
  CHECK(copy[5].value == values[5]);
  moved = std::move(copy);
  CHECK(moved.size() == 37);
  CHECK(counted::live == 37);
  moved = detail::heap_array<counted>();
  CHECK(counted::live == 0);
}

TEST_CASE("an element appended from the array itself survives the growth it causes")
{
  detail::heap_array<counted> array;
  std::uint64_t const first = generator()();
  array.emplace_back(first);
  for (int i = 0; i < 40; ++i) {
    array.push_back(array[0]);  // at every full block the argument is an element growing moves
  }
  REQUIRE(array.size() == 41);
  for (counted const& element : array) {
    CHECK(element.value == first);
  }
}

TEST_CASE("resize, clear and reserve: sizes change, values of the kept elements do not")
{
  std::uint64_t values[20];
  detail::heap_array<counted> array = filled(20, values);
  array.resize(7);
  CHECK(array.size() == 7);
  CHECK(counted::live == 7);
  CHECK(array[6].value == values[6]);
  array.resize(12);
  CHECK(array.size() == 12);
  CHECK(array[6].value == values[6]);
  CHECK(array[11].value == 0);  // value-initialized
  std::size_t const capacity = array.capacity();
  array.clear();
  CHECK(array.empty());
  CHECK(counted::live == 0);
  CHECK(array.capacity() == capacity);  // the block is kept for reuse
  array.reserve(capacity + 100);
  CHECK(array.capacity() == capacity + 100);
  detail::heap_array<unsigned char> zeros(33);
  CHECK(zeros.size() == 33);
  for (unsigned char const z : zeros) {
    CHECK(z == 0);
  }
}

TEST_CASE("a byte count beyond size_t is std::bad_alloc, and the array stays usable")
{
  detail::heap_array<std::uint64_t> array;
  array.push_back(7);
  CHECK_THROWS_AS(array.reserve(static_cast<std::size_t>(-1) / 4), std::bad_alloc);
  REQUIRE(array.size() == 1);
  CHECK(array[0] == 7);
  array.push_back(8);
  CHECK(array[1] == 8);
}
