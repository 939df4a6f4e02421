// umsync/nccl/collectives.hpp: NCCL all-reduce on typed, stream-bound memory.
//
// A communication stream is an ordinary umsync::stream with its own tag. A gradient bucket
// made on the compute stream crosses to it by a typed edge, is reduced there, and crosses
// back before the optimizer reads it:
//
//   struct compute {};  struct comm {};
//   umsync::stream<compute> cs;  umsync::stream<comm> ns;
//   umsync::stream_dependency to_comm(cs, ns), to_compute(ns, cs);
//   umsync::async_pool_buffer<float, compute> grads(n, cs, pool);
//   umsync::launch(cs, cfg, backward, grads, ...);
//   auto on_comm = to_comm.transfer(std::move(grads));            // event on cs, ns waits
//   umsync::nccl::all_reduce(on_comm, umsync::nccl::reduction::sum, comm, ns);
//   auto reduced = to_compute.transfer(std::move(on_comm));       // event on ns, cs waits
//   umsync::launch(cs, cfg, optimizer_step, reduced, ...);        // freed on cs afterwards
//
//   umsync::nccl::all_reduce(grads, ..., comm, ns);  // grads still bound to compute:
//   // error: umsync: all_reduce on memory bound to another stream; ...
//
// The memory is device memory bound to a stream tag (async_pool_buffer, device_span) or
// untagged device memory (a device_span adopted from a raw pointer). The element type picks
// the NCCL datatype at compile time (datatype.hpp). A failing call throws nccl_error.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/ordering_checker.hpp>
#include <umsync/detail/stream_binding.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/nccl/communicator.hpp>
#include <umsync/nccl/datatype.hpp>
#include <umsync/nccl/nccl_error.hpp>
#include <umsync/stream_view.hpp>

#include <nccl.h>

#include <cstddef>
#include <source_location>
#include <string>
#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace nccl {

/// The built-in NCCL reductions (values are NCCL's, so to_nccl is a cast).
enum class reduction : int {
  sum = ncclSum,
  product = ncclProd,
  max = ncclMax,
  min = ncclMin,
  average = ncclAvg,
};

[[nodiscard]] constexpr ncclRedOp_t to_nccl(reduction op) noexcept { return static_cast<ncclRedOp_t>(op); }

namespace detail {

/// Device memory a collective may take: pool buffers and device spans.
template <class M>
struct collective_memory : std::false_type {};
template <class T, class Tag>
struct collective_memory<async_pool_buffer<T, Tag>> : std::true_type {};
template <class T, class Tag>
struct collective_memory<memory_span<T, memory_kind::device, Tag>> : std::true_type {};

template <class M>
using element_of = std::remove_pointer_t<decltype(std::declval<M&>().data())>;

/// The compile-time rules every memory argument of a collective on `Stream` obeys.
template <class Memory, class Stream>
constexpr bool check_collective_memory()
{
  using plain = std::remove_cvref_t<Memory>;
  static_assert(collective_memory<plain>::value,
                "umsync: NCCL collectives take device memory umsync knows: an async_pool_buffer or a device_span");
  if constexpr (collective_memory<plain>::value) {
    static_assert(umsync::detail::usable_on_stream<umsync::detail::bound_tag_t<plain>, typename Stream::tag_type>,
                  "umsync: all_reduce on memory bound to another stream; cross to the communication stream with "
                  "umsync::stream_dependency::transfer (an event edge) first");
  }
  return true;
}

}  // namespace detail

/// Reduces `buffer` across all ranks of `comm`, in place, on `stream` (ncclAllReduce with the
/// same send and receive buffer). Every rank calls it with the same element count.
template <class Buffer, stream_handle Stream>
void all_reduce(Buffer&& buffer, reduction op, communicator const& comm, Stream const& stream,
                std::source_location where = std::source_location::current())
{
  static_assert(detail::check_collective_memory<Buffer, Stream>());
  using element = detail::element_of<std::remove_reference_t<Buffer>>;
  static_assert(!std::is_const_v<element>,
                "umsync: an in-place all_reduce writes its buffer; a const buffer or a span of const cannot take it");
  if (buffer.size() == 0) {
    return;  // every rank has the same count: all skip alike
  }
  element* const data = buffer.data();
  umsync::detail::debug::note_access(data, stream.get(), umsync::detail::debug::access::write, where);
  check(ncclAllReduce(data, data, buffer.size(), datatype_of<element>, to_nccl(op), comm.get(), stream.get()),
        "ncclAllReduce", comm.get(), where);
}

/// Reduces `send` across all ranks of `comm` into `receive`, on `stream` (ncclAllReduce).
/// Both must have the same element type and count; throws usage_error when the counts differ.
template <class Send, class Receive, stream_handle Stream>
void all_reduce(Send const& send, Receive&& receive, reduction op, communicator const& comm, Stream const& stream,
                std::source_location where = std::source_location::current())
{
  static_assert(detail::check_collective_memory<Send, Stream>());
  static_assert(detail::check_collective_memory<Receive, Stream>());
  using in_element = std::remove_const_t<detail::element_of<Send const>>;
  using out_element = detail::element_of<std::remove_reference_t<Receive>>;
  static_assert(!std::is_const_v<out_element>,
                "umsync: all_reduce writes its receive buffer; a const buffer or a span of const cannot take it");
  static_assert(std::is_same_v<in_element, out_element>,
                "umsync: all_reduce sends and receives the same element type");
  if (send.size() != receive.size()) {
    throw usage_error("all_reduce: send has " + std::to_string(send.size()) + " elements, receive " +
                      std::to_string(receive.size()));
  }
  if (send.size() == 0) {
    return;
  }
  auto const* const in = send.data();
  out_element* const out = receive.data();
  umsync::detail::debug::note_access(in, stream.get(), umsync::detail::debug::access::read, where);
  umsync::detail::debug::note_access(out, stream.get(), umsync::detail::debug::access::write, where);
  check(ncclAllReduce(in, out, send.size(), datatype_of<out_element>, to_nccl(op), comm.get(), stream.get()),
        "ncclAllReduce", comm.get(), where);
}

}  // namespace nccl
UMSYNC_NAMESPACE_END
