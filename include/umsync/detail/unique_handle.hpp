// umsync/detail/unique_handle.hpp: the one owning handle every umsync owner is built on.
//
// A stream, an event, a graph, a buffer: each owns one value (a CUDA handle, or a pointer and
// a count) and gives it back exactly once. unique_handle writes that once: move-only, the
// moved-from side left empty, `Release` called on a non-empty value when destroyed or
// reassigned. `Release` may carry state (the stream a pool buffer is freed on); it moves with
// the value and stays behind as a copy, so a moved-from buffer still knows its stream.
//
// Moved-from means empty, for every umsync owner (docs/architecture.md): an empty buffer reads as
// zero elements (data() null, size() 0); an empty handle (stream, event, graph, graph_exec) has
// nothing to stand for, and get() throws usage_error naming the type. Destroying or assigning
// to an empty owner is always fine.
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <cstddef>
#include <string>
#include <string_view>
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
  {}
  unique_handle& operator=(unique_handle&& other) noexcept
  {
    if (this != &other) {
      reset();
      value_ = std::exchange(other.value_, Value{});
      release_ = other.release_;
    }
    return *this;
  }
  ~unique_handle() { reset(); }

  [[nodiscard]] bool empty() const noexcept { return value_ == Value{}; }
  [[nodiscard]] Value const& get() const noexcept { return value_; }
  /// The value; an empty handle throws usage_error: "use of a moved-from <type_name>".
  [[nodiscard]] Value const& get_or_throw(std::string_view type_name) const
  {
    if (empty()) [[unlikely]] {
      throw usage_error("use of a moved-from " + std::string(type_name));
    }
    return value_;
  }
  [[nodiscard]] Release const& releaser() const noexcept { return release_; }

  /// Gives the value up without releasing it; the handle is empty afterwards.
  [[nodiscard]] Value release() noexcept { return std::exchange(value_, Value{}); }

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
