// umsync/cublas.hpp: cuBLAS and cuBLASLt handles bound to a tagged stream (bound_handle.hpp).
//
//   cublasHandle_t handle;  cublasCreate(&handle);
//   umsync::bound_handle blas(handle, s);                                     // bound_handle<compute, cublasHandle_t>
//   cublasStatus_t const status = blas.call(cublasSgemm, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, a, m, b, k,
//                                           &zero, c, m);
//   umsync::bound_handle lt(lt_handle, s);                                    // bound_handle<compute, cublasLtHandle_t>
//   lt.call(cublasLtMatmul, desc, &one, a, a_layout, b, b_layout, &zero, c, c_layout, c, c_layout, &algo,
//           workspace, workspace_bytes);                                      // the stream goes last, by umsync
//
// Included on its own (not by umsync/umsync.hpp): it includes cuBLAS's headers, and the program
// links CUDA::cublas (and CUDA::cublasLt for cuBLASLt).
//
// A cublasHandle_t keeps the stream it was given last, and cublasSetStream also resets the
// handle's workspace to cuBLAS's default pool (one per stream). So before each call the traits
// ask the handle for its stream (cublasGetStream, a host read) and set it only when it differs:
// a workspace given with cublasSetWorkspace after binding stays while the handle stays on the
// bound stream, and a handle moved to another stream by other code is moved back, its workspace
// then cuBLAS's default. cuBLASLt's handle keeps no stream: each cublasLt call takes it last.
#pragma once

#include <umsync/bound_handle.hpp>
#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <cublasLt.h>
#include <cublas_v2.h>

#include <source_location>
#include <string>

UMSYNC_NAMESPACE_BEGIN

template <>
struct bound_handle_traits<cublasHandle_t> {
  static void set_stream(cublasHandle_t handle, cudaStream_t stream, std::source_location const& where)
  {
    cudaStream_t current = nullptr;
    if (cublasGetStream(handle, &current) == CUBLAS_STATUS_SUCCESS && current == stream) {
      return;
    }
    cublasStatus_t const status = cublasSetStream(handle, stream);
    if (status != CUBLAS_STATUS_SUCCESS) {
      throw usage_error("cublasSetStream failed with ", cublasGetStatusName(status),
                        " (a handle made by cublasCreate?), for the bound_handle at ", where);
    }
  }
};

template <>
struct bound_handle_traits<cublasLtHandle_t> {
  static constexpr bool stream_is_last_argument = true;
};

UMSYNC_NAMESPACE_END
