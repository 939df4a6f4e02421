// compile-cost: the twelve kernels of raw_large.cu and umsync_large.cu, shared so that the two
// programs differ only in how they allocate, order and launch.
#pragma once

#include <cstddef>

__global__ void fill_ramp(float* x, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] = 0.001f * static_cast<float>(i % 1000);
  }
}

__global__ void scale(float* x, float a, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    x[i] *= a;
  }
}

__global__ void axpy(float const* x, float* y, float a, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] += a * x[i];
  }
}

__global__ void relu(float const* x, float* y, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    y[i] = x[i] > 0.0f ? x[i] : 0.0f;
  }
}

__global__ void relu_backward(float const* x, float const* dy, float* dx, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    dx[i] = x[i] > 0.0f ? dy[i] : 0.0f;
  }
}

__global__ void matvec(float const* w, float const* x, float* y, int rows, int cols)
{
  int const r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) {
      sum += w[r * cols + c] * x[c];
    }
    y[r] = sum;
  }
}

__global__ void matvec_transposed(float const* w, float const* dy, float* dx, int rows, int cols)
{
  int const c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c < cols) {
    float sum = 0.0f;
    for (int r = 0; r < rows; ++r) {
      sum += w[r * cols + c] * dy[r];
    }
    dx[c] = sum;
  }
}

__global__ void outer_accumulate(float const* dy, float const* x, float* dw, int rows, int cols)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) {
    dw[i] += dy[i / cols] * x[i % cols];
  }
}

__global__ void softmax_rows(float const* logits, float* probs, int rows, int cols)
{
  int const r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    float top = logits[r * cols];
    for (int c = 1; c < cols; ++c) {
      top = fmaxf(top, logits[r * cols + c]);
    }
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) {
      sum += expf(logits[r * cols + c] - top);
    }
    for (int c = 0; c < cols; ++c) {
      probs[r * cols + c] = expf(logits[r * cols + c] - top) / sum;
    }
  }
}

__global__ void cross_entropy(float const* probs, int const* labels, float* losses, int rows, int cols)
{
  int const r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) {
    losses[r] = -logf(fmaxf(probs[r * cols + labels[r]], 1e-12f));
  }
}

__global__ void sum_reduce(float const* x, float* total, int n)
{
  __shared__ float partial[256];
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  partial[threadIdx.x] = i < n ? x[i] : 0.0f;
  __syncthreads();
  for (unsigned stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      partial[threadIdx.x] += partial[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    atomicAdd(total, partial[0]);
  }
}

__global__ void sgd_step(float* w, float const* dw, float lr, int n)
{
  int const i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    w[i] -= lr * dw[i];
  }
}

/// A stream-taking "library" function, as cuBLAS or CUB would be: y = a * x + y on `stream`.
inline cudaError_t library_axpy(cudaStream_t stream, float a, float const* x, float* y, int n)
{
  axpy<<<(n + 255) / 256, 256, 0, stream>>>(x, y, a, n);
  return cudaGetLastError();
}

inline int blocks_for(int n) { return (n + 255) / 256; }
