// umsync/nccl/communicator.hpp: owning NCCL communicators, for one process driving every GPU
// or one process per GPU.
//
//   // one process, all visible GPUs (ncclCommInitAll): communicator i drives device i
//   std::vector<umsync::nccl::communicator> comms = umsync::nccl::communicator::init_all();
//
//   // one process per GPU: rank 0 makes the id, every process receives its bytes
//   auto id = umsync::nccl::unique_id::create();                   // rank 0
//   send_to_others(id.bytes());                                     // pipe, socket, MPI, file
//   auto id = umsync::nccl::unique_id::from_bytes(received);       // the others
//   umsync::nccl::communicator comm(id, {.ranks = n, .rank = r, .device = r});
//
// A communicator is move-only and destroyed (ncclCommDestroy) in its destructor, which never
// throws: failures go to umsync's destructor error handler. Several ranks driven by one thread
// (init_all) must issue their collectives inside an umsync::nccl::group.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/nccl/nccl_error.hpp>

#include <nccl.h>

#include <array>
#include <cstddef>
#include <cstring>
#include <numeric>
#include <source_location>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// Makes `device` current for the scope, then restores the caller's device.
class nccl_device_scope {
 public:
  nccl_device_scope(int device, std::source_location where) : previous_(current_device(where))
  {
    if (device != previous_) {
      check(cudaSetDevice(device), "cudaSetDevice", where);
    }
  }
  nccl_device_scope(nccl_device_scope const&) = delete;
  nccl_device_scope& operator=(nccl_device_scope const&) = delete;
  ~nccl_device_scope() { report_in_destructor(cudaSetDevice(previous_), "cudaSetDevice (restore)"); }

 private:
  int previous_;
};

}  // namespace detail

namespace nccl {

/// The version of the NCCL library loaded at run time (e.g. 22809 for 2.28.9).
[[nodiscard]] inline int runtime_version(std::source_location where = std::source_location::current())
{
  int version = 0;
  check(ncclGetVersion(&version), "ncclGetVersion", nullptr, where);
  return version;
}

/// The id all ranks of one communicator share. Made once (by one rank), passed to the
/// others as bytes by whatever the program uses between processes.
class unique_id {
 public:
  static constexpr std::size_t size = sizeof(ncclUniqueId);
  using byte_array = std::array<std::byte, size>;

  /// A fresh id (ncclGetUniqueId; it also starts NCCL's bootstrap listener in this process).
  [[nodiscard]] static unique_id create(std::source_location where = std::source_location::current())
  {
    unique_id id;
    check(ncclGetUniqueId(&id.id_), "ncclGetUniqueId", nullptr, where);
    return id;
  }

  /// The id another process made, from its bytes; throws std::invalid_argument on a wrong size.
  [[nodiscard]] static unique_id from_bytes(std::span<std::byte const> bytes)
  {
    if (bytes.size() != size) {
      throw invalid_argument("an NCCL unique id is " + std::to_string(size) + " bytes, got " +
                             std::to_string(bytes.size()));
    }
    unique_id id;
    std::memcpy(&id.id_, bytes.data(), size);
    return id;
  }

  [[nodiscard]] byte_array bytes() const noexcept
  {
    byte_array out{};
    std::memcpy(out.data(), &id_, size);
    return out;
  }
  [[nodiscard]] ncclUniqueId const& get() const noexcept { return id_; }

  friend bool operator==(unique_id const& a, unique_id const& b) noexcept
  {
    return std::memcmp(&a.id_, &b.id_, size) == 0;
  }

 private:
  unique_id() = default;
  ncclUniqueId id_{};
};

/// This process's place in a communicator made from a unique id.
struct rank_options {
  int ranks = 1;   ///< how many ranks (GPUs) the communicator has in all
  int rank = 0;    ///< this process's rank, 0 <= rank < ranks
  int device = 0;  ///< the CUDA device this rank drives
};

class communicator {
 public:
  /// One rank of a communicator spanning processes (ncclCommInitRank). Blocks until every
  /// rank has joined. The caller's current device is restored afterwards.
  communicator(unique_id const& id, rank_options options, std::source_location where = std::source_location::current())
  {
    if (options.ranks < 1 || options.rank < 0 || options.rank >= options.ranks) {
      throw invalid_argument("NCCL rank " + std::to_string(options.rank) + " of " + std::to_string(options.ranks) +
                             " ranks is out of range");
    }
    umsync::detail::nccl_device_scope const on_device(options.device, where);
    ncclComm_t handle = nullptr;
    check(ncclCommInitRank(&handle, options.ranks, id.get(), options.rank), "ncclCommInitRank", nullptr, where);
    handle_ = decltype(handle_)(handle);
  }

  /// One communicator per device of `devices`, all in this process (ncclCommInitAll); element
  /// i drives devices[i] and has rank i.
  [[nodiscard]] static std::vector<communicator> init_all(std::span<int const> devices,
                                                          std::source_location where = std::source_location::current())
  {
    if (devices.empty()) {
      throw invalid_argument("ncclCommInitAll needs at least one device");
    }
    std::vector<ncclComm_t> handles(devices.size(), nullptr);
    check(ncclCommInitAll(handles.data(), static_cast<int>(devices.size()), devices.data()), "ncclCommInitAll", nullptr,
          where);
    std::vector<communicator> comms;
    comms.reserve(handles.size());
    for (ncclComm_t handle : handles) {
      comms.push_back(communicator(handle));  // reserve()d: cannot throw, none leaks
    }
    return comms;
  }

  /// One communicator per visible device (devices 0 .. count-1).
  [[nodiscard]] static std::vector<communicator> init_all(std::source_location where = std::source_location::current())
  {
    device_probe const probe = probe_devices(where);
    if (!probe.usable()) {
      throw usage_error("ncclCommInitAll: " + probe.reason());
    }
    std::vector<int> devices(static_cast<std::size_t>(probe.count));
    std::iota(devices.begin(), devices.end(), 0);
    return init_all(devices, where);
  }

  /// Takes ownership of a communicator made elsewhere.
  [[nodiscard]] static communicator adopt(ncclComm_t handle) noexcept { return communicator(handle); }

  /// The raw handle; throws usage_error on a moved-from communicator.
  [[nodiscard]] ncclComm_t get() const { return handle_.get_or_throw("umsync::nccl::communicator"); }

  /// How many ranks the communicator has.
  [[nodiscard]] int size(std::source_location where = std::source_location::current()) const
  {
    int count = 0;
    check(ncclCommCount(get(), &count), "ncclCommCount", get(), where);
    return count;
  }
  /// This communicator's rank.
  [[nodiscard]] int rank(std::source_location where = std::source_location::current()) const
  {
    int value = 0;
    check(ncclCommUserRank(get(), &value), "ncclCommUserRank", get(), where);
    return value;
  }
  /// The CUDA device it drives: streams passed to its collectives must belong to it.
  [[nodiscard]] int device(std::source_location where = std::source_location::current()) const
  {
    int value = 0;
    check(ncclCommCuDevice(get(), &value), "ncclCommCuDevice", get(), where);
    return value;
  }

  /// Throws nccl_error when NCCL has recorded an asynchronous failure (a peer gone, a network
  /// error) on this communicator; its collectives may then never complete.
  void check_async_error(std::source_location where = std::source_location::current()) const
  {
    ncclResult_t async = ncclSuccess;
    check(ncclCommGetAsyncError(get(), &async), "ncclCommGetAsyncError", get(), where);
    check(async, "an earlier NCCL operation (ncclCommGetAsyncError)", get(), where);
  }

 private:
  struct destroy_communicator {
    void operator()(ncclComm_t handle) const noexcept
    {
      umsync::detail::report_nccl_in_destructor(ncclCommDestroy(handle), "ncclCommDestroy", nullptr);
    }
  };

  explicit communicator(ncclComm_t handle) noexcept : handle_(handle) {}

  umsync::detail::unique_handle<ncclComm_t, destroy_communicator> handle_;
};

/// Collectives of several communicators driven by one thread (init_all) must be issued
/// between ncclGroupStart and ncclGroupEnd, or the first blocks waiting for the others.
///
///   umsync::nccl::group g;
///   for (...) umsync::nccl::all_reduce(bucket[i], op, comms[i], streams[i]);
///   g.end();   // throws nccl_error; the destructor ends an open group without throwing
class group {
 public:
  explicit group(std::source_location where = std::source_location::current())
  {
    check(ncclGroupStart(), "ncclGroupStart", nullptr, where);
  }
  group(group const&) = delete;
  group& operator=(group const&) = delete;
  ~group()
  {
    if (open_) {
      umsync::detail::report_nccl_in_destructor(ncclGroupEnd(), "ncclGroupEnd", nullptr);
    }
  }

  /// Ends the group: NCCL enqueues the collectives issued since the start.
  void end(std::source_location where = std::source_location::current())
  {
    if (!open_) {
      throw usage_error("nccl::group::end called twice");
    }
    open_ = false;
    check(ncclGroupEnd(), "ncclGroupEnd", nullptr, where);
  }

 private:
  bool open_ = true;
};

}  // namespace nccl
UMSYNC_NAMESPACE_END
