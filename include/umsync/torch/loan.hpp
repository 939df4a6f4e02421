// umsync/torch/loan.hpp: tensors of PyTorch's allocating stream lent to a side stream and given
// back through a typed edge before they may be freed.
//
//   at::Tensor mid = at::empty_like(x);                          // allocated on torch's stream
//   {
//     umsync::torch::loan to_side(home, on_side);                // on_side waits for home
//     umsync::launch(on_side, cfg, produce, to_side.lend<float const>(x), to_side.lend<float>(mid), n);
//   }                                                            // home waits for on_side
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
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/stream_edge.hpp>
#include <umsync/stream_view.hpp>
#include <umsync/torch/detail/tensor_check.hpp>
#include <umsync/torch/detail/tensor_use.hpp>

#include <ATen/core/Tensor.h>

#include <cstddef>
#include <source_location>
#include <string>
#include <vector>

UMSYNC_NAMESPACE_BEGIN
namespace torch {

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
      throw usage_error("umsync::torch::loan at ", where, ": the home stream belongs to cuda:", home_device,
                        " and the side stream to cuda:", device_,
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
        detail::report_in_destructor(failure);
      } catch (...) {
      }
    }
  }

  /// `tensor` as a span bound to the side stream (T const: read-only), kept alive until the loan
  /// is given back. Throws usage_error when the tensor does not fit T (dtype, contiguity, a CUDA
  /// tensor of the streams' device), or when the loan was given back already.
  template <class T>
  [[nodiscard]] device_span<T, Side> lend(at::Tensor const& tensor,
                                          std::source_location where = std::source_location::current())
  {
    if (!open_) {
      throw usage_error("umsync::torch::loan::lend at ", where, ": the loan was given back; make a new loan");
    }
    detail::check_tensor<T>(tensor, detail::place::device, device_, "loan::lend", where);
    tensors_.push_back(tensor);
    detail::note_tensor_use(tensor, to_side_.to().get(), detail::access_of<T>(), where);
    return device_span<T, Side>::adopt(detail::data_of<T>(tensor), static_cast<std::size_t>(tensor.numel()));
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

}  // namespace torch
UMSYNC_NAMESPACE_END
