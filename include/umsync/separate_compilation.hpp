// umsync/separate_compilation.hpp: umsync's compiled part, for programs built with
// UMSYNC_SEPARATE_COMPILATION (config.hpp). Include it in exactly one source file of the
// program, before any other umsync header (the file needs nothing else):
//
//   // umsync_compiled.cu (or .cpp), compiled with the program's flags
//   #include <umsync/separate_compilation.hpp>
//
// It defines, once, the cold non-template functions the headers then only declare: composing
// messages, the exceptions' constructors, destructors and virtual tables, creating a stream,
// and the cluster and dependent-launch checks. Every other file of the program then compiles
// without them (docs/compile-cost.md). The file must be built with the same UMSYNC_DEBUG
// setting as the rest: debug and release builds live in different inline namespaces, so a
// mismatch fails to link.
#pragma once

#if defined(UMSYNC_NAMESPACE_BEGIN)
#  error \
      "umsync: include <umsync/separate_compilation.hpp> before any other umsync header, in a file of its own (docs/compile-cost.md)"
#endif

#if !defined(UMSYNC_SEPARATE_COMPILATION)
#  define UMSYNC_SEPARATE_COMPILATION
#endif
#define UMSYNC_DETAIL_COMPILING_SEPARATELY

// Every header with a compiled part (a "#if UMSYNC_DETAIL_COMPILED_BODIES" block).
#include <umsync/detail/allocate.hpp>
#include <umsync/detail/capture_check.hpp>
#include <umsync/detail/launch_check.hpp>
#include <umsync/error.hpp>
#include <umsync/stream.hpp>
