// umsync/torch.hpp: umsync inside a PyTorch C++/CUDA extension (optional; needs PyTorch's C++
// headers built with CUDA, and -std=c++20: docs/torch.md). Left out of umsync.hpp and of the
// header check of builds without PyTorch.
//
//   struct torch_stream {};  struct side {};                     // stream tags the extension picks
//   auto home = umsync::torch::current_stream<torch_stream>();   // at::cuda::getCurrentCUDAStream()
//   auto on_side = umsync::torch::stream_of<side>(at::cuda::getStreamFromPool());
//   at::Tensor mid = at::empty_like(x);                          // allocated on torch's stream
//   {
//     umsync::torch::loan to_side(home, on_side);                // on_side waits for home
//     umsync::launch(on_side, cfg, produce, to_side.lend<float const>(x), to_side.lend<float>(mid), n);
//   }                                                            // home waits for on_side
//   umsync::launch(home, cfg, consume, umsync::torch::device_span<float const>(mid, home), ...);
//
// PyTorch's caching allocator (c10/cuda/CUDACachingAllocator.cpp) keeps each block with the
// stream it was allocated on: when a tensor is freed, its block goes back to that stream's pool at
// once and the next allocation on that stream may get it, ordered after nothing but that stream's
// own work (DeviceCachingAllocator::free -> free_block). Work on another stream that still reads
// or writes the tensor then races with the new owner. Tensor::record_stream(s) makes free()
// record an event on s and hold the block until it completes (insert_events, process_events).
// umsync's rule instead: a tensor used on a side stream returns to its home stream through a typed
// edge (a loan, given back in its destructor) before it may be freed, so the allocator's own rule
// is enough and record_stream is not needed. keep_alive_on() is the explicit record_stream path,
// for memory that must stay in use on the other stream without the home stream waiting.
//
// Every span is checked at run time against the tensor: dtype against the element type,
// contiguity, device kind (CUDA, pinned or pageable CPU) and device index against the stream's
// device; a failure throws umsync::usage_error naming the tensor's dtype, device, sizes and
// strides (a RuntimeError in Python). UMSYNC_DEBUG builds note each tensor use to the ordering
// checker (detail/debug/), so an unordered use of a tensor on two streams throws ordering_error
// naming both call sites; note_read/note_write add uses made by PyTorch's own ops.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/debug/checker_hooks.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_edge.hpp>
#include <umsync/stream_view.hpp>

#include <ATen/core/Tensor.h>
#include <c10/core/ScalarType.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/cuda/CUDAStream.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstddef>
#include <cstdint>
#include <source_location>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(UMSYNC_DEBUG)
#  include <map>
#  include <mutex>
#endif

UMSYNC_NAMESPACE_BEGIN
namespace torch {
namespace detail {

/// The ScalarType a tensor viewed as elements of T must have.
template <class T>
struct scalar_type_of : c10::CppTypeToScalarType<T> {};
template <>
struct scalar_type_of<__half> : std::integral_constant<c10::ScalarType, c10::ScalarType::Half> {};
template <>
struct scalar_type_of<__nv_bfloat16> : std::integral_constant<c10::ScalarType, c10::ScalarType::BFloat16> {};

template <class T>
inline constexpr c10::ScalarType scalar_type_v = scalar_type_of<std::remove_cv_t<T>>::value;

/// Where a span says the tensor's memory is.
enum class place { device, pinned_host, pageable_host };

inline std::string describe_sizes(c10::IntArrayRef values)
{
  std::string text = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : ", ") + std::to_string(values[i]);
  }
  return text + "]";
}

/// "dtype Half, device cuda:1, sizes [4, 8], strides [1, 4]" (and pinned or pageable for CPU).
inline std::string describe_tensor(at::Tensor const& tensor)
{
  if (!tensor.defined()) {
    return "an undefined tensor";
  }
  std::string text = std::string("dtype ") + c10::toString(tensor.scalar_type()) + ", device " + tensor.device().str() +
                     ", sizes " + describe_sizes(tensor.sizes()) + ", strides " + describe_sizes(tensor.strides());
  if (tensor.device().is_cpu()) {
    text += tensor.is_pinned() ? " (pinned)" : " (pageable)";
  }
  return text;
}

[[noreturn]] inline void refuse(std::string const& call, std::string const& problem, at::Tensor const& tensor,
                                std::source_location const& where)
{
  throw usage_error("umsync::torch::" + call + " at " + umsync::detail::describe_location(where) + ": " + problem +
                    "; the tensor: " + describe_tensor(tensor));
}

/// The device `stream` belongs to (cudaStreamGetDevice; the legacy and per-thread default
/// streams belong to the current device).
inline int device_of_stream(cudaStream_t stream, std::source_location const& where)
{
  int device = 0;
  if (stream == nullptr || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
    check(cudaGetDevice(&device), "cudaGetDevice", where);
  } else {
    check(cudaStreamGetDevice(stream, &device), "cudaStreamGetDevice", where);
  }
  return device;
}

/// Throws usage_error unless `tensor` can be viewed as contiguous elements of T at `expected`
/// (on CUDA device `device` for place::device).
template <class T>
void check_tensor(at::Tensor const& tensor, place expected, int device, char const* call,
                  std::source_location const& where)
{
  std::string const name = std::string(call) + "<" + c10::toString(scalar_type_v<T>) + ">";
  if (!tensor.defined()) {
    refuse(name, "the tensor is undefined", tensor, where);
  }
  if (tensor.scalar_type() != scalar_type_v<T>) {
    refuse(name,
           std::string("the tensor's dtype is ") + c10::toString(tensor.scalar_type()) + ", not " +
               c10::toString(scalar_type_v<T>) + " (the span's element type)",
           tensor, where);
  }
  if (!tensor.is_contiguous()) {
    refuse(name, "the tensor is not contiguous (a span is one run of elements): pass tensor.contiguous()", tensor,
           where);
  }
  if (expected == place::device) {
    if (!tensor.is_cuda()) {
      refuse(name, "a CUDA tensor is required, and this one is on " + tensor.device().str(), tensor, where);
    }
    if (tensor.get_device() != device) {
      refuse(name,
             "the tensor is on cuda:" + std::to_string(tensor.get_device()) + " but the stream belongs to cuda:" +
                 std::to_string(device) + " (a stream of another device than the tensor's)",
             tensor, where);
    }
  } else {
    if (!tensor.device().is_cpu()) {
      refuse(name, "a CPU tensor is required, and this one is on " + tensor.device().str(), tensor, where);
    }
    if (expected == place::pinned_host && !tensor.is_pinned()) {
      refuse(name,
             "the CPU tensor is pageable, not pinned: an async copy of it would block the host (pin it: "
             "tensor.pin_memory(), or copy it with umsync::copy_sync_pageable through pageable_span)",
             tensor, where);
    }
  }
}

template <class T>
T* data_of(at::Tensor const& tensor)
{
  return static_cast<T*>(tensor.data_ptr());
}

#if defined(UMSYNC_DEBUG)
/// UMSYNC_DEBUG: the storages whose memory the checker has seen, by their base address. PyTorch
/// frees a storage without telling umsync, and its caching allocator hands the same address out
/// again; a new storage at a known address is told apart by identity (a weak reference keeps the
/// old StorageImpl object, not its memory). When the old storage's memory was kept alive with
/// keep_alive_on (record_stream), the allocator waited for the recorded streams before reusing
/// it: the old uses are forgotten. Otherwise they stay, and a use of the new tensor that is not
/// ordered after them is reported: it is the hazard itself.
class storage_registry {
 public:
  static storage_registry& instance()
  {
    static storage_registry registry;
    return registry;
  }

  void seen(at::Tensor const& tensor, bool kept_alive)
  {
    c10::Storage const& storage = tensor.storage();
    void const* const base = storage.data();
    if (base == nullptr) {
      return;
    }
    std::size_t const bytes = storage.nbytes();
    c10::StorageImpl const* const impl = storage.unsafeGetStorageImpl();
    std::lock_guard lock(mutex_);
    auto const found = entries_.find(base);
    if (found == entries_.end()) {
      umsync::detail::debug::note_allocated(base, bytes);
      entries_.emplace(base, entry{storage.getWeakStorageImpl(), impl, kept_alive});
      return;
    }
    entry& known = found->second;
    if (!known.storage.expired() && known.impl == impl) {
      known.kept_alive = known.kept_alive || kept_alive;
      return;
    }
    if (known.kept_alive) {
      umsync::detail::debug::note_allocated(base, bytes);  // forgets the old uses: the allocator waited
    }
    known = entry{storage.getWeakStorageImpl(), impl, kept_alive};
  }

  void reset()
  {
    std::lock_guard lock(mutex_);
    entries_.clear();
  }

 private:
  struct entry {
    c10::weak_intrusive_ptr<c10::StorageImpl> storage;
    c10::StorageImpl const* impl;
    bool kept_alive;
  };
  std::mutex mutex_;
  std::map<void const*, entry> entries_;
};
#endif

/// UMSYNC_DEBUG: `stream` uses `tensor`'s memory (read or write) at `where`.
inline void note_tensor_use(at::Tensor const& tensor, cudaStream_t stream, umsync::detail::debug::access kind,
                            std::source_location const& where, bool kept_alive = false)
{
#if defined(UMSYNC_DEBUG)
  if (!tensor.defined() || !tensor.is_cuda() || tensor.numel() == 0) {
    return;
  }
  storage_registry::instance().seen(tensor, kept_alive);
  umsync::detail::debug::note_access(tensor.data_ptr(), tensor.nbytes(), stream, kind, where);
#else
  static_cast<void>(tensor);
  static_cast<void>(stream);
  static_cast<void>(kind);
  static_cast<void>(where);
  static_cast<void>(kept_alive);
#endif
}

template <class T>
constexpr umsync::detail::debug::access access_of() noexcept
{
  return std::is_const_v<T> ? umsync::detail::debug::access::read : umsync::detail::debug::access::write;
}

/// PyTorch's handle for the stream umsync's view names (record_stream takes one).
inline c10::cuda::CUDAStream torch_stream_of(cudaStream_t handle, int device)
{
  auto const index = static_cast<c10::DeviceIndex>(device);
  if (handle == nullptr || handle == cudaStreamLegacy) {
    return c10::cuda::getDefaultCUDAStream(index);
  }
  return c10::cuda::getStreamFromExternal(handle, index);
}

}  // namespace detail

/// A PyTorch stream as a umsync stream view tagged `Tag`. PyTorch names its default stream with a
/// null cudaStream_t, which it means as the legacy default stream: the view names that stream
/// explicitly (cudaStreamLegacy), as umsync never adopts a null handle. That handle means the
/// current device's legacy stream, so the default stream of another device than the current one
/// throws usage_error (make that device current first: c10::cuda::CUDAGuard).
template <class Tag = untagged>
[[nodiscard]] inline stream_view<Tag> stream_of(c10::cuda::CUDAStream const& stream,
                                                std::source_location where = std::source_location::current())
{
  cudaStream_t const handle = stream.stream();
  if (handle == nullptr) {
    c10::DeviceIndex const current = c10::cuda::current_device();
    if (stream.device_index() != current) {
      throw usage_error("umsync::torch::stream_of at " + umsync::detail::describe_location(where) +
                        ": the default stream of cuda:" + std::to_string(stream.device_index()) +
                        " while cuda:" + std::to_string(current) +
                        " is the current device (a stream of another device); its handle would name the current "
                        "device's stream: make cuda:" +
                        std::to_string(stream.device_index()) + " current first (c10::cuda::CUDAGuard)");
    }
    return stream_view<Tag>{cudaStreamLegacy};
  }
  return stream_view<Tag>{handle};
}

/// PyTorch's current stream of `device` (-1: the current device), at::cuda::getCurrentCUDAStream,
/// as a view tagged `Tag`: the stream torch's own ops run on, and allocate on.
template <class Tag = untagged>
[[nodiscard]] inline stream_view<Tag> current_stream(c10::DeviceIndex device = -1,
                                                     std::source_location where = std::source_location::current())
{
  return stream_of<Tag>(c10::cuda::getCurrentCUDAStream(device), where);
}

/// `tensor`'s elements as a span of device memory bound to `stream`'s tag (T const: read-only),
/// for umsync::launch and the copies on that stream. Throws usage_error unless the tensor is a
/// contiguous CUDA tensor of T's dtype on the stream's device. The tensor must outlive the work
/// queued with the span: for a stream other than the tensor's allocating one, lend it (loan).
template <class T, stream_handle Stream>
[[nodiscard]] umsync::device_span<T, typename Stream::tag_type> device_span(
    at::Tensor const& tensor, Stream const& stream, std::source_location where = std::source_location::current())
{
  int const device = detail::device_of_stream(stream.get(), where);
  detail::check_tensor<T>(tensor, detail::place::device, device, "device_span", where);
  detail::note_tensor_use(tensor, stream.get(), detail::access_of<T>(), where);
  return umsync::device_span<T, typename Stream::tag_type>::adopt(detail::data_of<T>(tensor),
                                                                  static_cast<std::size_t>(tensor.numel()));
}

/// A pinned CPU tensor's elements as a pinned_span, for umsync::copy_async. A pageable CPU
/// tensor is refused (usage_error): an async copy of it would block the host.
template <class T>
[[nodiscard]] umsync::pinned_span<T> pinned_span(at::Tensor const& tensor,
                                                 std::source_location where = std::source_location::current())
{
  detail::check_tensor<T>(tensor, detail::place::pinned_host, -1, "pinned_span", where);
  return umsync::pinned_span<T>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
}

/// A CPU tensor's elements (pinned or not) as a pageable_span, for umsync::copy_sync_pageable.
template <class T>
[[nodiscard]] umsync::pageable_span<T> pageable_span(at::Tensor const& tensor,
                                                     std::source_location where = std::source_location::current())
{
  detail::check_tensor<T>(tensor, detail::place::pageable_host, -1, "pageable_span", where);
  return umsync::pageable_span<T>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
}

/// UMSYNC_DEBUG: `stream` reads (writes) `tensor` at `where`, through PyTorch's own ops, which the
/// checker does not see otherwise. Nothing in release builds.
template <stream_handle Stream>
void note_read(at::Tensor const& tensor, Stream const& stream,
               std::source_location where = std::source_location::current())
{
  detail::note_tensor_use(tensor, stream.get(), umsync::detail::debug::access::read, where);
}
template <stream_handle Stream>
void note_write(at::Tensor const& tensor, Stream const& stream,
                std::source_location where = std::source_location::current())
{
  detail::note_tensor_use(tensor, stream.get(), umsync::detail::debug::access::write, where);
}

/// UMSYNC_DEBUG: forgets everything the ordering checker knows (tests that start afresh).
inline void reset_debug_checker()
{
#if defined(UMSYNC_DEBUG)
  umsync::detail::debug::ordering_checker::instance().reset();
  detail::storage_registry::instance().reset();
#endif
}

/// Tensors of the `Home` stream (the one they were allocated on: PyTorch's current stream) lent to
/// a `Side` stream, and given back through a typed edge before they may be freed.
///
/// The constructor makes `side` wait for everything queued on `home` so far (the tensors' contents,
/// and the home stream's last uses of memory the allocator has handed out again). lend<T>(tensor)
/// keeps a reference to the tensor and returns its span bound to `Side`. give_back(), or the
/// destructor, makes `home` wait for everything queued on `side` so far and drops the references:
/// a free that follows is ordered after the side stream's work, so the block the allocator hands
/// to the next allocation on `home` is no longer in use (no record_stream needed). Lend only
/// tensors whose home-stream work was queued before the loan was made.
template <class Home, class Side>
class loan {
 public:
  loan(stream_view<Home> home, stream_view<Side> side, std::source_location where = std::source_location::current())
      : to_side_(home, side, where), back_home_(side, home, where)
  {
    device_ = detail::device_of_stream(side.get(), where);
    int const home_device = detail::device_of_stream(home.get(), where);
    if (home_device != device_) {
      throw usage_error("umsync::torch::loan at " + umsync::detail::describe_location(where) +
                        ": the home stream belongs to cuda:" + std::to_string(home_device) +
                        " and the side stream to cuda:" + std::to_string(device_) +
                        " (a stream of another device); lend tensors between streams of one device");
    }
    to_side_.edge(where);
  }
  loan(loan const&) = delete;
  loan& operator=(loan const&) = delete;

  ~loan()
  {
    if (open_) {
      try {
        give_back();
      } catch (error const& failure) {
        umsync::detail::report_in_destructor(failure);
      } catch (...) {
      }
    }
  }

  /// `tensor` as a span bound to the side stream (T const: read-only), kept alive until the loan
  /// is given back. Throws usage_error when the tensor does not fit T (dtype, contiguity, a CUDA
  /// tensor of the streams' device), or when the loan was given back already.
  template <class T>
  [[nodiscard]] umsync::device_span<T, Side> lend(at::Tensor const& tensor,
                                                  std::source_location where = std::source_location::current())
  {
    if (!open_) {
      throw usage_error("umsync::torch::loan::lend at " + umsync::detail::describe_location(where) +
                        ": the loan was given back; make a new loan");
    }
    detail::check_tensor<T>(tensor, detail::place::device, device_, "loan::lend", where);
    tensors_.push_back(tensor);
    detail::note_tensor_use(tensor, to_side_.to().get(), detail::access_of<T>(), where);
    return umsync::device_span<T, Side>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
  }

  /// The edge back: the home stream waits for the side stream's work so far; the tensors may be
  /// freed afterwards. Nothing the second time.
  void give_back(std::source_location where = std::source_location::current())
  {
    if (!open_) {
      return;
    }
    back_home_.edge(where);
    open_ = false;
    tensors_.clear();
  }

  [[nodiscard]] stream_view<Home> home() const noexcept { return to_side_.from(); }
  [[nodiscard]] stream_view<Side> side() const noexcept { return to_side_.to(); }

 private:
  stream_edge<Home, Side> to_side_;
  stream_edge<Side, Home> back_home_;
  std::vector<at::Tensor> tensors_;
  int device_ = 0;
  bool open_ = true;
};

template <class Home, class Side>
loan(stream_view<Home>, stream_view<Side>) -> loan<Home, Side>;

/// The explicit record_stream path: `side` waits for `home`'s work so far, then
/// `tensor.record_stream(side)` tells the caching allocator that the tensor is used on `side`, so
/// that its block is reused only after the side stream's work queued before the free completes.
/// The home stream never waits for the side stream: right for memory that must stay in use on the
/// other stream (a communication or copy stream that outlives the home stream's use). Returns the
/// tensor's span bound to `side`.
template <class T, stream_handle HomeStream, stream_handle SideStream>
[[nodiscard]] umsync::device_span<T, typename SideStream::tag_type> keep_alive_on(
    at::Tensor const& tensor, HomeStream const& home, SideStream const& side,
    std::source_location where = std::source_location::current())
{
  using home_tag = typename HomeStream::tag_type;
  using side_tag = typename SideStream::tag_type;
  int const device = detail::device_of_stream(side.get(), where);
  int const home_device = detail::device_of_stream(home.get(), where);
  if (home_device != device) {
    throw usage_error("umsync::torch::keep_alive_on at " + umsync::detail::describe_location(where) +
                      ": the home stream belongs to cuda:" + std::to_string(home_device) +
                      " and the side stream to cuda:" + std::to_string(device) + " (a stream of another device)");
  }
  detail::check_tensor<T>(tensor, detail::place::device, device, "keep_alive_on", where);
  stream_edge<home_tag, side_tag> contents(stream_view<home_tag>{home.get()}, stream_view<side_tag>{side.get()}, where);
  contents.edge(where);
  tensor.record_stream(detail::torch_stream_of(side.get(), device));
  detail::note_tensor_use(tensor, side.get(), detail::access_of<T>(), where, true);
  return umsync::device_span<T, side_tag>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
}

}  // namespace torch
UMSYNC_NAMESPACE_END
