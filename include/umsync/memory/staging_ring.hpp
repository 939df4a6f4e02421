// umsync/memory/staging_ring.hpp: a ring of pinned host slots that the host fills and async
// copies upload, each slot reused only after the copy that last read it is done.
//
//   umsync::staging_ring<float> ring(3, batch_elements);       // 3 slots of pinned memory
//   for (std::size_t b = 0; b < batches; ++b) {
//     auto slot = ring.acquire();                              // waits for the slot's last copy
//     std::copy_n(source(b), slot.size(), slot.begin());       // host writes, nothing reads it
//     umsync::stream_buffer<float, loader> batch(slot.size(), load_s);
//     ring.upload(std::move(slot), batch, load_s);             // copy, record, release the slot
//     ...
//   }
//
// The slot a host thread writes is a move-only loan: only acquire() makes one, and it ends
// either in upload(), which gives the slot to the copy (an lvalue does not compile: the host
// would keep writing memory the copy reads), or in its destructor, which gives it back without
// an upload. A slot used after either throws usage_error, as does acquiring a slot that is still
// lent out (every slot is) or uploading another ring's slot. In UMSYNC_DEBUG builds acquire() is
// a host write of the slot for the ordering checker: a stream that read the slot other than
// through upload() (a kernel given the slot itself) and was not waited for is reported there.
//
// One host thread uses a ring at a time. The ring must outlive its slots; destroying it waits
// for the copies still reading its memory.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/detail/heap_array.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/stream_view.hpp>

#include <concepts>
#include <cstddef>
#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// What a ring and its slots share; on the heap, so that moving the ring leaves slots valid.
template <class T>
struct staging_state {
  staging_state(std::size_t slots, std::size_t elements, std::source_location const& where)
      : memory(slots * elements, where), slot_elements(elements), in_use(slots), recorded(slots)
  {
    copied.reserve(slots);
    for (std::size_t k = 0; k < slots; ++k) {
      copied.emplace_back(event_options{}, where);
    }
  }

  [[nodiscard]] T* slot_data(std::size_t k) noexcept { return memory.data() + k * slot_elements; }

  pinned_buffer<T> memory;
  std::size_t slot_elements;
  heap_array<event> copied;            ///< recorded after the copy that last read each slot
  heap_array<unsigned char> in_use;    ///< the slot is acquired (lent to a slot object)
  heap_array<unsigned char> recorded;  ///< copied[k] was recorded: acquire() waits for it
  std::size_t next = 0;                ///< the slot acquire() hands out next
  std::size_t outstanding = 0;         ///< slots lent out now
};

}  // namespace detail

template <class T>
class staging_ring {
  static_assert(std::is_trivially_copyable_v<T>, "umsync: staging_ring holds trivially copyable elements only");

 public:
  using value_type = T;

  /// An acquired slot: `size()` elements of pinned host memory the host may write until it is
  /// uploaded or destroyed. Move-only; moved from, uploaded or given back, it is empty: size()
  /// is 0 and every access to its memory throws usage_error.
  class slot {
   public:
    slot(slot&& other) noexcept : state_(std::exchange(other.state_, nullptr)), index_(other.index_) {}
    slot& operator=(slot&& other) noexcept
    {
      if (this != &other) {
        give_back();
        state_ = std::exchange(other.state_, nullptr);
        index_ = other.index_;
      }
      return *this;
    }
    slot(slot const&) = delete;
    slot& operator=(slot const&) = delete;
    /// Gives the slot back without an upload: its contents are dropped.
    ~slot() { give_back(); }

    [[nodiscard]] bool empty() const noexcept { return state_ == nullptr; }
    [[nodiscard]] std::size_t size() const noexcept { return state_ == nullptr ? 0 : state_->slot_elements; }
    [[nodiscard]] std::size_t size_bytes() const noexcept { return size() * sizeof(T); }
    /// Which slot of the ring this is (0 .. slot_count() - 1).
    [[nodiscard]] std::size_t index() const noexcept { return index_; }

    [[nodiscard]] T* data() const { return held()->slot_data(index_); }
    [[nodiscard]] T* begin() const { return data(); }
    [[nodiscard]] T* end() const { return data() + size(); }
    [[nodiscard]] T& operator[](std::size_t i) const { return data()[i]; }
    [[nodiscard]] pinned_span<T> span() const { return pinned_span<T>::adopt(data(), size()); }

    /// The memory protocol (memory_range.hpp): pinned host memory, on any stream.
    friend pinned_span<T> umsync_memory(slot& s) { return s.span(); }
    friend pinned_span<T const> umsync_memory(slot const& s) { return pinned_span<T const>::adopt(s.data(), s.size()); }

   private:
    friend class staging_ring;
    slot(detail::staging_state<T>* state, std::size_t index) noexcept : state_(state), index_(index) {}

    detail::staging_state<T>* held() const
    {
      if (state_ == nullptr) [[unlikely]] {
        throw usage_error("use of a umsync::staging_ring slot after it was uploaded, given back or moved from: "
                          "acquire() a slot anew to write the ring's memory");
      }
      return state_;
    }
    void give_back() noexcept
    {
      if (state_ != nullptr) {
        state_->in_use[index_] = 0;
        --state_->outstanding;
        state_ = nullptr;
      }
    }

    detail::staging_state<T>* state_ = nullptr;
    std::size_t index_ = 0;
  };

  /// `slots` slots of `elements_per_slot` elements each, in one pinned allocation. Zero slots or
  /// zero elements throw invalid_argument; a byte size that overflows throws length_error.
  staging_ring(std::size_t slots, std::size_t elements_per_slot,
               std::source_location where = std::source_location::current())
  {
    if (slots == 0 || elements_per_slot == 0) {
      throw invalid_argument("a umsync::staging_ring needs at least one slot of at least one element (asked for ",
                             slots, " slots of ", elements_per_slot, " elements at ", where, ")");
    }
    if (elements_per_slot > static_cast<std::size_t>(-1) / sizeof(T) / slots) {
      throw length_error("a umsync::staging_ring of ", slots, " slots of ", elements_per_slot,
                         " elements overflows size_t bytes (at ", where, ")");
    }
    state_ = state_handle(new detail::staging_state<T>(slots, elements_per_slot, where));
  }

  staging_ring(staging_ring&&) noexcept = default;
  staging_ring& operator=(staging_ring&& other) noexcept
  {
    if (this != &other) {
      retire();
      state_ = std::move(other.state_);
    }
    return *this;
  }
  /// Waits for the copies that still read the ring's memory, then frees it.
  ~staging_ring() { retire(); }

  [[nodiscard]] std::size_t slot_count() const noexcept { return state_.empty() ? 0 : state_.get()->in_use.size(); }
  [[nodiscard]] std::size_t slot_size() const noexcept { return state_.empty() ? 0 : state_.get()->slot_elements; }

  /// The next slot in turn, once the copy that last read it is done (the host waits for its
  /// event). Throws usage_error when that slot is still acquired (every slot is lent out).
  [[nodiscard]] slot acquire(std::source_location where = std::source_location::current())
  {
    detail::staging_state<T>& state = live();
    std::size_t const k = state.next;
    if (state.in_use[k] != 0) {
      throw usage_error("staging_ring::acquire at ", where, ": slot ", k, " is still acquired, and a ring of ",
                        slot_count(), " slots hands them out in turn: upload or drop a slot before acquiring the next");
    }
    if (state.recorded[k] != 0) {
      state.copied[k].synchronize(where);
    }
    // The host is about to write the slot: ordered after every use the checker has seen of it.
    detail::debug::note_host_access(state.slot_data(k), state.slot_elements * sizeof(T), detail::debug::access::write,
                                    where);
    state.in_use[k] = 1;
    ++state.outstanding;
    state.next = (k + 1) % state.in_use.size();
    return slot(&state, k);
  }

  /// Copies all of the slot into the front of `destination` on `stream` (copy_async: device,
  /// pinned or managed memory, its tag checked against the stream's), records the slot's event
  /// there and releases the slot: the next acquire() of it waits for this copy. Takes the slot
  /// by std::move(slot). An empty slot or another ring's throws usage_error; a failed copy leaves
  /// the slot acquired.
  template <class Slot, class Destination, stream_handle Stream>
  void upload(Slot&& s, Destination&& destination, Stream const& stream,
              std::source_location where = std::source_location::current())
  {
    if constexpr (!std::same_as<std::remove_cvref_t<Slot>, slot> || std::is_lvalue_reference_v<Slot> ||
                  std::is_const_v<std::remove_reference_t<Slot>>) {
      static_assert(detail::dependent_false<Slot>,
                    "umsync: staging_ring::upload takes the slot by std::move(slot): the copy reads the slot "
                    "after the call returns, so the host must not write it again until acquire() hands it out anew");
    } else {
      detail::staging_state<T>& state = live();
      if (s.state_ != &state) {
        throw usage_error("staging_ring::upload at ", where, ": ",
                          s.state_ == nullptr ? "the slot is empty (uploaded, given back or moved from)"
                                              : "the slot belongs to another staging_ring");
      }
      std::size_t const k = s.index_;
      copy_async(std::forward<Destination>(destination), s.span(), stream, where);
      state.copied[k].record(stream, where);
      state.recorded[k] = 1;
      s.give_back();
    }
  }

 private:
  detail::staging_state<T>& live() const
  {
    if (state_.empty()) [[unlikely]] {
      throw usage_error("use of a moved-from umsync::staging_ring");
    }
    return *state_.get();
  }

  /// Waits for every copy that may read the memory, then frees it. With slots still lent out
  /// it reports the bug and keeps the memory, so those slots stay valid (a leak, not a crash).
  void retire() noexcept
  {
    if (state_.empty()) {
      return;
    }
    detail::staging_state<T> const& state = *state_.get();
    for (std::size_t k = 0; k < state.copied.size(); ++k) {
      if (state.recorded[k] != 0) {
        detail::report_in_destructor(cudaEventSynchronize(state.copied[k].get()), "cudaEventSynchronize");
      }
    }
    if (state.outstanding != 0) {
      static_cast<void>(state_.release());
      try {
        detail::report_in_destructor(usage_error("a umsync::staging_ring was destroyed while some of its slots were "
                                                 "still acquired; its memory is kept (leaked) so that those slots "
                                                 "stay valid"));
      } catch (...) {  // the message's allocation failed: the leak stays unreported
      }
      return;
    }
    state_.reset();
  }

  struct delete_state {
    void operator()(detail::staging_state<T>* state) const noexcept { delete state; }
  };
  // An owning pointer without <memory> (std::unique_ptr), whose shared_ptr and atomics cost every
  // translation unit of the umbrella (docs/compile-cost.md).
  using state_handle = detail::unique_handle<detail::staging_state<T>*, delete_state>;
  state_handle state_;
};

UMSYNC_NAMESPACE_END
