// umsync/sync/detail/ptx_wgmma.hpp: the wgmma instructions umsync's wgmma.hpp issues, as inline
// PTX, until cuda::ptx has them (CCCL 3.0.1 has none; PTX ISA 8.0, sm_90a). One function per
// shape: D (f32, m64 x N) += A (m64 x k16) * B (N x k16)^T, both operands K-major in shared memory
// through 64-bit matrix descriptors, one block per N; on a build
// without sm_90a the call is a link error naming the requirement, as cuda::ptx does.
#pragma once

#include <umsync/config.hpp>

#include <cstddef>
#include <cstdint>

UMSYNC_NAMESPACE_BEGIN
namespace detail {

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
extern "C" __device__ void __umsync_wgmma_needs_sm_90a_build_with_arch_sm_90a();
#endif

/// wgmma.fence.sync.aligned: orders this warpgroup's register accesses before the MMAs after it.
__device__ inline void wgmma_fence() noexcept
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#elif defined(__CUDA_ARCH__)
  __umsync_wgmma_needs_sm_90a_build_with_arch_sm_90a();
#endif
}

/// wgmma.commit_group.sync.aligned: the MMAs issued since the last commit become one group.
__device__ inline void wgmma_commit_group() noexcept
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
#elif defined(__CUDA_ARCH__)
  __umsync_wgmma_needs_sm_90a_build_with_arch_sm_90a();
#endif
}

/// wgmma.wait_group.sync.aligned Pending: at most Pending groups of this warpgroup still run.
template <int Pending>
__device__ void wgmma_wait_group() noexcept
{
  static_assert(Pending >= 0 && Pending <= 7, "umsync: wgmma.wait_group takes 0 to 7 pending groups");
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(Pending) : "memory");
#elif defined(__CUDA_ARCH__)
  __umsync_wgmma_needs_sm_90a_build_with_arch_sm_90a();
#endif
}

/// Keeps the compiler from moving accesses of `value` across the MMAs (an empty asm that reads and
/// writes it), as the accumulators are read and written by instructions it cannot see.
__device__ inline void wgmma_fence_operand(float& value) noexcept { asm volatile("" : "+f"(value)::"memory"); }

/// The input types wgmma.mma_async takes from shared memory, by their PTX names.
enum class wgmma_input { bf16, f16 };

/// One wgmma.mma_async.sync.aligned.m64n<N>k16.f32.<in>.<in>: d += (or =, scale_d 0) a * b^T.
template <std::size_t N, wgmma_input Input>
struct wgmma_m64k16;

// The asm where sm_90a is the target; elsewhere the link error that names the requirement.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#  define UMSYNC_DETAIL_WGMMA_ASM(...) asm volatile(__VA_ARGS__)
#elif defined(__CUDA_ARCH__)
#  define UMSYNC_DETAIL_WGMMA_ASM(...) \
    static_cast<void>(d);              \
    static_cast<void>(a);              \
    static_cast<void>(b);              \
    static_cast<void>(scale_d);        \
    __umsync_wgmma_needs_sm_90a_build_with_arch_sm_90a()
#else
#  define UMSYNC_DETAIL_WGMMA_ASM(...) \
    static_cast<void>(d);              \
    static_cast<void>(a);              \
    static_cast<void>(b);              \
    static_cast<void>(scale_d)
#endif

// m64n64k16: 32 accumulator registers a thread; a, b, scale_d are operands 32, 33, 34.
#define UMSYNC_DETAIL_WGMMA_M64N64K16(input)                                                                           \
  template <>                                                                                                          \
  struct wgmma_m64k16<64, wgmma_input::input> {                                                                        \
    __device__ static void issue(float (&d)[32], std::uint64_t a, std::uint64_t b, int scale_d) noexcept               \
    {                                                                                                                  \
      UMSYNC_DETAIL_WGMMA_ASM(                                                                                         \
          "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                                                 \
          "wgmma.mma_async.sync.aligned.m64n64k16.f32." #input "." #input " "                                          \
          "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
          "%23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, p, 1, 1, 0, 0;\n}\n"                                \
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),            \
            "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),      \
            "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),    \
            "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])     \
          : "l"(a), "l"(b), "r"(scale_d));                                                                             \
    }                                                                                                                  \
  };
UMSYNC_DETAIL_WGMMA_M64N64K16(bf16)
UMSYNC_DETAIL_WGMMA_M64N64K16(f16)
#undef UMSYNC_DETAIL_WGMMA_M64N64K16

// m64n128k16: 64 accumulator registers a thread; a, b, scale_d are operands 64, 65, 66.
#define UMSYNC_DETAIL_WGMMA_M64N128K16(input)                                                                          \
  template <>                                                                                                          \
  struct wgmma_m64k16<128, wgmma_input::input> {                                                                       \
    __device__ static void issue(float (&d)[64], std::uint64_t a, std::uint64_t b, int scale_d) noexcept               \
    {                                                                                                                  \
      UMSYNC_DETAIL_WGMMA_ASM(                                                                                         \
          "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                                 \
          "wgmma.mma_async.sync.aligned.m64n128k16.f32." #input "." #input " "                                         \
          "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
          "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "  \
          "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, %64, " \
          "%65, p, 1, 1, 0, 0;\n}\n"                                                                                   \
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),            \
            "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),      \
            "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),    \
            "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),    \
            "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),    \
            "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),    \
            "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),    \
            "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])     \
          : "l"(a), "l"(b), "r"(scale_d));                                                                             \
    }                                                                                                                  \
  };
UMSYNC_DETAIL_WGMMA_M64N128K16(bf16)
UMSYNC_DETAIL_WGMMA_M64N128K16(f16)
#undef UMSYNC_DETAIL_WGMMA_M64N128K16

// m64n256k16: 128 accumulator registers a thread; a, b, scale_d are operands 128, 129, 130.
#define UMSYNC_DETAIL_WGMMA_M64N256K16(input)                                                                          \
  template <>                                                                                                          \
  struct wgmma_m64k16<256, wgmma_input::input> {                                                                       \
    __device__ static void issue(float (&d)[128], std::uint64_t a, std::uint64_t b, int scale_d) noexcept              \
    {                                                                                                                  \
      UMSYNC_DETAIL_WGMMA_ASM(                                                                                         \
          "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                                \
          "wgmma.mma_async.sync.aligned.m64n256k16.f32." #input "." #input " "                                         \
          "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, " \
          "%23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, "  \
          "%44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, "  \
          "%65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, "  \
          "%86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, " \
          "%106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, "     \
          "%123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 0;\n}\n"                                             \
          : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),            \
            "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),      \
            "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),    \
            "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),    \
            "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),    \
            "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),    \
            "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),    \
            "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),    \
            "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),    \
            "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),    \
            "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),    \
            "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),    \
            "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]),              \
            "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]),          \
            "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]),          \
            "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),          \
            "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])                                                     \
          : "l"(a), "l"(b), "r"(scale_d));                                                                             \
    }                                                                                                                  \
  };
UMSYNC_DETAIL_WGMMA_M64N256K16(bf16)
UMSYNC_DETAIL_WGMMA_M64N256K16(f16)
#undef UMSYNC_DETAIL_WGMMA_M64N256K16

#undef UMSYNC_DETAIL_WGMMA_ASM

}  // namespace detail
UMSYNC_NAMESPACE_END
