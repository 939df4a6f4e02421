// GPU tests of umsync/nccl/communicator.hpp and nccl_error.hpp: one process driving every
// visible GPU (ncclCommInitAll), one rank per device from a unique id passed as bytes, and
// NCCL failures as umsync::nccl_error. Run on one GPU as a one-rank communicator; the parts
// that need two or more GPUs say so and return when fewer are visible.
#include "support/nccl_support.hpp"

#include <umsync/device.hpp>
#include <umsync/nccl/communicator.hpp>
#include <umsync/nccl/nccl_error.hpp>

#include <cstddef>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

// NCCL failures belong to umsync's error family (umsync/error.hpp).
static_assert(std::is_base_of_v<umsync::error, umsync::nccl_error>);
static_assert(std::is_base_of_v<std::exception, umsync::nccl_error>);

namespace {

using umsync_nccl_test::visible_devices;

}  // namespace

TEST_CASE("NCCL is the version the headers describe, or newer")
{
  int const version = umsync::nccl::runtime_version();
  MESSAGE("NCCL runtime " << version << ", headers " << NCCL_VERSION_CODE);
  CHECK(version >= NCCL_VERSION_CODE);
}

TEST_CASE("a one-rank communicator on the current device, from ncclCommInitAll")
{
  umsync_nccl_test::warm_up_nccl();
  umsync_test::memory_baseline const baseline;
  int const device = umsync::current_device();
  int const devices[] = {device};
  {
    std::vector<umsync::nccl::communicator> comms = umsync::nccl::communicator::init_all(devices);
    REQUIRE(comms.size() == 1);
    CHECK(comms[0].size() == 1);
    CHECK(comms[0].rank() == 0);
    CHECK(comms[0].device() == device);
    comms[0].check_async_error();
    CHECK(umsync::current_device() == device);
  }
}

TEST_CASE("ncclCommInitAll over every visible device gives ranks in device order")
{
  int const count = visible_devices();
  std::vector<umsync::nccl::communicator> comms = umsync::nccl::communicator::init_all();
  REQUIRE(comms.size() == static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    auto const& comm = comms[static_cast<std::size_t>(i)];
    CHECK(comm.size() == count);
    CHECK(comm.rank() == i);
    CHECK(comm.device() == i);
  }
}

TEST_CASE("a unique id survives the trip through bytes; a wrong size is refused")
{
  auto const id = umsync::nccl::unique_id::create();
  auto const bytes = id.bytes();
  auto const back = umsync::nccl::unique_id::from_bytes(bytes);
  CHECK(back == id);
  CHECK(umsync::nccl::unique_id::create() != id);  // fresh ids differ
  std::vector<std::byte> const short_bytes(bytes.begin(), bytes.begin() + 16);
  CHECK_THROWS_AS(static_cast<void>(umsync::nccl::unique_id::from_bytes(short_bytes)), umsync::invalid_argument);
}

TEST_CASE("one rank from a unique id passed as bytes (the one-process-per-GPU path, one GPU)")
{
  umsync_nccl_test::warm_up_nccl();
  umsync_test::memory_baseline const baseline;
  int const device = umsync::current_device();
  auto const bytes = umsync::nccl::unique_id::create().bytes();  // what rank 0 would send
  {
    umsync::nccl::communicator comm(umsync::nccl::unique_id::from_bytes(bytes),
                                    {.ranks = 1, .rank = 0, .device = device});
    CHECK(comm.size() == 1);
    CHECK(comm.rank() == 0);
    CHECK(comm.device() == device);
  }
  CHECK_THROWS_AS(umsync::nccl::communicator(umsync::nccl::unique_id::from_bytes(bytes), {.ranks = 2, .rank = 2}),
                  umsync::invalid_argument);
}

TEST_CASE("one rank per GPU from one unique id, each rank on its own thread (needs 2 or more GPUs)")
{
  int const count = visible_devices();
  if (count < 2) {
    MESSAGE("needs at least 2 GPUs, " << count << " visible: not run here");
    return;
  }
  auto const bytes = umsync::nccl::unique_id::create().bytes();
  std::vector<int> sizes(static_cast<std::size_t>(count), -1);
  std::vector<int> ranks(static_cast<std::size_t>(count), -1);
  std::vector<int> devices(static_cast<std::size_t>(count), -1);
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(count));
  {
    std::vector<std::jthread> threads;
    for (int r = 0; r < count; ++r) {
      threads.emplace_back([&, r] {
        auto const i = static_cast<std::size_t>(r);
        try {
          // As a separate process would: its own device, the id rebuilt from the bytes.
          umsync::nccl::communicator comm(umsync::nccl::unique_id::from_bytes(bytes),
                                          {.ranks = count, .rank = r, .device = r});
          sizes[i] = comm.size();
          ranks[i] = comm.rank();
          devices[i] = comm.device();
        } catch (...) {
          failures[i] = std::current_exception();
        }
      });
    }
  }
  for (int r = 0; r < count; ++r) {
    auto const i = static_cast<std::size_t>(r);
    if (failures[i]) {
      std::rethrow_exception(failures[i]);
    }
    CHECK(sizes[i] == count);
    CHECK(ranks[i] == r);
    CHECK(devices[i] == r);
  }
}

TEST_CASE("a failing NCCL call throws nccl_error naming the call and NCCL's reason")
{
  int const count = visible_devices();
  int const invalid[] = {count + 7};
  try {
    static_cast<void>(umsync::nccl::communicator::init_all(invalid));
    FAIL("ncclCommInitAll accepted a device that does not exist");
  } catch (umsync::nccl_error const& e) {
    MESSAGE(e.what());
    CHECK(e.code() != ncclSuccess);
    CHECK(std::string_view(e.call()) == "ncclCommInitAll");
    CHECK(std::string(e.what()).find("umsync: ncclCommInitAll failed with nccl") != std::string::npos);
    CHECK(std::string(e.what()).find("nccl/communicator_test.cu") != std::string::npos);
    CHECK(std::string(e.what()).find(ncclGetErrorString(e.code())) != std::string::npos);
  }
  // The same device twice.
  int const device = umsync::current_device();
  int const twice[] = {device, device};
  CHECK_THROWS_AS(static_cast<void>(umsync::nccl::communicator::init_all(twice)), umsync::nccl_error);
  // check() on a result directly.
  CHECK_THROWS_WITH_AS(umsync::nccl::check(ncclInvalidUsage, "ncclSomething"),
                       doctest::Contains("umsync: ncclSomething failed with ncclInvalidUsage"), umsync::nccl_error);
  CHECK_NOTHROW(umsync::nccl::check(ncclSuccess, "ncclSomething"));
}

TEST_CASE("a moved-from communicator refuses use; a group ends once")
{
  int const devices[] = {umsync::current_device()};
  auto comms = umsync::nccl::communicator::init_all(devices);
  umsync::nccl::communicator moved = std::move(comms[0]);
  CHECK_THROWS_AS(static_cast<void>(comms[0].get()), umsync::usage_error);  // NOLINT(bugprone-use-after-move)
  CHECK(moved.size() == 1);
  umsync::nccl::group g;
  g.end();
  CHECK_THROWS_AS(g.end(), umsync::usage_error);
}
