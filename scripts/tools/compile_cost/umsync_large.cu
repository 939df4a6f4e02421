// compile-cost, the larger translation unit written with umsync: raw_large.cu's program (three
// tagged streams, eleven buffers, edges instead of events, a dozen kernels, a library call,
// copies and fills), through the umbrella header as a real program would include it.
#include <umsync/umsync.hpp>

#include <cstdio>
#include <utility>

#include "large_kernels.cuh"

namespace {

struct loading {};
struct computing {};
struct optimizing {};

template <class Tag>
using floats = umsync::stream_buffer<float, Tag>;

/// The loader's batch: inputs and labels, made on the loader stream.
void load_batch(umsync::stream<loading> const& loader, floats<loading>& inputs,
                umsync::stream_buffer<int, loading>& labels)
{
  int const n = static_cast<int>(inputs.size());
  umsync::launch(loader, {.grid = blocks_for(n), .block = 256}, fill_ramp, inputs, n);
  umsync::fill(loader, labels, 0);
}

}  // namespace

int main()
{
  int const batch = 64;
  int const features = 512;
  int const hidden = 256;
  int const classes = 16;
  int const steps = 4;

  umsync::stream<loading> loader;
  umsync::stream<computing> compute;
  umsync::stream<optimizing> optimizer;
  umsync::stream_edge loaded(loader, compute);
  umsync::stream_edge computed(compute, optimizer);
  umsync::stream_edge updated(optimizer, compute);

  floats<computing> w1(hidden * features, compute);
  floats<computing> w2(classes * hidden, compute);
  floats<computing> dw1(hidden * features, compute);
  floats<computing> dw2(classes * hidden, compute);
  floats<computing> h(batch * hidden, compute);
  floats<computing> a(batch * hidden, compute);
  floats<computing> logits(batch * classes, compute);
  floats<computing> probs(batch * classes, compute);
  floats<computing> losses(batch, compute);
  floats<computing> total(1, compute);
  floats<computing> dh(batch * hidden, compute);
  umsync::pinned_buffer<float> loss(1);
  umsync::launch(compute, {.grid = blocks_for(hidden * features), .block = 256}, fill_ramp, w1, hidden * features);
  umsync::launch(compute, {.grid = blocks_for(classes * hidden), .block = 256}, fill_ramp, w2, classes * hidden);
  compute.synchronize();

  for (int step = 0; step < steps; ++step) {
    floats<loading> loaded_inputs(batch * features, loader);
    umsync::stream_buffer<int, loading> loaded_labels(batch, loader);
    load_batch(loader, loaded_inputs, loaded_labels);
    auto inputs = loaded.transfer(std::move(loaded_inputs));
    auto labels = loaded.transfer(std::move(loaded_labels));

    umsync::fill(compute, dw1, 0.0f);
    umsync::fill(compute, dw2, 0.0f);
    umsync::fill(compute, total, 0.0f);
    for (int b = 0; b < batch; ++b) {
      umsync::launch(compute, {.grid = blocks_for(hidden), .block = 256}, matvec, w1,
                     inputs.span().subspan(b * features, features), h.span().subspan(b * hidden, hidden), hidden,
                     features);
    }
    umsync::launch(compute, {.grid = blocks_for(batch * hidden), .block = 256}, relu, h, a, batch * hidden);
    for (int b = 0; b < batch; ++b) {
      umsync::launch(compute, {.grid = blocks_for(classes), .block = 256}, matvec, w2,
                     a.span().subspan(b * hidden, hidden), logits.span().subspan(b * classes, classes), classes,
                     hidden);
    }
    umsync::launch(compute, {.grid = blocks_for(batch), .block = 256}, softmax_rows, logits, probs, batch, classes);
    umsync::launch(compute, {.grid = blocks_for(batch), .block = 256}, cross_entropy, probs, labels, losses, batch,
                   classes);
    umsync::launch(compute, {.grid = blocks_for(batch), .block = 256}, sum_reduce, losses, total, batch);
    for (int b = 0; b < batch; ++b) {
      umsync::launch(compute, {.grid = blocks_for(classes * hidden), .block = 256}, outer_accumulate,
                     probs.span().subspan(b * classes, classes), a.span().subspan(b * hidden, hidden), dw2, classes,
                     hidden);
      umsync::launch(compute, {.grid = blocks_for(hidden), .block = 256}, matvec_transposed, w2,
                     probs.span().subspan(b * classes, classes), dh.span().subspan(b * hidden, hidden), classes,
                     hidden);
    }
    umsync::launch(compute, {.grid = blocks_for(batch * hidden), .block = 256}, relu_backward, h, dh, dh,
                   batch * hidden);
    for (int b = 0; b < batch; ++b) {
      umsync::launch(compute, {.grid = blocks_for(hidden * features), .block = 256}, outer_accumulate,
                     dh.span().subspan(b * hidden, hidden), inputs.span().subspan(b * features, features), dw1, hidden,
                     features);
    }
    UMSYNC_CUDA_CHECK(umsync::library_call(  // weight decay
        compute,
        [&](cudaStream_t raw, float const* x, float* y) { return library_axpy(raw, 1e-4f, x, y, hidden * features); },
        w1, dw1));

    auto w1_step = computed.transfer(std::move(w1));
    auto w2_step = computed.transfer(std::move(w2));
    auto dw1_read = computed.share(dw1);
    auto dw2_read = computed.share(dw2);
    umsync::launch(optimizer, {.grid = blocks_for(hidden * features), .block = 256}, sgd_step, w1_step, dw1_read, 0.01f,
                   hidden * features);
    umsync::launch(optimizer, {.grid = blocks_for(classes * hidden), .block = 256}, sgd_step, w2_step, dw2_read, 0.01f,
                   classes * hidden);
    umsync::launch(optimizer, {.grid = blocks_for(classes * hidden), .block = 256}, scale, w2_step, 0.999f,
                   classes * hidden);
    w1 = updated.transfer(std::move(w1_step));
    w2 = updated.transfer(std::move(w2_step));

    umsync::copy_async(loss, total, compute);
    compute.synchronize();
    std::printf("step %d loss %f\n", step, static_cast<double>(loss.data()[0] / batch));
  }
  compute.synchronize();
  optimizer.synchronize();
  return 0;
}
