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
//   umsync::launch(home, cfg, consume, umsync::torch::as_device_span<float const>(mid, home), ...);
//
// One include for all of umsync/torch/: stream.hpp (stream_of, current_stream), span.hpp
// (as_device_span, as_pinned_span, as_pageable_span), loan.hpp (loan), keep_alive.hpp
// (keep_alive_on), debug_checker.hpp (note_read, note_write, reset_debug_checker).
#pragma once

#include <umsync/torch/debug_checker.hpp>
#include <umsync/torch/keep_alive.hpp>
#include <umsync/torch/loan.hpp>
#include <umsync/torch/span.hpp>
#include <umsync/torch/stream.hpp>
