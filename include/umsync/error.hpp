// umsync/error.hpp: the exceptions umsync throws and the one helper that checks CUDA calls.
//
//   umsync::check(cudaMalloc(&p, n), "cudaMalloc");   // throws cuda_error naming the call
//   UMSYNC_CUDA_CHECK(cudaMalloc(&p, n));              // the same, call text taken for you
//
// Destructors never throw: a failing CUDA call there goes to the destructor error handler
// (by default a line on stderr), which a program may replace.
#pragma once

#include <umsync/config.hpp>

#include <cstddef>
#include <cstdio>
#include <new>
#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

/// The base of every exception umsync throws: `catch (umsync::error const&)` catches them all.
/// Each also derives from the standard exception that fits (std::runtime_error for failures of
/// the device or a library, std::logic_error for bugs in the calling program, std::bad_alloc
/// for allocations), so code that catches standard types keeps working. Every message starts
/// with exactly one "umsync: ".
class error {
 public:
  virtual ~error() = default;
  [[nodiscard]] virtual char const* what() const noexcept = 0;

 protected:
  error() = default;
  error(error const&) = default;
  error& operator=(error const&) = default;
};

namespace detail {

// A word shared between host threads, without <atomic>: umsync needs two in every translation
// unit (the destructor error handler below, the count of global captures), and <atomic> costs
// nvcc about as much to compile as the rest of umsync's base headers (docs/compile-cost.md).
// The GCC/Clang __atomic builtins, which the host compilers nvcc accepts on Linux implement.
/// A trivially copyable value read and written atomically, sequentially consistent.
template <class T>
class atomic_word {
 public:
  constexpr explicit atomic_word(T initial) noexcept : value_(initial) {}
  atomic_word(atomic_word const&) = delete;
  atomic_word& operator=(atomic_word const&) = delete;

  [[nodiscard]] T load() const noexcept { return __atomic_load_n(&value_, __ATOMIC_SEQ_CST); }
  T exchange(T desired) noexcept { return __atomic_exchange_n(&value_, desired, __ATOMIC_SEQ_CST); }
  T fetch_add(T delta) noexcept { return __atomic_fetch_add(&value_, delta, __ATOMIC_SEQ_CST); }
  T fetch_sub(T delta) noexcept { return __atomic_fetch_sub(&value_, delta, __ATOMIC_SEQ_CST); }

 private:
  T value_;
};

inline std::string describe_location(std::source_location const& where)
{
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}

/// `text` with exactly one "umsync: " in front, whether or not the caller wrote one.
inline std::string umsync_message(std::string_view text)
{
  constexpr std::string_view prefix = "umsync: ";
  while (text.starts_with(prefix)) {
    text.remove_prefix(prefix.size());
  }
  return std::string(prefix) + std::string(text);
}

/// An umsync::error on the standard exception `Standard`, whose what() it reports.
template <class Standard>
class standard_error : public Standard, public error {
 public:
  explicit standard_error(std::string_view text) : Standard(umsync_message(text)) {}
  [[nodiscard]] char const* what() const noexcept override { return Standard::what(); }
};

}  // namespace detail

/// A CUDA runtime (or driver) call failed. Holds the status, its name, the call and the
/// caller's location, so the message says what failed and where in the user's code.
class cuda_error : public detail::standard_error<std::runtime_error> {
 public:
  cuda_error(cudaError_t status, std::string_view call, std::source_location where = std::source_location::current())
      : standard_error(make_message(status, call, where)), status_(status), call_(call), where_(where)
  {}

  [[nodiscard]] cudaError_t code() const noexcept { return status_; }
  /// The status's enumerator name, e.g. "cudaErrorInvalidDevice".
  [[nodiscard]] char const* name() const noexcept { return cudaGetErrorName(status_); }
  [[nodiscard]] std::string const& call() const noexcept { return call_; }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  static std::string make_message(cudaError_t status, std::string_view call, std::source_location const& where)
  {
    return std::string(call) + " failed with " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
           ") at " + detail::describe_location(where);
  }

  cudaError_t status_;
  std::string call_;
  std::source_location where_;
};

/// An allocation could not be satisfied. Says how many bytes were asked for, from what, and
/// where; `detail` carries what the allocator knows (a pool's reserved and used bytes).
class bad_alloc : public std::bad_alloc, public error {
 public:
  bad_alloc(std::size_t requested_bytes, std::string_view allocator, std::string_view detail = {},
            std::source_location where = std::source_location::current())
      : requested_bytes_(requested_bytes),
        where_(where),
        message_(detail::umsync_message(std::string(allocator) + " could not allocate " +
                                        std::to_string(requested_bytes) + " bytes" +
                                        (detail.empty() ? std::string() : " (" + std::string(detail) + ")") + " at " +
                                        detail::describe_location(where)))
  {}

  [[nodiscard]] char const* what() const noexcept override { return message_.c_str(); }
  [[nodiscard]] std::size_t requested_bytes() const noexcept { return requested_bytes_; }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  std::size_t requested_bytes_;
  std::source_location where_;
  std::string message_;
};

/// A use the types could not rule out but the run-time checks caught: an unordered access
/// across streams, a moved-from handle, a foreign stream. Derives from std::logic_error:
/// it is a bug in the calling program, not a failure of the device.
class usage_error : public detail::standard_error<std::logic_error> {
 public:
  explicit usage_error(std::string_view what_happened) : standard_error(what_happened) {}
};

/// A size or count that cannot be honoured: an allocation whose byte count overflows size_t,
/// a copy into a destination smaller than its source.
class length_error : public detail::standard_error<std::length_error> {
 public:
  explicit length_error(std::string_view what_happened) : standard_error(what_happened) {}
};

/// An index or range outside the object it names.
class out_of_range : public detail::standard_error<std::out_of_range> {
 public:
  explicit out_of_range(std::string_view what_happened) : standard_error(what_happened) {}
};

/// An argument no call could accept: a malformed token, a chunk size of zero.
class invalid_argument : public detail::standard_error<std::invalid_argument> {
 public:
  explicit invalid_argument(std::string_view what_happened) : standard_error(what_happened) {}
};

/// Two uses of the same memory on different streams with nothing ordering them: the
/// UMSYNC_DEBUG checker's finding. Names both streams and both call sites.
class ordering_error : public usage_error {
 public:
  struct site {
    void const* stream = nullptr;  ///< the cudaStream_t, as an address; null: the host itself
    std::string operation;         ///< "read", "write" or "free"
    std::source_location where;
  };

  ordering_error(site earlier, site later)
      : usage_error(describe(earlier, later)), earlier_(std::move(earlier)), later_(std::move(later))
  {}

  [[nodiscard]] site const& earlier() const noexcept { return earlier_; }
  [[nodiscard]] site const& later() const noexcept { return later_; }

 private:
  static std::string describe(site const& earlier, site const& later)
  {
    auto party = [](void const* stream) {  // a null stream is the host itself
      char buffer[48];
      if (stream == nullptr) {
        return std::string("the host");
      }
      std::snprintf(buffer, sizeof buffer, "stream %p", stream);
      return std::string(buffer);
    };
    return "unordered access: " + later.operation + " on " + party(later.stream) + " at " +
           detail::describe_location(later.where) + " is not ordered after the " + earlier.operation + " on " +
           party(earlier.stream) + " at " + detail::describe_location(earlier.where) +
           "; add an event edge (umsync::stream_edge) between them, or make the host wait through umsync "
           "(a stream's or event's synchronize(), umsync::synchronize_device()): the checker does not see a raw "
           "cudaDeviceSynchronize() or cudaStreamSynchronize()";
  }

  site earlier_;
  site later_;
};

/// A capture-unsafe operation was about to run while a capture was in progress. A bug in the
/// calling program (it derives from usage_error); the capture was left untouched. Declared here,
/// with the rest of the family, so that stream_view.hpp and event.hpp can refuse a host
/// synchronization in a capture without including capture/ (capture/capture_error.hpp is its
/// documented header).
class capture_error : public usage_error {
 public:
  capture_error(std::string_view operation, std::string_view why)
      : usage_error(std::string(operation) + " while a stream capture is in progress: " + std::string(why) +
                    "; it would fail with cudaErrorStreamCaptureUnsupported and invalidate the capture. "
                    "Call it before the capture begins or after capture_scope::end()"),
        operation_(operation)
  {}

  /// The CUDA call that was refused, e.g. "cudaMemPrefetchAsync".
  [[nodiscard]] std::string const& operation() const noexcept { return operation_; }

 private:
  std::string operation_;
};

/// Throws cuda_error when `status` is not cudaSuccess. The runtime's last-error slot is
/// cleared first, so a later launch check does not see this failure again.
inline void check(cudaError_t status, std::string_view call,
                  std::source_location where = std::source_location::current())
{
  if (status != cudaSuccess) [[unlikely]] {
    static_cast<void>(cudaGetLastError());
    throw cuda_error(status, call, where);
  }
}

/// Called with the failure when something inside a destructor fails (a CUDA call, an unordered
/// free found by the UMSYNC_DEBUG checker). Must not throw.
using destructor_error_handler = void (*)(error const&) noexcept;

namespace detail {

inline void print_destructor_error(error const& failure) noexcept
{
  std::fprintf(stderr, "%s (in a destructor; not thrown)\n", failure.what());
}

inline atomic_word<destructor_error_handler>& destructor_handler_slot() noexcept
{
  static atomic_word<destructor_error_handler> slot{&print_destructor_error};
  return slot;
}

/// For destructors and other noexcept paths: hands `failure` to the handler instead of throwing.
inline void report_in_destructor(error const& failure) noexcept { destructor_handler_slot().load()(failure); }

/// The same for a failed CUDA call.
inline void report_in_destructor(cudaError_t status, std::string_view call,
                                 std::source_location where = std::source_location::current()) noexcept
{
  if (status == cudaSuccess) [[likely]] {
    return;
  }
  static_cast<void>(cudaGetLastError());
  try {
    report_in_destructor(cuda_error(status, call, where));
  } catch (...) {
    // Building the message allocates; if that fails there is nothing better to do.
  }
}

}  // namespace detail

/// Installs `handler` for failures inside destructors and returns the previous one.
/// nullptr restores the default (print to stderr).
inline destructor_error_handler set_destructor_error_handler(destructor_error_handler handler) noexcept
{
  return detail::destructor_handler_slot().exchange(handler != nullptr ? handler : &detail::print_destructor_error);
}

UMSYNC_NAMESPACE_END

/// Checks a CUDA runtime call and throws umsync::cuda_error with the call's text and line.
/// The only macro in umsync's API: it exists to capture the call as written.
#define UMSYNC_CUDA_CHECK(...) ::umsync::check((__VA_ARGS__), #__VA_ARGS__)
