// Rule 1, for a bound library handle: its calls run on the bound stream, so memory bound to
// another stream's tag does not compile, as in library_call.
// expect-error: umsync: memory bound to one stream is used on another stream; cross with umsync::stream_edge::transfer (an event edge) first
#include <umsync/cublas.hpp>
#include <umsync/memory/stream_buffer.hpp>

struct compute {};
struct loader {};

cublasStatus_t scale(cublasHandle_t handle, umsync::stream_view<compute> s, umsync::stream_buffer<float, compute>& mine,
                     umsync::stream_buffer<float, loader>& theirs)
{
  umsync::bound_handle const blas(handle, s);
  float const alpha = 2.0F;
  int const n = static_cast<int>(mine.size());
#if defined(UMSYNC_CF_CONTROL)
  static_cast<void>(theirs);
  return blas.call(cublasSscal, n, &alpha, mine, 1);
#else
  static_cast<void>(mine);
  return blas.call(cublasSscal, n, &alpha, theirs, 1);
#endif
}

// cuBLASLt takes the stream as each call's last argument; a library's void* takes any memory's
// bytes (compiled in both builds).
cublasStatus_t multiply(cublasLtHandle_t handle, umsync::stream_view<compute> s, cublasLtMatmulDesc_t desc,
                        cublasLtMatrixLayout_t layout, umsync::stream_buffer<float, compute> const& a,
                        umsync::stream_buffer<float, compute>& c,
                        umsync::stream_buffer<unsigned char, compute>& workspace)
{
  umsync::bound_handle const lt(handle, s);
  float const one = 1.0F;
  float const zero = 0.0F;
  return lt.call(cublasLtMatmul, desc, &one, a, layout, a, layout, &zero, c, layout, c, layout, nullptr, workspace,
                 workspace.size());
}
