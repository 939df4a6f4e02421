// umsync/bound_handle.hpp: a library handle bound to a tagged stream, so each call is one line.
//
//   #include <umsync/cublas.hpp>                       // cuBLAS and cuBLASLt opt in there
//   umsync::bound_handle blas(handle, s);              // bound_handle<compute, cublasHandle_t>
//   cublasStatus_t const status = blas.call(cublasSgemm, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k,
//                                           &zero, c, m);                  // a, b, c: umsync memory
//
// call(function, arguments...) calls `function(handle, arguments...)` with the work on the bound
// stream, through library_call (library_call.hpp): the function's own signature decides what
// each piece of memory becomes, so memory bound to another stream's tag, pageable memory,
// read-only memory for a T* parameter and memory of another element type do not compile, and
// UMSYNC_DEBUG builds note each access on the stream. Everything else (sizes, host scalars, a
// descriptor) passes through. The function's result (cublasStatus_t) comes back as it is.
//
// How a handle reaches the stream is the library's: a handle type opts in by specializing
// umsync::bound_handle_traits<Handle> with one of
//
//   static void set_stream(Handle, cudaStream_t, std::source_location const&);  // cuBLAS, cuFFT,
//                                     // cuSOLVER, cuSPARSE, cuDNN: the handle keeps a stream
//   static constexpr bool stream_is_last_argument = true;  // cuBLASLt: each call takes the stream
//
// set_stream runs before every call, not once: a handle keeps the stream it was given last, and
// other code (another bound_handle of the same handle, a library of the program's own) may have
// given it another since. The traits may skip the set when the handle already has the stream
// (cuBLAS's does: its cublasSetStream also drops a workspace given by cublasSetWorkspace).
// A handle is not thread-safe: one thread calls through it at a time, as the library says.
//
// For a library umsync does not cover (cuFFT, say), in the program's own header:
//
//   template <> struct umsync::bound_handle_traits<cufftHandle> {
//     static void set_stream(cufftHandle plan, cudaStream_t s, std::source_location const& where) {
//       if (cufftSetStream(plan, s) != CUFFT_SUCCESS) throw umsync::usage_error("cufftSetStream failed");
//     }
//   };
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/library_call.hpp>
#include <umsync/stream_view.hpp>

#include <source_location>
#include <type_traits>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

/// How a library handle reaches a stream; specialized for each handle type (see above).
template <class Handle>
struct bound_handle_traits {};

namespace detail {

template <class Handle>
concept handle_keeps_stream = requires(Handle handle, cudaStream_t stream, std::source_location const& where)
{
  bound_handle_traits<Handle>::set_stream(handle, stream, where);
};

template <class Handle>
concept handle_takes_stream_last = bound_handle_traits<Handle>::stream_is_last_argument;

/// The parameters `P...` without the last one.
template <class Done, class... Rest>
struct drop_last;
template <class... Done, class Last>
struct drop_last<parameter_list<Done...>, Last> {
  using type = parameter_list<Done...>;
  using last = Last;
};
template <class... Done, class Head, class Next, class... Rest>
struct drop_last<parameter_list<Done...>, Head, Next, Rest...>
    : drop_last<parameter_list<Done..., Head>, Next, Rest...> {};

/// library_call's callable for `function(handle, P...)` on a handle that keeps its stream: one
/// non-template operator(), so library_call reads the function's own parameter types.
template <class Handle, class R, class... P>
struct keeps_stream_call {
  R (*function)(Handle, P...);
  Handle handle;
  std::source_location where;
  R operator()(cudaStream_t stream, P... parameters) const
  {
    bound_handle_traits<Handle>::set_stream(handle, stream, where);
    return function(handle, parameters...);
  }
};

/// The same for a function whose last parameter is the stream: `function(handle, Q..., stream)`.
template <class Handle, class R, class Function, class Parameters>
struct stream_last_call;
template <class Handle, class R, class Function, class... Q>
struct stream_last_call<Handle, R, Function, parameter_list<Q...>> {
  Function function;
  Handle handle;
  R operator()(cudaStream_t stream, Q... parameters) const { return function(handle, parameters..., stream); }
};

}  // namespace detail

/// `Handle` bound to streams tagged `Tag`: its calls go to that stream, their memory is checked
/// against `Tag`. Does not own the handle, which must outlive it.
template <class Tag, class Handle>
class bound_handle {
 public:
  using tag_type = Tag;
  using handle_type = Handle;

  /// Binds `handle` to `stream`; `where` (this line) is named by the traits' failures.
  template <stream_handle Stream>
  bound_handle(Handle handle, Stream const& stream,
               std::source_location where = std::source_location::current()) noexcept
      : handle_(handle), stream_(stream.get()), where_(where)
  {
    static_assert(std::is_same_v<typename Stream::tag_type, Tag>,
                  "umsync: a bound_handle's stream must have the bound_handle's tag");
    static_assert(
        detail::handle_keeps_stream<Handle> || detail::handle_takes_stream_last<Handle>,
        "umsync: this library handle has no umsync::bound_handle_traits<Handle> (set_stream, or "
        "stream_is_last_argument): include its header (umsync/cublas.hpp) or specialize it (bound_handle.hpp)");
  }

  /// `function(handle, args...)` on the bound stream, each memory argument checked and given
  /// as the raw pointer the function's parameter takes; returns what `function` returns.
  template <class R, class... P, class... Args>
  R call(R (*function)(Handle, P...), Args&&... args) const
  {
    if constexpr (detail::handle_keeps_stream<Handle>) {
      return library_call(stream_, detail::keeps_stream_call<Handle, R, P...>{function, handle_, where_},
                          std::forward<Args>(args)...);
    } else {
      using split = detail::drop_last<detail::parameter_list<>, P...>;
      if constexpr (!std::is_same_v<typename split::last, cudaStream_t>) {
        static_assert(detail::dependent_false<R>, "umsync: a bound_handle whose library takes the stream as the last "
                                                  "argument calls functions whose last parameter is a cudaStream_t");
        return detail::rejected_call<R>();
      } else {
        return library_call(
            stream_, detail::stream_last_call<Handle, R, R (*)(Handle, P...), typename split::type>{function, handle_},
            std::forward<Args>(args)...);
      }
    }
  }

  [[nodiscard]] Handle get() const noexcept { return handle_; }
  [[nodiscard]] stream_view<Tag> stream() const noexcept { return stream_; }

 private:
  Handle handle_;
  stream_view<Tag> stream_;
  std::source_location where_;
};

template <class Handle, stream_handle Stream>
bound_handle(Handle, Stream const&) -> bound_handle<typename Stream::tag_type, Handle>;

UMSYNC_NAMESPACE_END
