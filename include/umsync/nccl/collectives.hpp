// umsync/nccl/collectives.hpp: NCCL all-reduce on typed, stream-bound memory.
//
// A communication stream is an ordinary umsync::stream with its own tag. A gradient bucket
// made on the compute stream crosses to it by a typed edge, is reduced there, and crosses
// back before the optimizer reads it:
//
//   struct compute {};  struct comm {};
//   umsync::stream<compute> cs;  umsync::stream<comm> ns;
//   umsync::stream_edge to_comm(cs, ns), to_compute(ns, cs);
//   umsync::stream_buffer<float, compute> grads(n, cs, pool);
//   umsync::launch(cs, cfg, backward, grads, ...);
//   auto on_comm = to_comm.transfer(std::move(grads));            // event on cs, ns waits
//   umsync::nccl::all_reduce(on_comm, umsync::nccl::reduction::sum, comm, ns);
//   auto reduced = to_compute.transfer(std::move(on_comm));       // event on ns, cs waits
//   umsync::launch(cs, cfg, optimizer_step, reduced, ...);        // freed on cs afterwards
//
//   umsync::nccl::all_reduce(grads, ..., comm, ns);  // grads still bound to compute:
//   // error: umsync: all_reduce on memory bound to another stream; ...
//
// The memory is device memory (memory_range.hpp): bound to a stream tag (stream_buffer,
// device_span<T, Tag>), untagged (a device_span adopted from a raw pointer), or any type whose
// umsync_memory says device. The element type picks the NCCL datatype at compile time
// (datatype.hpp). A failing call throws nccl_error.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/detail/dependent_false.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_range.hpp>
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

/// The memory_span of a collective's argument: device memory used on a stream tagged
/// `StreamTag`. Anything else does not compile, with the rule it breaks.
template <class StreamTag, class Memory>
auto collective_memory(Memory& memory)
{
  if constexpr (!memory_range<Memory>) {
    static_assert(umsync::detail::dependent_false<Memory>,
                  "umsync: NCCL collectives take device memory umsync knows: a stream_buffer, a device_span, "
                  "or a type whose umsync_memory says device");
    return device_span<int>{};
  } else {
    auto const span = memory_of(memory);
    static_assert(decltype(span)::kind == memory_kind::device,
                  "umsync: NCCL collectives take device memory umsync knows: a stream_buffer, a device_span, "
                  "or a type whose umsync_memory says device");
    static_assert(umsync::usable_on_stream<typename decltype(span)::bound_tag_type, StreamTag>,
                  "umsync: all_reduce on memory bound to another stream; cross to the communication stream with "
                  "umsync::stream_edge::transfer (an event edge) first");
    return span;
  }
}

}  // namespace detail

/// Reduces `buffer` across all ranks of `comm`, in place, on `stream` (ncclAllReduce with the
/// same send and receive buffer). Every rank calls it with the same element count.
template <class Buffer, stream_handle Stream>
void all_reduce(Buffer&& buffer, reduction op, communicator const& comm, Stream const& stream,
                std::source_location where = std::source_location::current())
{
  auto const memory = detail::collective_memory<typename Stream::tag_type>(buffer);
  using element = typename decltype(memory)::element_type;
  static_assert(!std::is_const_v<element>,
                "umsync: an in-place all_reduce writes its buffer; a const buffer or a span of const cannot take it");
  if (memory.empty()) {
    return;  // every rank has the same count: all skip alike
  }
  if constexpr (!std::is_const_v<element>) {
    umsync::detail::debug::note_access(memory.data(), memory.size_bytes(), stream.get(),
                                       umsync::detail::debug::access::write, where);
    check(ncclAllReduce(memory.data(), memory.data(), memory.size(), datatype_of<element>, to_nccl(op), comm.get(),
                        stream.get()),
          "ncclAllReduce", comm.get(), where);
  }
}

/// Reduces `send` across all ranks of `comm` into `receive`, on `stream` (ncclAllReduce).
/// Both must have the same element type and count; throws usage_error when the counts differ.
template <class Send, class Receive, stream_handle Stream>
void all_reduce(Send const& send, Receive&& receive, reduction op, communicator const& comm, Stream const& stream,
                std::source_location where = std::source_location::current())
{
  auto const in = detail::collective_memory<typename Stream::tag_type>(send);
  auto const out = detail::collective_memory<typename Stream::tag_type>(receive);
  using in_element = std::remove_const_t<typename decltype(in)::element_type>;
  using out_element = typename decltype(out)::element_type;
  static_assert(!std::is_const_v<out_element>,
                "umsync: all_reduce writes its receive buffer; a const buffer or a span of const cannot take it");
  static_assert(std::is_same_v<in_element, std::remove_const_t<out_element>>,
                "umsync: all_reduce sends and receives the same element type");
  if (in.size() != out.size()) {
    throw usage_error("all_reduce: send has " + std::to_string(in.size()) + " elements, receive " +
                      std::to_string(out.size()));
  }
  if (in.empty()) {
    return;
  }
  if constexpr (!std::is_const_v<out_element>) {
    umsync::detail::debug::note_access(in.data(), in.size_bytes(), stream.get(), umsync::detail::debug::access::read,
                                       where);
    umsync::detail::debug::note_access(out.data(), out.size_bytes(), stream.get(), umsync::detail::debug::access::write,
                                       where);
    check(ncclAllReduce(in.data(), out.data(), in.size(), datatype_of<out_element>, to_nccl(op), comm.get(),
                        stream.get()),
          "ncclAllReduce", comm.get(), where);
  }
}

}  // namespace nccl
UMSYNC_NAMESPACE_END
