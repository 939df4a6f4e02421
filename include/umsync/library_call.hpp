// umsync/library_call.hpp: any stream-taking library (cuBLAS, CUB, cuFFT, NCCL-like C APIs),
// called with umsync streams and memory, checked as a kernel launch is.
//
//   umsync::stream<compute> s;
//   umsync::stream_buffer<float, compute> a(m * k, s), b(k * n, s), c(m * n, s);
//   cublasStatus_t const status = umsync::library_call(
//       s,
//       [&](cudaStream_t raw, float const* pa, float const* pb, float* pc) {
//         cublasSetStream(blas, raw);
//         return cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, pa, m, pb, k, &zero, pc, m);
//       },
//       a, b, c);
//
// The callable receives the raw cudaStream_t first, then one argument per argument given.
// Arguments that are memory (memory_range.hpp: umsync's buffers and spans, and any type that
// answers umsync_memory) become raw pointers, under the rules launch keeps
// (memory/detail/memory_argument.hpp): memory bound to a stream tag other than the stream's does not
// compile, nor does pageable host memory, nor read-only memory given to a T* parameter, nor
// memory of T given to anything but T* or T const*. Everything else (sizes, scalars, handles, a
// raw host pointer to alpha) passes through unchanged. A raw cudaStream_t as the stream does not
// compile: it names no tag to check memory against.
//
// The parameter types are read from the callable (a lambda without auto parameters, a function,
// a function object with one operator()), so a T const* parameter counts as a read of the
// memory. A generic callable (auto parameters) gets memory as pointers to its elements (T
// const* for read-only memory); the access then counts as a write unless the memory is const.
//
// The callable's result is returned as it is: cublasStatus_t, cudaError_t, ncclResult_t, void.
// umsync cannot know which values of a library's status mean failure, so it throws nothing for
// it; check it as the library says (or let the callable throw). UMSYNC_DEBUG builds check each
// memory argument at run time as launch does (its kind; its access, noted with the ordering
// checker on the stream) before the callable runs.
//
// Whatever the library queues must go to the stream the callable receives: set it inside the
// callable (cublasSetStream(handle, raw)), since a handle keeps the stream it was last given.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/memory/detail/memory_argument.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/stream_view.hpp>

#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

template <class... Params>
struct parameter_list {
  static constexpr std::size_t size = sizeof...(Params);
};

/// The parameters of a callable, when it has one signature: a function (pointer or reference),
/// or a class with one non-template operator() (a lambda without auto parameters).
template <class F>
struct callable_parameters {
  static constexpr bool known = false;
};
template <class R, class... P>
struct callable_parameters<R (*)(P...)> {
  static constexpr bool known = true;
  using type = parameter_list<P...>;
  using result = R;
};
template <class R, class... P>
struct callable_parameters<R (*)(P...) noexcept> : callable_parameters<R (*)(P...)> {};
template <class R, class C, class... P>
struct callable_parameters<R (C::*)(P...)> : callable_parameters<R (*)(P...)> {};
template <class R, class C, class... P>
struct callable_parameters<R (C::*)(P...) const> : callable_parameters<R (*)(P...)> {};
template <class R, class C, class... P>
struct callable_parameters<R (C::*)(P...) noexcept> : callable_parameters<R (*)(P...)> {};
template <class R, class C, class... P>
struct callable_parameters<R (C::*)(P...) const noexcept> : callable_parameters<R (*)(P...)> {};
template <class F>
  requires requires { &F::operator(); }
struct callable_parameters<F> : callable_parameters<decltype(&F::operator())> {};

template <class F>
using callable_parameters_of = callable_parameters<std::decay_t<F>>;

/// What the callable receives, as its parameter `Param`, for `argument` on a stream tagged
/// `StreamTag`: memory as a checked raw pointer, anything else passed through.
template <class StreamTag, class Param, class Argument>
decltype(auto) library_argument(Argument&& argument, cudaStream_t stream, std::source_location const& where)
{
  if constexpr (memory_range<std::remove_reference_t<Argument>>) {
    return memory_argument<pointer_receiver::library_call, StreamTag, Param>(argument, stream, "umsync::library_call",
                                                                             where);
  } else if constexpr (!non_memory_argument_allowed<pointer_receiver::library_call, Param, Argument&&>()) {
    return rejected_argument<Param>();
  } else {
    note_raw_pointer_argument<Param>(argument, stream, where);
    return std::forward<Argument>(argument);
  }
}

/// The pointer a generic callable (no readable signature) receives for memory: a pointer to
/// its elements, const for read-only memory.
template <class Argument>
using memory_pointer_t = typename memory_span_of_t<std::remove_reference_t<Argument>>::element_type*;

/// What a generic callable receives for `argument`: memory as a pointer to its elements (the
/// rules checked for that parameter), anything else passed through.
template <class StreamTag, class Argument>
decltype(auto) generic_library_argument(Argument&& argument, cudaStream_t stream, std::source_location const& where)
{
  if constexpr (memory_range<std::remove_reference_t<Argument>>) {
    return memory_argument<pointer_receiver::library_call, StreamTag, memory_pointer_t<Argument>>(
        argument, stream, "umsync::library_call", where);
  } else {
    note_raw_pointer_argument<std::remove_cvref_t<Argument>>(argument, stream, where);
    return std::forward<Argument>(argument);
  }
}

/// What a generic callable is called with for an argument of type `Argument`.
template <class Argument>
struct generic_parameter {
  using type = Argument&&;
};
template <class Argument>
  requires memory_range<std::remove_reference_t<Argument>>
struct generic_parameter<Argument> {
  using type = memory_pointer_t<Argument>;
};

/// Stands in for the result of a call whose callable umsync cannot read (a generic callable that
/// does not accept the arguments): converts to whatever the caller's code expects, so that the
/// rule's message is the only error.
struct rejected_result {
  template <class T>
  operator T() const noexcept  // NOLINT: converts to anything, on purpose
  {
    std::abort();
  }
};

/// What library_call(stream, call, args...) returns: the callable's result, as its signature or
/// its call with the arguments says. Every branch that rejects a call returns it too, so a
/// result used as documented (`cublasStatus_t const status = library_call(...)`) adds no error
/// of its own to the rule's message.
template <class F, class... Args>
struct library_result {
  using type = rejected_result;
};
template <class F, class... Args>
requires callable_parameters_of<F>::known struct library_result<F, Args...> {
  using type = typename callable_parameters_of<F>::result;
};
template <class F, class... Args>
  requires(!callable_parameters_of<F>::known &&
           std::is_invocable_v<F, cudaStream_t, typename generic_parameter<Args>::type...>)
struct library_result<F, Args...> {
  using type = std::invoke_result_t<F, cudaStream_t, typename generic_parameter<Args>::type...>;
};
template <class F, class... Args>
using library_result_t = typename library_result<F, Args...>::type;

/// The result of a rejected call, once its static_assert has fired.
template <class Result>
Result rejected_call() noexcept
{
  if constexpr (!std::is_void_v<Result>) {
    return rejected_argument<Result>();
  }
}

template <class StreamTag, class F, class... Params, class... Args>
decltype(auto) call_with_parameters(parameter_list<cudaStream_t, Params...>, cudaStream_t stream, F&& call,
                                    std::source_location const& where, Args&&... args)
{
  // A plain call, not std::invoke (<functional>): the callable's first parameter is the stream,
  // so it is never a pointer to member.
  return std::forward<F>(call)(stream, static_cast<Params>(library_argument<StreamTag, Params>(std::forward<Args>(args),
                                                                                               stream, where))...);
}

}  // namespace detail

/// Calls `call(raw_stream, arguments...)`, each memory argument given as a raw pointer once
/// its rules hold; returns what `call` returns.
template <stream_handle Stream, class F, class... Args>
detail::library_result_t<F, Args...> library_call(Stream const& stream, F&& call, Args&&... args)
{
  using tag = typename Stream::tag_type;
  using result = detail::library_result_t<F, Args...>;
  using callable = detail::callable_parameters_of<F>;
  // UMSYNC_DEBUG messages name this line: a variadic call has no place for a defaulted `where`.
  std::source_location const where = std::source_location::current();
  if constexpr (callable::known) {
    using params = typename callable::type;
    if constexpr (params::size != sizeof...(Args) + 1) {
      static_assert(detail::dependent_false<F>,
                    "umsync: library_call needs one argument per parameter of the callable after its first, the raw "
                    "cudaStream_t");
      return detail::rejected_call<result>();
    } else {
      return [&]<class First, class... Params>(detail::parameter_list<First, Params...>) -> result {
        if constexpr (!std::is_same_v<std::remove_cvref_t<First>, cudaStream_t>) {
          static_assert(detail::dependent_false<First>,
                        "umsync: library_call's callable takes the raw cudaStream_t as its first parameter; the "
                        "library's work goes to that stream");
          return detail::rejected_call<result>();
        } else {
          return detail::call_with_parameters<tag>(detail::parameter_list<cudaStream_t, Params...>{}, stream.get(),
                                                   std::forward<F>(call), where, std::forward<Args>(args)...);
        }
      }(params{});
    }
  } else if constexpr (!std::is_invocable_v<F, cudaStream_t, typename detail::generic_parameter<Args>::type...>) {
    static_assert(detail::dependent_false<F>,
                  "umsync: library_call's callable cannot be called with the raw cudaStream_t and the arguments "
                  "(memory given as T*, or T const* for read-only memory)");
    return detail::rejected_call<result>();
  } else {
    return std::forward<F>(call)(stream.get(), detail::generic_library_argument<tag>(std::forward<Args>(args),
                                                                                     stream.get(), where)...);
  }
}

/// A raw cudaStream_t names no tag to check memory against: adopt it as a view first. It
/// returns what the callable would, so that a used result adds no error to the message.
template <class F, class... Args>
detail::library_result_t<F, Args...> library_call(cudaStream_t, F&&, Args&&...)  // exists to reject with a message
{
  detail::reject_raw_stream<F>();
  return detail::rejected_call<detail::library_result_t<F, Args...>>();
}

UMSYNC_NAMESPACE_END
