// umsync/detail/unique_handle.hpp: the one owning handle every umsync owner is built on.
//
// A stream, an event, a graph, a buffer: each owns one value (a CUDA handle, or a pointer and
// a count) and gives it back exactly once. unique_handle writes that once: move-only, the
// moved-from side left empty, `Release` called on a non-empty value when destroyed or
// reassigned. `Release` may carry state (the stream a stream buffer is freed on); it moves with
// the value and stays behind as a copy, so a moved-from buffer still knows its stream.
//
// Moved-from means empty, for every umsync owner (docs/architecture.md): an empty buffer reads as
// zero elements (data() null, size() 0); an empty handle (stream, event, graph, graph_exec) has
// nothing to stand for, and get() throws usage_error naming the type. Destroying or assigning
// to an empty owner is always fine.
//
// UMSYNC_DEBUG builds also remember that a handle was moved from (or gave its value up), so
// that a buffer's memory protocol can tell a moved-from buffer, whose use is a bug, from one
// made with zero elements, which is legitimately empty. Release builds keep nothing of it.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <cstddef>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

/// Owns a `Value` (empty when it equals `Value{}`) and releases it with `Release`, a callable
/// `void(Value const&) noexcept`.
template <class Value, class Release>
class unique_handle {
 public:
  unique_handle() = default;
  explicit unique_handle(Value value, Release release = Release{}) noexcept
      : value_(std::move(value)), release_(std::move(release))
  {}

  unique_handle(unique_handle const&) = delete;
  unique_handle& operator=(unique_handle const&) = delete;
  unique_handle(unique_handle&& other) noexcept : value_(std::exchange(other.value_, Value{})), release_(other.release_)
  {
#if defined(UMSYNC_DEBUG)
    moved_from_ = std::exchange(other.moved_from_, true);
#endif
  }
  unique_handle& operator=(unique_handle&& other) noexcept
  {
    if (this != &other) {
      reset();
      value_ = std::exchange(other.value_, Value{});
      release_ = other.release_;
#if defined(UMSYNC_DEBUG)
      moved_from_ = std::exchange(other.moved_from_, true);
#endif
    }
    return *this;
  }
  ~unique_handle() { reset(); }

  [[nodiscard]] bool empty() const noexcept { return value_ == Value{}; }
  [[nodiscard]] Value const& get() const noexcept { return value_; }
  /// The value; an empty handle throws usage_error: "use of a moved-from <type_name>".
  [[nodiscard]] Value const& get_or_throw(text_view type_name) const
  {
    if (empty()) [[unlikely]] {
      throw usage_error("use of a moved-from ", type_name);
    }
    return value_;
  }
  [[nodiscard]] Release const& releaser() const noexcept { return release_; }

  /// True once the handle was moved from or gave its value up (release()), until a value is
  /// moved into it again; a handle that was empty from the start is not. Kept in UMSYNC_DEBUG
  /// builds only: release builds always answer false.
  [[nodiscard]] bool moved_from() const noexcept
  {
#if defined(UMSYNC_DEBUG)
    return moved_from_;
#else
    return false;
#endif
  }
  /// UMSYNC_DEBUG builds: throws usage_error "use of a moved-from <type_name>" when moved_from().
  /// Release builds: nothing.
  void debug_check_not_moved_from(text_view type_name) const noexcept(!debug_build)
  {
    if constexpr (debug_build) {
      if (moved_from()) [[unlikely]] {
        throw usage_error("use of a moved-from ", type_name,
                          ": it holds no memory (it reads as 0 elements and a kernel would receive a null pointer); "
                          "use the object it was moved to");
      }
    } else {
      static_cast<void>(type_name);
    }
  }

  /// Gives the value up without releasing it; the handle is empty, and moved from, afterwards.
  [[nodiscard]] Value release() noexcept
  {
#if defined(UMSYNC_DEBUG)
    moved_from_ = true;
#endif
    return std::exchange(value_, Value{});
  }

  /// Releases the value now; the handle is empty afterwards.
  void reset() noexcept
  {
    if (!empty()) {
      release_(std::as_const(value_));
      value_ = Value{};
    }
  }

 private:
  Value value_{};
  Release release_{};
#if defined(UMSYNC_DEBUG)
  bool moved_from_ = false;
#endif
};

/// A pointer and the number of elements it owns: the value of every umsync buffer.
template <class T>
struct owned_elements {
  T* data = nullptr;
  std::size_t size = 0;
  friend bool operator==(owned_elements const&, owned_elements const&) = default;
};

}  // namespace detail
UMSYNC_NAMESPACE_END
