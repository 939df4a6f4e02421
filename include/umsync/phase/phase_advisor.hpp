// umsync/phase/phase_advisor.hpp: managed-memory advice and prefetch derived from declared phases.
//
//   struct forward {};  struct optimizer {};  struct weights {};  struct grads {};
//   using plan = umsync::phase_plan<
//       umsync::phase<forward, umsync::uses<weights, umsync::device_read>, umsync::uses<grads, umsync::device_read_write>>,
//       umsync::phase<optimizer, umsync::uses<weights, umsync::device_read_write>, umsync::uses<grads, umsync::device_read>>>;
//   auto advisor = umsync::make_phase_advisor<plan>(umsync::bind_buffer<weights>(w), umsync::bind_buffer<grads>(g));
//   {
//     auto scope = advisor.enter<forward>(s);          // advice, then one batch prefetch on s
//     umsync::launch(s, cfg, fwd_kernel, scope.view<weights>(), scope.view<grads>());
//   }                                                  // view<weights>() is a span of const
//   std::cout << advisor.describe();
//
// The plan (phase/phase_plan.hpp) decides; entering a phase applies the difference from what
// is in force: read-mostly is removed before a phase that writes a buffer and set where a
// phase only reads it, every buffer the phase uses is prefetched to where it is used (one
// cudaMemPrefetchBatchAsync when the device allows it and the phase moves several buffers, one
// cudaMemPrefetchAsync per buffer otherwise). A phase change cannot be captured into a graph
// (advice and prefetch would invalidate the capture): on a capturing_stream it does not
// compile, on a view of a capturing stream it throws capture_error.
//
// With UMSYNC_NVTX a phase scope is an NVTX range, "umsync phase forward", from its entry (the
// advice and prefetch included) to the scope's end (docs/nvtx.md).
#pragma once

#include <umsync/capture/capture_status.hpp>
#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/detail/indexed_values.hpp>
#include <umsync/detail/nvtx.hpp>
#include <umsync/detail/returned_string.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/managed_batch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/phase/access.hpp>
#include <umsync/phase/phase_plan.hpp>
#include <umsync/stream_view.hpp>

#include <array>
#include <cstddef>
#include <source_location>
#include <span>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

/// Names a managed_buffer with the buffer tag the plan uses for it. The advisor keeps its
/// address: the buffer must stay in place (not moved from) and outlive the advisor, and a
/// phase_scope must end before its advisor.
template <class Buffer, class T>
struct phase_binding {
  using buffer = Buffer;
  using element_type = T;
  managed_buffer<T>* memory;
};

template <class Buffer, class T>
[[nodiscard]] phase_binding<Buffer, T> bind_buffer(managed_buffer<T>& memory) noexcept
{
  return phase_binding<Buffer, T>{&memory};
}

struct phase_options {
  /// Prefetch with one batch call where every device has concurrent managed access; false
  /// always uses one cudaMemPrefetchAsync per buffer.
  bool batch = true;
};

namespace detail::phases {

template <class T, class... Ts>
inline constexpr std::size_t index_in = [] {
  std::size_t index = 0;
  bool found = false;
  ((found = found || std::is_same_v<T, Ts>, index += found ? 0 : 1), ...);
  return index;
}();

template <class T, class... Ts>
inline constexpr std::size_t count_of = (std::size_t{0} + ... + (std::is_same_v<T, Ts> ? 1 : 0));

template <class Phase, class... Buffers>
struct phase_bound : std::false_type {};
template <class Name, class... Uses, class... Buffers>
struct phase_bound<phase<Name, Uses...>, Buffers...>
    : std::bool_constant<((index_in<typename Uses::buffer, Buffers...> < sizeof...(Buffers)) && ...)> {};

template <class Plan, class... Buffers>
struct plan_bound : std::false_type {};
template <class... Phases, class... Buffers>
struct plan_bound<phase_plan<Phases...>, Buffers...>
    : std::bool_constant<(phase_bound<Phases, Buffers...>::value && ...)> {};

}  // namespace detail::phases

template <class Advisor, class Phase>
class phase_scope;

template <class Plan, class... Bindings>
class phase_advisor {
  static_assert(detail::phases::plan_bound<Plan, typename Bindings::buffer...>::value,
                "umsync: the plan uses a buffer that is not bound; pass bind_buffer<Tag>(buffer) for each one");
  static_assert((Plan::template uses_anywhere<typename Bindings::buffer> && ...),
                "umsync: a bound buffer is used by no phase of the plan");
  static_assert(((detail::phases::count_of<typename Bindings::buffer, typename Bindings::buffer...> == 1) && ...),
                "umsync: each buffer tag is bound once");

 public:
  using plan_type = Plan;

  /// Applies the preferred locations of the plan (buffers used on one side only) now.
  explicit phase_advisor(phase_options options, Bindings... bindings)
      : bindings_{{bindings}...}, device_(current_device()), batch_(options.batch)
  {
    concurrent_ = capabilities(device_).concurrent_managed_access;
    batch_ = batch_ && concurrent_ && batch_managed_calls_supported();
    for_each_binding([&]<std::size_t I, class Buffer, class T>(phase_binding<Buffer, T> const& binding) {
      read_mostly_[I] = binding.memory->read_mostly();
      constexpr phase_side side = Plan::template preferred_side<Buffer>;
      if constexpr (side != phase_side::none) {
        binding.memory->advise(advice::preferred_location{location(side)});
      }
    });
  }
  phase_advisor(phase_advisor const&) = delete;
  phase_advisor& operator=(phase_advisor const&) = delete;

  /// Applies phase `Phase` on `stream` and returns its scope; views come from the scope.
  /// Only one phase scope is alive at a time (entering another throws usage_error).
  template <class Phase, stream_handle Stream>
  [[nodiscard]] phase_scope<phase_advisor, Phase> enter(Stream const& stream,
                                                        std::source_location where = std::source_location::current())
  {
    static_assert(Plan::template declares_phase<Phase>, "umsync: entering a phase that the plan does not declare");
    static_assert(non_capturing_stream<Stream>,
                  "umsync: a phase change on a capturing stream: its advice and prefetch cannot be captured and "
                  "would invalidate the capture; enter phases before the capture begins or after "
                  "capture_scope::end()");
    check_not_capturing(stream.get(), "phase entry (cudaMemAdvise, cudaMemPrefetchAsync)", where);
    if (in_phase_) {
      throw usage_error("entering phase ", detail::phases::name_text_of<Phase>(), " while phase ", active_,
                        " is still in force; let its scope end first (phase scopes do not nest)");
    }
    detail::nvtx_opening<detail::nvtx_words::phase, Phase> range;  // popped by ~phase_scope
    apply<Phase>(stream_view<>{stream.get()}, where);
    in_phase_ = true;
    active_ = detail::phases::name_text_of<Phase>();
    guard_read_only<Phase>(true, where);
    range.keep();
    return phase_scope<phase_advisor, Phase>(*this, stream.get());
  }

  /// The plan in words for this device, and how prefetches are issued. A std::string: needs
  /// <string> where it is called (detail/returned_string.hpp).
  template <class String = std::string>
  [[nodiscard]] auto describe() const
  {
    return detail::string_from<String>([this](auto& text) {
      text.append(Plan::template describe<String>(detail::compose<32>("device ", device_)));
      detail::append_to_string(
          text, !concurrent_ ? "prefetch: none (the device has no concurrent managed access)\n"
                : batch_     ? "prefetch: one cudaMemPrefetchBatchAsync per phase entry (cudaMemPrefetchAsync when "
                               "it moves one buffer)\n"
                             : "prefetch: one cudaMemPrefetchAsync per buffer\n");
    });
  }

  /// True when phase entries prefetch with one batch call.
  [[nodiscard]] bool uses_batch_calls() const noexcept { return batch_; }
  [[nodiscard]] int device() const noexcept { return device_; }

 private:
  template <class, class>
  friend class phase_scope;

  template <class F>
  void for_each_binding(F&& f)
  {
    // clang-format off
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (f.template operator()<I, typename Bindings::buffer, typename Bindings::element_type>(detail::value_at<I>(bindings_)),
       ...);
    }(std::index_sequence_for<Bindings...>{});
    // clang-format on
  }

  /// UMSYNC_DEBUG: while `Phase` is in force, the buffers it only reads are read-only to the
  /// checker, so that a write reaching one by another way than the phase's views (the bound
  /// buffer itself, a raw pointer into it) throws usage_error instead of collapsing the
  /// read-mostly pages it duplicated. Nothing in release builds.
  template <class Phase>
  void guard_read_only(bool in_force, std::source_location const& where) noexcept
  {
    if constexpr (debug_build) {
      for_each_binding([&]<std::size_t I, class Buffer, class T>(phase_binding<Buffer, T> const& binding) {
        if constexpr (Plan::template used_in<Phase, Buffer> && !Plan::template writes<Phase, Buffer>) {
          if (!in_force) {
            detail::debug::note_read_only_end(binding.memory->data());
            return;
          }
          detail::debug::note_read_only_begin(binding.memory->data(), binding.memory->size_bytes(), [&] {
            return detail::compose<detail::message_capacity>("phase ", detail::phases::name_text_of<Phase>(),
                                                             " (entered at ", where, ") declared buffer ",
                                                             detail::phases::name_text_of<Buffer>(), " read-only");
          });
        }
      });
    } else {
      static_cast<void>(in_force);
      static_cast<void>(where);
    }
  }

  [[nodiscard]] managed_location location(phase_side side) const noexcept
  {
    return side == phase_side::host ? managed_location::host() : managed_location::device(device_);
  }

  template <class Phase>
  void apply(stream_view<> stream, std::source_location const& where)
  {
    // cudaMemAdvise applies at once, not in stream order, so work queued earlier must finish
    // before any read-mostly advice changes. Setting it under a kernel that still writes the
    // buffer would duplicate pages being written. Unsetting it collapses the duplicates to an
    // arbitrary copy (the host's, for a buffer with no preferred location), and a kernel still
    // reading the device copy then faults every page back (the health-gate example showed it
    // when an entry unset read-mostly under a kernel still reading: docs/unified_memory.md).
    bool advice_changes = false;
    for_each_binding([&]<std::size_t I, class Buffer, class T>(phase_binding<Buffer, T> const&) {
      if constexpr (Plan::template used_in<Phase, Buffer>) {
        advice_changes = advice_changes || Plan::template read_mostly_in<Phase, Buffer> != read_mostly_[I];
      }
    });
    if (advice_changes) {
      stream.synchronize(where);
    }
    // Remove read-mostly first: the phase must not start writing duplicated pages.
    for_each_binding([&]<std::size_t I, class Buffer, class T>(phase_binding<Buffer, T> const& binding) {
      if constexpr (Plan::template used_in<Phase, Buffer>) {
        if (!Plan::template read_mostly_in<Phase, Buffer> && read_mostly_[I]) {
          binding.memory->unadvise(advice::read_mostly{}, where);
          read_mostly_[I] = false;
        }
      }
    });
    managed_batch batch;
    for_each_binding([&]<std::size_t I, class Buffer, class T>(phase_binding<Buffer, T> const& binding) {
      if constexpr (Plan::template used_in<Phase, Buffer>) {
        if (Plan::template read_mostly_in<Phase, Buffer> && !read_mostly_[I]) {
          binding.memory->advise(advice::read_mostly{}, where);
          read_mostly_[I] = true;
        }
        if (!concurrent_) {
          return;  // the runtime refuses prefetch to a device without concurrent managed access
        }
        managed_location const to = location(Plan::template prefetch_to<Phase, Buffer>);
        if (batch_ && stream.get() != cudaStreamLegacy) {
          batch.add(binding.memory->span(), to);
        } else {
          binding.memory->prefetch(to, stream, where);
        }
      }
    });
    batch.prefetch(stream, where);  // one range goes by cudaMemPrefetchAsync (see managed_batch)
  }

  detail::values_of<Bindings...> bindings_;
  std::array<bool, sizeof...(Bindings)> read_mostly_{};  ///< what this advisor knows is in force
  int device_;
  bool batch_;
  bool concurrent_ = false;
  bool in_phase_ = false;
  detail::text_view active_;  ///< the phase in force (its name views static storage)
};

template <class Plan, class... Buffers, class... T>
[[nodiscard]] phase_advisor<Plan, phase_binding<Buffers, T>...> make_phase_advisor(
    phase_binding<Buffers, T>... bindings)
{
  return phase_advisor<Plan, phase_binding<Buffers, T>...>(phase_options{}, bindings...);
}
template <class Plan, class... Buffers, class... T>
[[nodiscard]] phase_advisor<Plan, phase_binding<Buffers, T>...> make_phase_advisor(
    phase_options options, phase_binding<Buffers, T>... bindings)
{
  return phase_advisor<Plan, phase_binding<Buffers, T>...>(options, bindings...);
}

/// A phase in force on a stream. Its views are spans of const where the phase declared
/// read-only access, so a write there does not compile. Device accesses give managed_span
/// (for umsync::launch), host accesses std::span (host code only: a kernel cannot take one).
/// Host views are for after the entry stream has finished (scope.stream().synchronize()). Ends (lets the next phase be
/// entered) when destroyed; advice stays as the phase left it.
template <class Advisor, class Phase>
class phase_scope {
  using plan = typename Advisor::plan_type;

 public:
  phase_scope(phase_scope const&) = delete;
  phase_scope& operator=(phase_scope const&) = delete;
  ~phase_scope()
  {
    advisor_->template guard_read_only<Phase>(false, std::source_location::current());
    advisor_->in_phase_ = false;
    detail::nvtx_pop();  // the phase's range, pushed by enter()
  }

  /// The stream the phase was entered on: its prefetches are ordered there.
  [[nodiscard]] stream_view<> stream() const noexcept { return stream_view<>{stream_}; }

  /// The buffer with the access the phase declared: writable only if the phase writes it.
  template <class Buffer>
  [[nodiscard]] auto view() const noexcept
  {
    return view_as<Buffer, typename plan::template access_t<Phase, Buffer>>();
  }

  /// The buffer for `Access`, which the phase must have declared (a write needs a declared write).
  template <class Buffer, buffer_access Access>
  [[nodiscard]] auto view() const noexcept
  {
    using declared = typename plan::template access_t<Phase, Buffer>;
    static_assert(!Access::writes || declared::writes || !plan::template used_in<Phase, Buffer>,
                  "umsync: a write to a buffer that the phase declared read-only; declare device_read_write or "
                  "host_read_write for it in this phase");
    static_assert(Access::side == declared::side || !plan::template used_in<Phase, Buffer>,
                  "umsync: the phase declared this buffer's access on the other side (device or host)");
    if constexpr ((!Access::writes || declared::writes) && Access::side == declared::side) {
      return view_as<Buffer, Access>();
    } else {
      return decltype(view_as<Buffer, Access>()){};  // the type asked for, so only the rule is reported
    }
  }

 private:
  friend Advisor;

  phase_scope(Advisor& advisor, cudaStream_t stream) noexcept : advisor_(&advisor), stream_(stream) {}

  template <class Buffer, class Access>
  [[nodiscard]] auto view_as() const noexcept
  {
    static_assert(plan::template used_in<Phase, Buffer>,
                  "umsync: the phase does not declare an access to this buffer; add uses<Buffer, access> to it");
    if constexpr (plan::template used_in<Phase, Buffer>) {
      auto& binding = detail::value_at<find<Buffer>()>(advisor_->bindings_);
      using element = typename std::remove_reference_t<decltype(binding)>::element_type;
      using viewed = std::conditional_t<Access::writes, element, element const>;
      if constexpr (Access::side == phase_side::host) {
        return std::span<viewed>(binding.memory->data(), binding.memory->size());
      } else {
        return managed_span<viewed>::adopt(binding.memory->data(), binding.memory->size());
      }
    } else {
      return managed_span<int const>{};
    }
  }

  template <class Buffer>
  static constexpr std::size_t find() noexcept
  {
    return []<class Indices, class... Bindings>(detail::indexed_values<Indices, Bindings...> const*) {
      return detail::phases::index_in<Buffer, typename Bindings::buffer...>;
    }(static_cast<decltype(Advisor::bindings_) const*>(nullptr));
  }

  Advisor* advisor_;
  cudaStream_t stream_;
};

UMSYNC_NAMESPACE_END
