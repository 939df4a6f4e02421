// umsync/config.hpp: version, toolkit check, build mode and the ABI namespace.
#pragma once

#include <cuda_runtime_api.h>

#define UMSYNC_VERSION_MAJOR 0
#define UMSYNC_VERSION_MINOR 1
#define UMSYNC_VERSION_PATCH 0
#define UMSYNC_VERSION (UMSYNC_VERSION_MAJOR * 10000 + UMSYNC_VERSION_MINOR * 100 + UMSYNC_VERSION_PATCH)

#if !defined(CUDART_VERSION) || CUDART_VERSION < 13000
#  error "umsync: requires the CUDA Toolkit 13.0 or newer (it uses the CUDA 13 location-based memory API)"
#endif

#if !defined(__cplusplus) || __cplusplus < 202002L
#  error "umsync: requires C++20 (nvcc: pass -std=c++20; CMake 3.25 does not pass it for CUDA_STANDARD 20)"
#endif

// UMSYNC_DEBUG turns on the run-time checks that types cannot make (foreign streams,
// use after move, ordering between streams). Debug and release builds live in different
// inline namespaces, so a program that mixes the two fails to link instead of
// misbehaving quietly.
#if defined(UMSYNC_DEBUG)
#  define UMSYNC_DETAIL_ABI debug_v0
#else
#  define UMSYNC_DETAIL_ABI v0
#endif

// UMSYNC_SEPARATE_COMPILATION, defined for every file of a program, makes umsync's cold
// non-template functions (composing messages, the exceptions' constructors and destructors,
// refusing a launch) declarations in its headers, compiled once in the one file that includes
// <umsync/separate_compilation.hpp>, instead of inline functions that the host compiler
// optimizes again in every translation unit that uses them (docs/compile-cost.md). Without
// it, the default, umsync is header-only. UMSYNC_DETAIL_COMPILED marks those functions;
// UMSYNC_DETAIL_COMPILED_BODIES says whether this file sees their bodies.
#if !defined(UMSYNC_SEPARATE_COMPILATION)
#  define UMSYNC_DETAIL_COMPILED inline
#  define UMSYNC_DETAIL_COMPILED_BODIES 1
#elif defined(UMSYNC_DETAIL_COMPILING_SEPARATELY)
#  define UMSYNC_DETAIL_COMPILED
#  define UMSYNC_DETAIL_COMPILED_BODIES 1
#else
#  define UMSYNC_DETAIL_COMPILED
#  define UMSYNC_DETAIL_COMPILED_BODIES 0
#endif

#define UMSYNC_NAMESPACE_BEGIN \
  namespace umsync {           \
  inline namespace UMSYNC_DETAIL_ABI {
#define UMSYNC_NAMESPACE_END \
  }                          \
  }

UMSYNC_NAMESPACE_BEGIN

/// True in builds with UMSYNC_DEBUG defined.
inline constexpr bool debug_build =
#if defined(UMSYNC_DEBUG)
    true;
#else
    false;
#endif

UMSYNC_NAMESPACE_END
