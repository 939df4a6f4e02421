// A training step over managed memory: forward, backward and optimizer phases of one linear
// layer with ReLU and a mean-squared-error loss, the GEMMs done by cuBLAS (cublasSgemm, through
// umsync::library_call), each phase advised and prefetched by a umsync::phase_advisor from one
// declared plan, then the work of each phase captured into a CUDA graph and replayed.
//
//   forward:    Z = W X (GEMM), A = relu(Z)
//   backward:   dZ = 2 (A - Y) / (O B) where Z > 0, else 0;   G = dZ X^T (GEMM)
//   optimizer:  W -= lr G
//   checkpoint: the host reads W (to compare it; written only outside the phases)
//
// What the plan allows to capture: a phase entry gives memory advice and prefetches, which a
// capture cannot hold (they would invalidate it; on a capturing_stream enter() does not compile,
// test/phase/compile_fail/phase_entry_on_capturing_stream.cu). So the step stays three phase entries
// on the stream, and each phase's kernels and GEMMs become one graph, captured once inside that
// phase's scope (whose views are const where the phase only reads) and launched inside it at
// every step. The GEMMs go through umsync::library_call, which checks each buffer against the
// stream's tag as a launch does and hands the callable the raw stream (the captured one during a
// capture): inside it the handle gets that stream (cublasSetStream) and then a workspace of our
// own (cublasSetWorkspace, after cublasSetStream, which resets it): otherwise cuBLAS may
// allocate its workspace inside the capture, and umsync's capture_scope::end() refuses a graph
// whose allocations outlive it.
//
// Runs `steps` steps from the same random weights three ways: on the stream, as graph replays,
// and on the host in double precision; checks both GPU results against the host (float GEMM
// tolerance) and against each other, prints per-step times and GEMM throughput. Exits 0 only if
// every check passes.
#include "support/example_main.hpp"

#include <umsync/library_call.hpp>
#include <umsync/timed_event.hpp>
#include <umsync/umsync.hpp>

#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <exception>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct compute {};  // the stream tag

struct forward {};  // phases
struct backward {};
struct optimizer {};
struct checkpoint {};

struct weights {};  // buffers: W (O x D) | inputs: X (D x B), Y (O x B) | activations: Z, A (O x B each)
struct inputs {};   //          grads: G (O x D), dZ (O x B)
struct activations {};
struct grads {};

// The phases and accesses of the phase tests' plan (test/support/training_plan.hpp), with the
// inputs one more buffer and a backward that does not read W (one layer: no gradient to pass back).
using training = umsync::phase_plan<
    umsync::phase<forward, umsync::uses<weights, umsync::device_read>, umsync::uses<inputs, umsync::device_read>,
                  umsync::uses<activations, umsync::device_read_write>>,
    umsync::phase<backward, umsync::uses<inputs, umsync::device_read>, umsync::uses<activations, umsync::device_read>,
                  umsync::uses<grads, umsync::device_read_write>>,
    umsync::phase<optimizer, umsync::uses<weights, umsync::device_read_write>,
                  umsync::uses<grads, umsync::device_read>>,
    umsync::phase<checkpoint, umsync::uses<weights, umsync::host_read>>>;
static_assert(training::read_mostly_in<forward, weights> && !training::read_mostly_in<optimizer, weights> &&
              training::read_mostly_in<checkpoint, weights>);

// Column-major sizes: W is O x D, X is D x B.
constexpr int dim_in = 512;   // D
constexpr int dim_out = 256;  // O
constexpr int batch = 256;    // B
constexpr int steps = 3;
constexpr float learning_rate = 1.0F;
constexpr std::size_t w_size = std::size_t(dim_out) * dim_in;
constexpr std::size_t x_size = std::size_t(dim_in) * batch;
constexpr std::size_t y_size = std::size_t(dim_out) * batch;

constexpr umsync::launch_config elementwise{.grid = 264, .block = 256};

void check_cublas(cublasStatus_t status, char const* call)
{
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string("cuBLAS call failed: ") + call + ": " + cublasGetStatusName(status) + " (" +
                             cublasGetStatusString(status) + ")");
  }
}
#define TRAINING_CUBLAS_CHECK(...) check_cublas((__VA_ARGS__), #__VA_ARGS__)

// A = relu(Z); act holds Z then A.
__global__ void relu(float* act, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    act[n + i] = fmaxf(act[i], 0.0F);
  }
}

// dZ = 2 (A - Y) / n where Z > 0; io holds X then Y, act Z then A, grad G then dZ.
__global__ void loss_gradient(float const* io, float const* act, float* grad, std::size_t n)
{
  float const* y = io + x_size;
  float* dz = grad + w_size;
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    dz[i] = act[i] > 0.0F ? 2.0F * (act[n + i] - y[i]) / static_cast<float>(n) : 0.0F;
  }
}

__global__ void sgd(float* w, float const* grad, float lr, std::size_t n)
{
  for (std::size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += std::size_t(gridDim.x) * blockDim.x) {
    w[i] -= lr * grad[i];
  }
}

// cuBLAS with our own workspace, so that captured GEMMs allocate nothing (32 MiB: cuBLAS's
// recommendation for Hopper).
struct blas_context {
  cublasHandle_t handle;
  umsync::stream_buffer<std::byte, compute>& workspace;
};

// Points the handle at the stream a library_call gives (`raw`: the stream itself, or the same
// stream while it is captured) and then at our workspace, which cublasSetStream resets to
// cuBLAS's own. Called inside each call: a handle keeps the last stream it was given.
cublasStatus_t use_stream(cublasHandle_t blas, cudaStream_t raw, std::byte* workspace, std::size_t bytes)
{
  cublasStatus_t const status = cublasSetStream(blas, raw);
  return status != CUBLAS_STATUS_SUCCESS ? status : cublasSetWorkspace(blas, workspace, bytes);
}

// Each phase's work, on `s` (a plain stream, or a capturing_stream while a graph is captured).
// The GEMMs go through umsync::library_call: each buffer is checked against the stream's tag and
// noted as read (float const*) or written (float*) for UMSYNC_DEBUG's ordering checker.
template <class Scope, umsync::stream_handle Stream>
void forward_work(Scope const& scope, Stream const& s, blas_context const& blas)
{
  auto const w = scope.template view<weights>();  // const: the phase only reads W
  auto const io = scope.template view<inputs>();
  auto const act = scope.template view<activations>();
  check_cublas(umsync::library_call(
                   s,
                   [&](cudaStream_t raw, std::byte* workspace, float const* w_in, float const* x, float* z) {
                     cublasStatus_t const status = use_stream(blas.handle, raw, workspace, blas.workspace.size_bytes());
                     float const one = 1.0F;
                     float const zero = 0.0F;
                     return status != CUBLAS_STATUS_SUCCESS
                                ? status
                                : cublasSgemm(blas.handle, CUBLAS_OP_N, CUBLAS_OP_N, dim_out, batch, dim_in, &one, w_in,
                                              dim_out, x, dim_in, &zero, z, dim_out);
                   },
                   blas.workspace, w, io.first(x_size), act.first(y_size)),
               "cublasSgemm (forward: Z = W X)");
  umsync::launch(s, elementwise, relu, act, y_size);
}

template <class Scope, umsync::stream_handle Stream>
void backward_work(Scope const& scope, Stream const& s, blas_context const& blas)
{
  auto const io = scope.template view<inputs>();
  auto const act = scope.template view<activations>();  // const here: backward only reads them
  auto const grad = scope.template view<grads>();
  umsync::launch(s, elementwise, loss_gradient, io, act, grad, y_size);
  check_cublas(umsync::library_call(
                   s,
                   [&](cudaStream_t raw, std::byte* workspace, float const* dz, float const* x, float* g) {
                     cublasStatus_t const status = use_stream(blas.handle, raw, workspace, blas.workspace.size_bytes());
                     float const one = 1.0F;
                     float const zero = 0.0F;
                     return status != CUBLAS_STATUS_SUCCESS
                                ? status
                                : cublasSgemm(blas.handle, CUBLAS_OP_N, CUBLAS_OP_T, dim_out, dim_in, batch, &one, dz,
                                              dim_out, x, dim_in, &zero, g, dim_out);
                   },
                   blas.workspace, grad.subspan(w_size), io.first(x_size), grad.first(w_size)),
               "cublasSgemm (backward: G = dZ X^T)");
}

template <class Scope, umsync::stream_handle Stream>
void optimizer_work(Scope const& scope, Stream const& s)
{
  umsync::launch(s, elementwise, sgd, scope.template view<weights>(), scope.template view<grads>(), learning_rate,
                 w_size);
}

// The host reference, in double precision; returns the loss of each step.
std::vector<double> reference_steps(std::vector<double>& w, std::vector<float> const& io)
{
  std::vector<double> losses;
  std::vector<double> z(y_size);
  std::vector<double> dz(y_size);
  for (int step = 0; step < steps; ++step) {
    std::fill(z.begin(), z.end(), 0.0);
    for (int b = 0; b < batch; ++b) {
      for (int k = 0; k < dim_in; ++k) {
        double const x = io[std::size_t(b) * dim_in + k];
        for (int o = 0; o < dim_out; ++o) {
          z[std::size_t(b) * dim_out + o] += w[std::size_t(k) * dim_out + o] * x;
        }
      }
    }
    double loss = 0;
    for (std::size_t i = 0; i < y_size; ++i) {
      double const a = std::max(z[i], 0.0);
      double const diff = a - io[x_size + i];
      loss += diff * diff;
      dz[i] = z[i] > 0 ? 2.0 * diff / double(y_size) : 0.0;
    }
    losses.push_back(loss / double(y_size));
    for (int k = 0; k < dim_in; ++k) {  // W -= lr dZ X^T
      for (int b = 0; b < batch; ++b) {
        double const x = io[std::size_t(b) * dim_in + k];
        for (int o = 0; o < dim_out; ++o) {
          w[std::size_t(k) * dim_out + o] -= learning_rate * dz[std::size_t(b) * dim_out + o] * x;
        }
      }
    }
  }
  return losses;
}

struct comparison {
  std::size_t wrong = 0;
  double max_abs = 0;
  std::size_t first = 0;
};

template <class A, class B>
comparison compare(A const& got, B const& want, double atol, double rtol)
{
  comparison c;
  for (std::size_t i = 0; i < w_size; ++i) {
    double const diff = std::abs(double(got[i]) - double(want[i]));
    c.max_abs = std::max(c.max_abs, diff);
    if (!(diff <= atol + rtol * std::abs(double(want[i])))) {  // NaN counts as wrong
      c.first = c.wrong == 0 ? i : c.first;
      ++c.wrong;
    }
  }
  return c;
}

}  // namespace

int main()
{
  return umsync_example::run("training_step", [&](umsync::device_probe const&) {
    int const device = umsync::current_device();
    if (!umsync::capabilities(device).managed_memory) {
      std::fprintf(stderr, "training_step: device %d has no managed memory; this example needs it\n", device);
      return 1;
    }
    umsync::stream<compute> s;

    // Fresh random weights and batch, written on the host before any phase.
    std::mt19937 rng{std::random_device{}()};
    std::uniform_real_distribution<float> unit(-1.0F, 1.0F);
    umsync::managed_buffer<float> w(w_size);
    umsync::managed_buffer<float> io(x_size + y_size);
    umsync::managed_buffer<float> act(2 * y_size);
    umsync::managed_buffer<float> grad(w_size + y_size);
    std::vector<float> w0(w_size);
    float const scale = 1.0F / std::sqrt(float(dim_in));
    for (auto& x : w0) {
      x = unit(rng) * scale;
    }
    std::copy(w0.begin(), w0.end(), w.begin());
    for (std::size_t i = 0; i < x_size + y_size; ++i) {
      io[i] = i < x_size ? unit(rng) : 0.5F * (unit(rng) + 1.0F);
    }
    std::fill(act.begin(), act.end(), 0.0F);  // initialized pages: no tool reads garbage
    std::fill(grad.begin(), grad.end(), 0.0F);

    auto advisor = umsync::make_phase_advisor<training>(umsync::bind_buffer<weights>(w),
                                                        umsync::bind_buffer<inputs>(io),
                                                        umsync::bind_buffer<activations>(act),
                                                        umsync::bind_buffer<grads>(grad));
    std::printf("training_step: %s", advisor.describe().c_str());

    cublasHandle_t handle = nullptr;
    TRAINING_CUBLAS_CHECK(cublasCreate(&handle));
    struct blas_guard {
      cublasHandle_t handle;
      ~blas_guard() { static_cast<void>(cublasDestroy(handle)); }
    } const guard{handle};
    TRAINING_CUBLAS_CHECK(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH));  // full FP32, no TF32
    umsync::stream_buffer<std::byte, compute> workspace(std::size_t{32} << 20U, s);
    blas_context const blas{handle, workspace};

    // The checkpoint reads W on the host: read-mostly stays on, so the device keeps its copy.
    auto const read_weights = [&] {
      auto scope = advisor.enter<checkpoint>(s);
      scope.stream().synchronize();
      std::span<float const> const host_w = scope.view<weights>();
      return std::vector<float>(host_w.begin(), host_w.end());
    };
    // A restore is no checkpoint: the host writes W outside any phase, as it did before the first
    // one, after the checkpoint's synchronize (nothing on the stream is using W); the next forward
    // prefetches it back.
    auto const reset_weights = [&] { std::copy(w0.begin(), w0.end(), w.begin()); };

    // 1. On the stream. The first run also loads cuBLAS's kernels, before any capture.
    std::vector<double> stream_ms;
    for (int step = 0; step < steps; ++step) {
      umsync::timed_event start;
      umsync::timed_event stop;
      start.record(s);
      {
        auto scope = advisor.enter<forward>(s);
        forward_work(scope, s, blas);
      }
      {
        auto scope = advisor.enter<backward>(s);
        backward_work(scope, s, blas);
      }
      {
        auto scope = advisor.enter<optimizer>(s);
        optimizer_work(scope, s);
      }
      stop.record(s);
      stop.synchronize();
      stream_ms.push_back(static_cast<double>((stop - start).count()));
    }
    std::vector<float> const w_stream = read_weights();

    // 2. Captured: one graph per phase, captured inside the phase's scope (no advice or
    // prefetch happens during a capture), then replayed for every step.
    reset_weights();
    auto capture = [&](auto&& work) {
      umsync::capture_scope scope(s);
      work(scope.stream());
      return scope.end();
    };
    umsync::graph forward_graph = [&] {
      auto phase = advisor.enter<forward>(s);
      return capture([&](auto const& cs) { forward_work(phase, cs, blas); });
    }();
    umsync::graph backward_graph = [&] {
      auto phase = advisor.enter<backward>(s);
      return capture([&](auto const& cs) { backward_work(phase, cs, blas); });
    }();
    umsync::graph optimizer_graph = [&] {
      auto phase = advisor.enter<optimizer>(s);
      return capture([&](auto const& cs) { optimizer_work(phase, cs); });
    }();
    std::printf("training_step: graphs: forward %zu nodes, backward %zu, optimizer %zu (kernel nodes %zu, %zu, %zu)\n",
                forward_graph.node_count(), backward_graph.node_count(), optimizer_graph.node_count(),
                forward_graph.count_nodes(cudaGraphNodeTypeKernel), backward_graph.count_nodes(cudaGraphNodeTypeKernel),
                optimizer_graph.count_nodes(cudaGraphNodeTypeKernel));
    umsync::graph_exec const forward_exec(forward_graph);
    umsync::graph_exec const backward_exec(backward_graph);
    umsync::graph_exec const optimizer_exec(optimizer_graph);
    forward_exec.upload(s);
    backward_exec.upload(s);
    optimizer_exec.upload(s);
    std::vector<double> graph_ms;
    for (int step = 0; step < steps; ++step) {
      umsync::timed_event start;
      umsync::timed_event stop;
      start.record(s);
      {
        auto scope = advisor.enter<forward>(s);
        forward_exec.launch(s);
      }
      {
        auto scope = advisor.enter<backward>(s);
        backward_exec.launch(s);
      }
      {
        auto scope = advisor.enter<optimizer>(s);
        optimizer_exec.launch(s);
      }
      stop.record(s);
      stop.synchronize();
      graph_ms.push_back(static_cast<double>((stop - start).count()));
    }
    std::vector<float> const w_graph = read_weights();

    // 3. The host reference.
    std::vector<double> w_ref(w0.begin(), w0.end());
    std::vector<float> const io_host(io.begin(), io.end());
    std::vector<double> const losses = reference_steps(w_ref, io_host);

    comparison const stream_vs_host = compare(w_stream, w_ref, 3e-5, 1e-4);
    comparison const graph_vs_host = compare(w_graph, w_ref, 3e-5, 1e-4);
    comparison const graph_vs_stream = compare(w_graph, w_stream, 1e-6, 1e-5);
    bool const identical = std::memcmp(w_graph.data(), w_stream.data(), w_size * sizeof(float)) == 0;

    double const gemm_flops = 2.0 * 2.0 * double(dim_out) * dim_in * batch;  // two GEMMs per step
    std::printf("training_step: W %dx%d, batch %d, %d steps; host loss per step:", dim_out, dim_in, batch, steps);
    for (double const l : losses) {
      std::printf(" %.6f", l);
    }
    std::printf("\ntraining_step: step time (ms, phase entries included)  stream:");
    for (double const t : stream_ms) {
      std::printf(" %.3f", t);
    }
    std::printf("  graph:");
    for (double const t : graph_ms) {
      std::printf(" %.3f", t);
    }
    double const best_stream = *std::min_element(stream_ms.begin(), stream_ms.end());
    double const best_graph = *std::min_element(graph_ms.begin(), graph_ms.end());
    std::printf("\ntraining_step: best step: stream %.3f ms (%.1f GFLOP/s), graph %.3f ms (%.1f GFLOP/s)\n",
                best_stream, gemm_flops / (best_stream * 1e6), best_graph, gemm_flops / (best_graph * 1e6));
    auto const report = [](char const* what, comparison const& c, auto const& got, auto const& want) {
      std::printf("training_step: %-16s %zu of %zu weights outside tolerance, max |diff| %.3g", what, c.wrong, w_size,
                  c.max_abs);
      if (c.wrong != 0) {
        std::printf(" (first at %zu: %.9g vs %.9g)", c.first, double(got[c.first]), double(want[c.first]));
      }
      std::printf("\n");
    };
    report("stream vs host:", stream_vs_host, w_stream, w_ref);
    report("graph vs host:", graph_vs_host, w_graph, w_ref);
    report("graph vs stream:", graph_vs_stream, w_graph, w_stream);
    std::printf("training_step: graph replay bitwise identical to the stream run: %s\n", identical ? "yes" : "no");
    bool const pass = stream_vs_host.wrong == 0 && graph_vs_host.wrong == 0 && graph_vs_stream.wrong == 0;
    std::printf("training_step: %s\n", pass ? "PASS" : "FAIL");
    s.synchronize();
    return pass ? 0 : 1;
  });
}
