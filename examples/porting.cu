// Porting C-style CUDA to umsync, before and after in one file (docs/porting.md walks through it).
//
// `before` is written as llm.c's train_gpt2_fp32.cu writes it: launchers that take no stream (so
// everything runs on the legacy default stream), a global cuBLAS handle, one cudaMalloc sliced into
// the activation tensors, a model whose activation memory is NULL until the first forward pass,
// and a bias pointer that may be NULL. `after` is the same program in umsync: the stream is the
// first parameter of every launcher, tensors are device spans tagged with that stream, the sliced
// allocation is one stream_buffer whose slices keep kind and tag, the lazy memory is an empty
// buffer, the optional bias an empty span. The kernels do not change.
//
// Runs one MLP step (fch = inp W^T + bias, fch_gelu = gelu(fch)) both ways on the same random
// inputs, with and without the bias, and checks that the outputs agree; exits 0 only then.
#include "support/example_main.hpp"

#include <umsync/umsync.hpp>

// Typed fills, float4 views and nullptr arguments (docs/porting.md, "Vectorized kernels, memsets,
// null pointers"): compiled where umsync has them.
#if __has_include(<umsync/memory/fill.hpp>) && __has_include(<umsync/memory/reinterpret_span.hpp>)
#  include <umsync/memory/fill.hpp>
#  include <umsync/memory/reinterpret_span.hpp>
#  define UMSYNC_PORTING_EXTRAS 1
#endif

// A cuBLAS handle bound to the stream once (docs/porting.md, "A cuBLAS call"): compiled where
// umsync has it.
#if __has_include(<umsync/cublas.hpp>)
#  include <umsync/cublas.hpp>
#  define UMSYNC_PORTING_BOUND_HANDLE 1
#endif

#include <cublas_v2.h>

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

int ceil_div(int n, int d) { return (n + d - 1) / d; }

void check_cublas(cublasStatus_t status, char const* call)
{
  if (status != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(call) + ": " + cublasGetStatusName(status));
  }
}

// The kernels, as llm.c has them: a port leaves them alone.
__global__ void gelu_forward_kernel(float* out, float const* inp, int N)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    float const xi = inp[i];
    float const cube = 0.044715F * xi * xi * xi;
    out[i] = 0.5F * xi * (1.0F + tanhf(sqrtf(2.0F / 3.14159265F) * (xi + cube)));
  }
}

__global__ void add_bias(float* out, float const* bias, int B, int T, int OC)
{
  int const idx = blockIdx.x * blockDim.x + threadIdx.x;
  int const stride = blockDim.x * gridDim.x;
  for (int i = idx; i < B * T * OC; i += stride) {
    out[i] += bias[i % OC];
  }
}

#if defined(UMSYNC_PORTING_EXTRAS)
// A vectorized kernel, as llm.c's are: float memory read as float4.
__global__ void residual_forward_kernel4(float4* out, float4 const* inp, int N4)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N4) {
    float4 const a = out[i];
    float4 const b = inp[i];
    out[i] = make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
  }
}

// An optional pointer parameter: null means "no scale".
__global__ void scale_kernel(float* out, float const* scale, int N)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < N) {
    out[i] *= scale != nullptr ? *scale : 1.0F;
  }
}
#endif

constexpr int B = 4, T = 64, C = 128, OC = 4 * C;

namespace before {

cublasHandle_t cublas_handle;  // global, like llm.c's; it runs on the legacy default stream

void gelu_forward(float* out, float const* inp, int N)
{
  int const block_size = 128;
  int const grid_size = ceil_div(N, block_size);
  gelu_forward_kernel<<<grid_size, block_size>>>(out, inp, N);
  UMSYNC_CUDA_CHECK(cudaGetLastError());
}

void matmul_forward(float* out, float const* inp, float const* weight, float const* bias, int B, int T, int C, int OC)
{
  float const alpha = 1.0F, beta = 0.0F;
  check_cublas(cublasSgemm(cublas_handle, CUBLAS_OP_T, CUBLAS_OP_N, OC, B * T, C, &alpha, weight, C, inp, C, &beta, out,
                           OC),
               "cublasSgemm");
  if (bias != NULL) {  // llm.c spells it NULL
    add_bias<<<ceil_div(B * T * OC, 256), 256>>>(out, bias, B, T, OC);
    UMSYNC_CUDA_CHECK(cudaGetLastError());
  }
}

struct ActivationTensors {
  float* ln;        // (B, T, C)
  float* fch;       // (B, T, OC)
  float* fch_gelu;  // (B, T, OC)
};
constexpr std::size_t num_activation_tensors = 3;

float* malloc_and_point_activations(ActivationTensors* acts, std::size_t const* act_sizes)
{
  std::size_t num_activations = 0;
  for (std::size_t i = 0; i < num_activation_tensors; i++) {
    num_activations += act_sizes[i];
  }
  float* acts_memory = nullptr;
  UMSYNC_CUDA_CHECK(cudaMalloc(&acts_memory, num_activations * sizeof(float)));
  float** ptrs[] = {&acts->ln, &acts->fch, &acts->fch_gelu};
  float* acts_memory_iterator = acts_memory;
  for (std::size_t i = 0; i < num_activation_tensors; i++) {
    *(ptrs[i]) = acts_memory_iterator;
    acts_memory_iterator += act_sizes[i];
  }
  return acts_memory;
}

struct Model {
  float* weight;  // (OC, C)
  float* bias;    // (OC), or NULL
  ActivationTensors acts;
  std::size_t act_sizes[num_activation_tensors];
  float* acts_memory;  // NULL until the first forward pass
};

void forward(Model* model, float const* inputs)
{
  if (model->acts_memory == NULL) {  // llm.c spells it NULL
    model->act_sizes[0] = std::size_t(B) * T * C;
    model->act_sizes[1] = std::size_t(B) * T * OC;
    model->act_sizes[2] = std::size_t(B) * T * OC;
    model->acts_memory = malloc_and_point_activations(&model->acts, model->act_sizes);
  }
  UMSYNC_CUDA_CHECK(cudaMemcpy(model->acts.ln, inputs, model->act_sizes[0] * sizeof(float), cudaMemcpyHostToDevice));
  matmul_forward(model->acts.fch, model->acts.ln, model->weight, model->bias, B, T, C, OC);
  gelu_forward(model->acts.fch_gelu, model->acts.fch, B * T * OC);
}

}  // namespace before

namespace after {

struct compute {};  // the tag of the model's stream

using tensor = umsync::device_span<float, compute>;  // device memory bound to compute's stream
using const_tensor = umsync::device_span<float const, compute>;

// The stream is the launcher's first parameter: a stream_view is a copyable, tagged handle.
void gelu_forward(umsync::stream_view<compute> s, tensor out, const_tensor inp, int N)
{
  int const block_size = 128;
  int const grid_size = ceil_div(N, block_size);
  umsync::launch(s, {.grid = dim3(grid_size), .block = dim3(block_size)}, gelu_forward_kernel, out, inp, N);
}

void matmul_forward(umsync::stream_view<compute> s, cublasHandle_t blas, tensor out, const_tensor inp,
                    const_tensor weight, const_tensor bias, int B, int T, int C, int OC)
{
  float const alpha = 1.0F, beta = 0.0F;
  check_cublas(umsync::library_call(
                   s,
                   [&](cudaStream_t raw, float* o, float const* i, float const* w) {
                     cublasStatus_t const set = cublasSetStream(blas, raw);  // the handle keeps the last stream
                     return set != CUBLAS_STATUS_SUCCESS ? set
                                                         : cublasSgemm(blas, CUBLAS_OP_T, CUBLAS_OP_N, OC, B * T, C,
                                                                       &alpha, w, C, i, C, &beta, o, OC);
                   },
                   out, inp, weight),
               "cublasSgemm");
  if (!bias.empty()) {  // the optional bias: an empty span, where llm.c passes NULL
    umsync::launch(s, {.grid = dim3(ceil_div(B * T * OC, 256)), .block = dim3(256)}, add_bias, out, bias, B, T, OC);
  }
}

// Views into one allocation, as llm.c's pointers are; each keeps the kind, tag and bounds of the
// buffer it was cut from, and the buffer must outlive them.
struct activation_tensors {
  tensor ln;        // (B, T, C)
  tensor fch;       // (B, T, OC)
  tensor fch_gelu;  // (B, T, OC)
};

activation_tensors point_activations(tensor memory, std::array<std::size_t, 3> const& sizes)
{
  activation_tensors acts;
  tensor* ptrs[] = {&acts.ln, &acts.fch, &acts.fch_gelu};
  for (std::size_t i = 0; i < sizes.size(); i++) {
    *ptrs[i] = memory.first(sizes[i]);  // out of range throws umsync::out_of_range
    memory = memory.subspan(sizes[i]);
  }
  return acts;
}

struct model {
  explicit model(umsync::stream_view<compute> s) : acts_memory(0, s) {}

  const_tensor weight;  // (OC, C)
  const_tensor bias;    // (OC), or empty
  std::array<std::size_t, 3> act_sizes{};
  umsync::stream_buffer<float, compute> acts_memory;  // empty (0 elements) until the first forward
  activation_tensors acts;                            // empty spans until then
};

void forward(model& m, umsync::stream_view<compute> s, cublasHandle_t blas, std::vector<float> const& inputs)
{
  if (m.acts_memory.empty()) {
    m.act_sizes = {std::size_t(B) * T * C, std::size_t(B) * T * OC, std::size_t(B) * T * OC};
    m.acts_memory = umsync::stream_buffer<float, compute>(m.act_sizes[0] + m.act_sizes[1] + m.act_sizes[2], s);
    m.acts = point_activations(m.acts_memory.span(), m.act_sizes);
  }
  umsync::copy_sync_pageable(m.acts.ln, inputs, s);  // a std::vector is pageable: the blocking copy
  matmul_forward(s, blas, m.acts.fch, m.acts.ln, m.weight, m.bias, B, T, C, OC);
  gelu_forward(s, m.acts.fch_gelu, m.acts.fch, B * T * OC);
}

#if defined(UMSYNC_PORTING_BOUND_HANDLE)
// The same GEMM through a handle bound to the stream once: one line, the memory still checked.
void matmul_forward_bound(umsync::bound_handle<compute, cublasHandle_t> const& blas, tensor out, const_tensor inp,
                          const_tensor weight, int B, int T, int C, int OC)
{
  float const alpha = 1.0F, beta = 0.0F;
  check_cublas(blas.call(cublasSgemm, CUBLAS_OP_T, CUBLAS_OP_N, OC, B * T, C, &alpha, weight, C, inp, C, &beta, out,
                         OC),
               "cublasSgemm");
}
#endif

#if defined(UMSYNC_PORTING_EXTRAS)
// out = 1 + inp, where llm.c would write cudaMemset, (float4*) casts and a NULL argument.
void extras(umsync::stream_view<compute> s, tensor out, const_tensor inp, int N)
{
  int const block_size = 256;
  umsync::fill(s, out, 1.0F);  // was cudaMemsetAsync (bytes only) or a fill kernel
  umsync::launch(s, {.grid = dim3(ceil_div(N / 4, block_size)), .block = dim3(block_size)}, residual_forward_kernel4,
                 umsync::reinterpret_span<float4>(out), umsync::reinterpret_span<float4 const>(inp),
                 N / 4);  // was (float4*)out, (const float4*)inp
  umsync::launch(s, {.grid = dim3(ceil_div(N, block_size)), .block = dim3(block_size)}, scale_kernel, out, nullptr,
                 N);  // no scale: nullptr, not NULL
}
#endif

}  // namespace after

std::vector<float> random_floats(std::size_t n, std::mt19937& rng)
{
  std::uniform_real_distribution<float> d(-1.0F, 1.0F);
  std::vector<float> v(n);
  for (float& x : v) {
    x = d(rng);
  }
  return v;
}

int compare(char const* what, std::vector<float> const& expected, std::vector<float> const& got)
{
  double worst = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    worst = std::fmax(worst, std::fabs(double(expected[i]) - got[i]) / (1.0 + std::fabs(double(expected[i]))));
  }
  bool const ok = worst <= 1e-5;
  std::printf("porting: %s: before and after agree to %.2g (%s)\n", what, worst, ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}

int run_both(std::mt19937& rng, bool with_bias)
{
  std::size_t const w_size = std::size_t(OC) * C;
  std::size_t const out_size = std::size_t(B) * T * OC;
  std::vector<float> const weight = random_floats(w_size, rng);
  std::vector<float> const bias = random_floats(OC, rng);
  std::vector<float> const inputs = random_floats(std::size_t(B) * T * C, rng);
  std::vector<float> expected(out_size, std::nanf(""));
  std::vector<float> got(out_size, std::nanf(""));
  int extras_failed = 0;

  // before: the legacy default stream, raw pointers.
  check_cublas(cublasCreate(&before::cublas_handle), "cublasCreate");
  before::Model m{};
  UMSYNC_CUDA_CHECK(cudaMalloc(&m.weight, w_size * sizeof(float)));
  UMSYNC_CUDA_CHECK(cudaMemcpy(m.weight, weight.data(), w_size * sizeof(float), cudaMemcpyHostToDevice));
  if (with_bias) {
    UMSYNC_CUDA_CHECK(cudaMalloc(&m.bias, OC * sizeof(float)));
    UMSYNC_CUDA_CHECK(cudaMemcpy(m.bias, bias.data(), OC * sizeof(float), cudaMemcpyHostToDevice));
  }
  before::forward(&m, inputs.data());
  UMSYNC_CUDA_CHECK(cudaMemcpy(expected.data(), m.acts.fch_gelu, out_size * sizeof(float), cudaMemcpyDeviceToHost));
  UMSYNC_CUDA_CHECK(cudaFree(m.acts_memory));
  UMSYNC_CUDA_CHECK(cudaFree(m.bias));
  UMSYNC_CUDA_CHECK(cudaFree(m.weight));
  check_cublas(cublasDestroy(before::cublas_handle), "cublasDestroy");

  // after: one tagged stream, buffers bound to it.
  umsync::stream<after::compute> s;
  cublasHandle_t blas = nullptr;
  check_cublas(cublasCreate(&blas), "cublasCreate");
  {
    umsync::stream_buffer<float, after::compute> w(w_size, s);
    umsync::stream_buffer<float, after::compute> b(with_bias ? OC : 0, s);
    umsync::copy_sync_pageable(w, weight, s);
    if (with_bias) {
      umsync::copy_sync_pageable(b, bias, s);
    }
    after::model m2(s);
    m2.weight = std::as_const(w).span();
    m2.bias = std::as_const(b).span();
    after::forward(m2, s, blas, inputs);
    umsync::copy_sync_pageable(got, m2.acts.fch_gelu, s);
#if defined(UMSYNC_PORTING_BOUND_HANDLE)
    if (!with_bias) {  // the bound handle's GEMM, then gelu: the same result as the lambda's
      umsync::bound_handle bound(blas, s);
      after::matmul_forward_bound(bound, m2.acts.fch, m2.acts.ln, m2.weight, B, T, C, OC);
      after::gelu_forward(s, m2.acts.fch_gelu, m2.acts.fch, B * T * OC);
      std::vector<float> again(out_size, std::nanf(""));
      umsync::copy_sync_pageable(again, m2.acts.fch_gelu, s);
      extras_failed |= compare("bound cuBLAS handle", got, again);
    }
#endif
#if defined(UMSYNC_PORTING_EXTRAS)
    std::vector<float> sum(out_size, std::nanf(""));
    after::extras(s, m2.acts.fch, m2.acts.fch_gelu, int(out_size));
    umsync::copy_sync_pageable(sum, m2.acts.fch, s);
    std::vector<float> one_plus(out_size);
    for (std::size_t i = 0; i < out_size; ++i) {
      one_plus[i] = 1.0F + got[i];
    }
    extras_failed |= compare("fill, float4 view, nullptr", one_plus, sum);
#endif
  }
  s.synchronize();
  check_cublas(cublasDestroy(blas), "cublasDestroy");
  return compare(with_bias ? "with bias" : "without bias (NULL / empty span)", expected, got) | extras_failed;
}

}  // namespace

int main()
{
  return umsync_example::run("porting", [](umsync::device_probe const&) {
    std::mt19937 rng{std::random_device{}()};
    return run_both(rng, true) | run_both(rng, false);
  });
}
