// umsync/detail/heap_array.hpp: the one growable array umsync keeps and returns (graph nodes and
// edges, a batch's entries, a capture's forks, the device table, a staging ring's slots), in
// place of std::vector, whose header (vector<bool>, the allocator machinery) umsync.hpp paid for
// in every translation unit (docs/compile-cost.md).
//
// What std::vector does that umsync needs, and no more: elements in one block on the heap
// (::operator new, so a failed allocation is std::bad_alloc as for std::vector), appended in
// amortized constant time, iterated as pointers, copied when the element can be. Elements must
// move without throwing, so that growing never leaves a half-moved array.
#pragma once

#include <umsync/config.hpp>

#include <cstddef>
#include <new>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

template <class T>
class heap_array {
  static_assert(std::is_nothrow_move_constructible_v<T> && std::is_nothrow_destructible_v<T>,
                "umsync: a heap_array holds elements that move and are destroyed without throwing");

 public:
  using value_type = T;

  heap_array() noexcept = default;
  /// `count` value-initialized elements.
  explicit heap_array(std::size_t count) requires std::is_default_constructible_v<T>
  {
    append_value_initialized(count);
  }
  heap_array(heap_array&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)),
        capacity_(std::exchange(other.capacity_, 0))
  {}
  heap_array& operator=(heap_array&& other) noexcept
  {
    if (this != &other) {
      release();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
      capacity_ = std::exchange(other.capacity_, 0);
    }
    return *this;
  }
  heap_array(heap_array const& other) requires std::is_copy_constructible_v<T>
  {
    reserve(other.size_);
    for (T const& element : other) {
      emplace_back(element);
    }
  }
  heap_array& operator=(heap_array const& other) requires std::is_copy_constructible_v<T>
  {
    if (this != &other) {
      heap_array copy(other);  // a failed copy leaves this one as it was
      *this = std::move(copy);
    }
    return *this;
  }
  ~heap_array() { release(); }

  [[nodiscard]] std::size_t size() const noexcept { return size_; }
  [[nodiscard]] bool empty() const noexcept { return size_ == 0; }
  [[nodiscard]] std::size_t capacity() const noexcept { return capacity_; }
  [[nodiscard]] T* data() noexcept { return data_; }
  [[nodiscard]] T const* data() const noexcept { return data_; }
  [[nodiscard]] T* begin() noexcept { return data_; }
  [[nodiscard]] T* end() noexcept { return data_ + size_; }
  [[nodiscard]] T const* begin() const noexcept { return data_; }
  [[nodiscard]] T const* end() const noexcept { return data_ + size_; }
  /// The element at `index`, which must be below size() (unchecked, as std::vector's).
  [[nodiscard]] T& operator[](std::size_t index) noexcept { return data_[index]; }
  [[nodiscard]] T const& operator[](std::size_t index) const noexcept { return data_[index]; }

  /// Room for `count` elements without another allocation.
  void reserve(std::size_t count)
  {
    if (count <= capacity_) {
      return;
    }
    if (count > static_cast<std::size_t>(-1) / sizeof(T)) {
      throw std::bad_alloc();  // the byte count would not fit a size_t
    }
    T* const grown = static_cast<T*>(over_aligned ? ::operator new (count * sizeof(T), std::align_val_t{alignof(T)})
                                                  : ::operator new(count * sizeof(T)));
    // size_ < count always; bounded by both so that g++ 12's -Wstringop-overflow, which loses
    // track of size_ through inlining, sees every write inside the new block.
    for (std::size_t i = 0; i < size_ && i < count; ++i) {
      ::new (static_cast<void*>(grown + i)) T(std::move(data_[i]));
      data_[i].~T();
    }
    deallocate();
    data_ = grown;
    capacity_ = count;
  }

  /// Appends a T made from `arguments`, growing the block (by doubling) when it is full.
  template <class... Arguments>
  T& emplace_back(Arguments&&... arguments)
  {
    if (size_ == capacity_) {
      // Made before growing: an argument may refer to an element that growing moves.
      T element(std::forward<Arguments>(arguments)...);
      reserve(capacity_ == 0 ? 4 : 2 * capacity_);
      ::new (static_cast<void*>(data_ + size_)) T(std::move(element));
    } else {
      ::new (static_cast<void*>(data_ + size_)) T(std::forward<Arguments>(arguments)...);
    }
    return data_[size_++];
  }
  void push_back(T const& element) { emplace_back(element); }
  void push_back(T&& element) { emplace_back(std::move(element)); }

  /// `count` elements: the last ones destroyed, or value-initialized ones appended.
  void resize(std::size_t count) requires std::is_default_constructible_v<T>
  {
    while (size_ > count) {
      data_[--size_].~T();
    }
    if (count > size_) {
      append_value_initialized(count - size_);
    }
  }

  /// Destroys every element; the block is kept for reuse.
  void clear() noexcept
  {
    for (std::size_t i = size_; i > 0; --i) {
      data_[i - 1].~T();
    }
    size_ = 0;
  }

 private:
  static constexpr bool over_aligned = alignof(T) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;

  void append_value_initialized(std::size_t count)
  {
    reserve(size_ + count);
    for (std::size_t i = 0; i < count; ++i) {
      ::new (static_cast<void*>(data_ + size_)) T();
      ++size_;
    }
  }

  void deallocate() noexcept
  {
    if (data_ != nullptr) {
      if constexpr (over_aligned) {
        ::operator delete (data_, std::align_val_t{alignof(T)});
      } else {
        ::operator delete(data_);
      }
    }
  }
  void release() noexcept
  {
    clear();
    deallocate();
    data_ = nullptr;
    capacity_ = 0;
  }

  T* data_ = nullptr;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace detail
UMSYNC_NAMESPACE_END
