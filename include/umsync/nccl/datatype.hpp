// umsync/nccl/datatype.hpp: the NCCL datatype of a C++ element type, fixed at compile time.
//
//   static_assert(umsync::nccl::datatype_of<float> == ncclFloat32);
//   umsync::nccl::datatype_of<bool>;  // error: umsync: NCCL has no datatype for this element type ...
//
// Integers of 1, 4 and 8 bytes map by size and signedness (so int64_t, long and long long all
// map to ncclInt64); float, double, __half, __nv_bfloat16 and the two FP8 formats map to
// their NCCL types. Anything else is a compile error naming the rule, not a silent byte copy.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/dependent_false.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <nccl.h>

#include <type_traits>

UMSYNC_NAMESPACE_BEGIN
namespace nccl {

template <class T>
struct datatype {
  static_assert(umsync::detail::dependent_false<T>,
                "umsync: NCCL has no datatype for this element type; use 8/32/64-bit integers, float, double, "
                "__half, __nv_bfloat16, __nv_fp8_e4m3 or __nv_fp8_e5m2");
};

template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool> && (sizeof(T) == 1 || sizeof(T) == 4 || sizeof(T) == 8))
struct datatype<T> {
  static constexpr ncclDataType_t value = sizeof(T) == 1   ? (std::is_signed_v<T> ? ncclInt8 : ncclUint8)
                                          : sizeof(T) == 4 ? (std::is_signed_v<T> ? ncclInt32 : ncclUint32)
                                                           : (std::is_signed_v<T> ? ncclInt64 : ncclUint64);
};
template <>
struct datatype<float> : std::integral_constant<ncclDataType_t, ncclFloat32> {};
template <>
struct datatype<double> : std::integral_constant<ncclDataType_t, ncclFloat64> {};
template <>
struct datatype<__half> : std::integral_constant<ncclDataType_t, ncclFloat16> {};
template <>
struct datatype<__nv_bfloat16> : std::integral_constant<ncclDataType_t, ncclBfloat16> {};
template <>
struct datatype<__nv_fp8_e4m3> : std::integral_constant<ncclDataType_t, ncclFloat8e4m3> {};
template <>
struct datatype<__nv_fp8_e5m2> : std::integral_constant<ncclDataType_t, ncclFloat8e5m2> {};

/// The NCCL datatype of elements of type T (cv-qualifiers ignored).
template <class T>
inline constexpr ncclDataType_t datatype_of = datatype<std::remove_cv_t<T>>::value;

}  // namespace nccl
UMSYNC_NAMESPACE_END
