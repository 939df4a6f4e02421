#!/usr/bin/env python3
"""The header changes docs/compile-cost.md measured, as edits to a copy of include/.

    python3 scripts/compile-cost/experiments.py OUT_DIR [--rev REV] STEP...
    bash scripts/compile-cost.sh --include OUT_DIR/include --only raw,umsync_all,umsync_lean

Exports include/ of git revision REV (default b30968d, the code the steps were written
against) into OUT_DIR/include and applies the named steps in order. Each step edits exact text
of that revision and stops with "pattern not found" where the code has moved on: the steps
document what was measured, they are not a patch to apply blindly. Steps (see each function's
docstring): checker, stream_ref, chrono, chrono_out_of_umbrella, pool_no_device, device_light, atomic, ranges, managed_iter, optional, messages, algorithm, tuple, core_umbrella, no_cuda_h, nostring. "full" stands for every API-neutral step (FULL below).
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
root = None  # OUT_DIR/include/umsync, set by main()


def rd(p):
    return open(os.path.join(root, p)).read()


def wr(p, s):
    open(os.path.join(root, p), "w").write(s)


def sub(p, old, new, count=1):
    s = rd(p)
    if old not in s:
        raise SystemExit(f"{p}: pattern not found: {old[:100]!r}")
    wr(p, s.replace(old, new, count))


def drop_include(p, h):
    s = rd(p)
    s2 = re.sub(r'^#include <' + re.escape(h) + r'>[^\n]*\n', '', s, flags=re.M)
    if s == s2:
        raise SystemExit(f"{p}: no #include <{h}>")
    wr(p, s2)


def step_checker():
    """Release builds see empty note_* hooks; the checker (map, mutex, optional, algorithm) is
    included only with UMSYNC_DEBUG, through detail/debug/notes.hpp."""
    wr("detail/debug/notes.hpp", '''// umsync/detail/debug/notes.hpp: the hooks umsync's types call for the UMSYNC_DEBUG checker.
// Release builds get empty functions and do not include the checker.
#pragma once

#include <umsync/config.hpp>

#if defined(UMSYNC_DEBUG)
#  include <umsync/detail/debug/ordering_checker.hpp>
#else
#  include <source_location>

UMSYNC_NAMESPACE_BEGIN
namespace detail::debug {
enum class access { read, write, free };
inline void note_access(void const*, void const*, access, std::source_location const&) noexcept {}
inline void note_record(void const*, void const*) noexcept {}
inline void note_wait(void const*, void const*) noexcept {}
inline void note_host_waited_for_stream(void const*) noexcept {}
inline void note_host_waited_for_event(void const*) noexcept {}
inline void note_stream_destroyed(void const*) noexcept {}
inline void note_event_destroyed(void const*) noexcept {}
}  // namespace detail::debug
UMSYNC_NAMESPACE_END
#endif
''')
    for dirpath, _, files in os.walk(root):
        for f in files:
            p = os.path.relpath(os.path.join(dirpath, f), root)
            if p.startswith("detail/debug/"):
                continue
            s = rd(p)
            if "<umsync/detail/debug/ordering_checker.hpp>" in s:
                wr(p, s.replace("<umsync/detail/debug/ordering_checker.hpp>", "<umsync/detail/debug/notes.hpp>"))


def step_stream_ref():
    """No <cuda/stream_ref>: a constrained conversion template reaches cuda::stream_ref (any class
    implicitly constructible from cudaStream_t with get() -> cudaStream_t) where the user has it."""
    drop_include("stream_view.hpp", "cuda/stream_ref")
    sub("stream_view.hpp", "template <class Tag = untagged>\nclass stream_view {",
        '''namespace detail {
/// A foreign non-owning stream reference, such as cuda::stream_ref, that views and streams
/// convert to without umsync including it: a class implicitly constructible from cudaStream_t
/// whose get() returns it. (umsync's own types construct from cudaStream_t explicitly only.)
template <class R>
concept foreign_stream_ref = std::is_class_v<R> && std::is_convertible_v<cudaStream_t, R> &&
                             requires(R const& r) {
                               { r.get() } -> std::same_as<cudaStream_t>;
                             };
}  // namespace detail

template <class Tag = untagged>
class stream_view {''')
    sub("stream_view.hpp",
        "  operator cuda::stream_ref() const noexcept { return cuda::stream_ref{handle_}; }  // NOLINT: CCCL interop",
        "  template <detail::foreign_stream_ref Ref>\n  operator Ref() const noexcept  // NOLINT: CCCL interop (cuda::stream_ref)\n"
        "  {\n    return Ref(handle_);\n  }")
    sub("stream.hpp",
        "  operator cuda::stream_ref() const& { return cuda::stream_ref{get()}; }  // NOLINT: CCCL interop",
        "  template <detail::foreign_stream_ref Ref>\n  operator Ref() const&  // NOLINT: CCCL interop (cuda::stream_ref)\n"
        "  {\n    return Ref(get());\n  }")


def step_chrono():
    """timed_event, the only user of <chrono>, moves to umsync/timed_event.hpp (umbrella keeps it)."""
    s = rd("event.hpp")
    i = s.index("/// An event that also records a timestamp.")
    j = s.index("UMSYNC_NAMESPACE_END", i)
    timed = s[i:j]
    wr("event.hpp", (s[:i] + s[j:]).replace("#include <chrono>\n", ""))
    wr("timed_event.hpp", "// umsync/timed_event.hpp: an event that records a timestamp.\n#pragma once\n\n"
       "#include <umsync/config.hpp>\n#include <umsync/error.hpp>\n#include <umsync/event.hpp>\n\n"
       "#include <chrono>\n#include <source_location>\n\nUMSYNC_NAMESPACE_BEGIN\n\n" + timed + "UMSYNC_NAMESPACE_END\n")
    sub("umsync.hpp", "#include <umsync/stream_view.hpp>\n",
        "#include <umsync/stream_view.hpp>\n#include <umsync/timed_event.hpp>\n")


def step_chrono_out_of_umbrella():
    """umsync.hpp does not include timed_event.hpp."""
    sub("umsync.hpp", "#include <umsync/timed_event.hpp>\n", "")


def step_pool_no_device():
    """memory_pool.hpp does not include device.hpp (it uses nothing of it); async_pool_buffer asks
    cudaGetDevice itself when it describes the default pool."""
    drop_include("memory/memory_pool.hpp", "umsync/device.hpp")
    sub("memory/async_pool_buffer.hpp", "memory_pool_ref::device_default(current_device())",
        "memory_pool_ref::device_default(detail::current_device_or_zero())")
    sub("memory/async_pool_buffer.hpp", "namespace detail {\n",
        "namespace detail {\n\ninline int current_device_or_zero() noexcept\n{\n  int device = 0;\n"
        "  static_cast<void>(cudaGetDevice(&device));\n  return device;\n}\n", 1)


def step_device_light():
    """device.hpp: the capabilities cache without <map>, <memory>, <mutex>: a table of all devices
    filled once (a function-local static, thread-safe by the language)."""
    s = rd("device.hpp")
    for h in ("map", "memory", "mutex"):
        s = s.replace(f"#include <{h}>\n", "")
    i = s.index("/// The capabilities of device `ordinal`, read once")
    j = s.index("/// The calling thread's current device.")
    s = s[:i] + '''/// The capabilities of device `ordinal`, read once (all devices, at the first call) and cached
/// for the life of the program. An invalid ordinal throws cuda_error (cudaErrorInvalidDevice)
/// naming the caller's line.
[[nodiscard]] inline device_capabilities const& capabilities(
    int ordinal, std::source_location where = std::source_location::current())
{
  struct table {
    int count = 0;
    device_capabilities* entries = nullptr;
    table(table const&) = delete;
    table& operator=(table const&) = delete;
    explicit table(std::source_location const& where)
    {
      check(cudaGetDeviceCount(&count), "cudaGetDeviceCount", where);
      entries = new device_capabilities[static_cast<std::size_t>(count)];
      try {
        for (int d = 0; d < count; ++d) {
          entries[d] = detail::query_capabilities(d, where);
        }
      } catch (...) {
        delete[] entries;
        throw;
      }
    }
    ~table() { delete[] entries; }
  };
  static table const all(where);  // a failed first read throws, and the next call reads again
  if (ordinal < 0 || ordinal >= all.count) {
    check(cudaErrorInvalidDevice, "capabilities", where);
  }
  return all.entries[ordinal];
}

''' + s[j:]
    wr("device.hpp", s)


def step_atomic():
    """error.hpp and capture/capture_mode.hpp: the compilers' __atomic builtins instead of <atomic>."""
    drop_include("error.hpp", "atomic")
    sub("error.hpp", '''inline std::atomic<destructor_error_handler>& destructor_handler_slot() noexcept
{
  static std::atomic<destructor_error_handler> slot{&print_destructor_error};
  return slot;
}''', '''/// Read and swapped with __atomic builtins (GCC, Clang, nvcc's front end): <atomic> is large.
inline destructor_error_handler& destructor_handler_slot() noexcept
{
  static destructor_error_handler slot = &print_destructor_error;
  return slot;
}''')
    sub("error.hpp", "destructor_handler_slot().load()(failure);",
        "__atomic_load_n(&destructor_handler_slot(), __ATOMIC_ACQUIRE)(failure);")
    sub("error.hpp",
        "return detail::destructor_handler_slot().exchange(handler != nullptr ? handler : &detail::print_destructor_error);",
        "return __atomic_exchange_n(&detail::destructor_handler_slot(),\n"
        "                            handler != nullptr ? handler : &detail::print_destructor_error, __ATOMIC_ACQ_REL);")
    drop_include("capture/capture_mode.hpp", "atomic")
    s = rd("capture/capture_mode.hpp")
    for old, new in (('''  static std::atomic<int>& global_anywhere() noexcept
  {
    static std::atomic<int> count{0};
    return count;
  }''', '''  static int& global_anywhere() noexcept  // read and written with __atomic builtins
  {
    static int count = 0;
    return count;
  }'''), ("global_anywhere().fetch_add(1, std::memory_order_relaxed);",
            "__atomic_fetch_add(&global_anywhere(), 1, __ATOMIC_RELAXED);"),
            ("global_anywhere().fetch_sub(1, std::memory_order_relaxed);",
             "__atomic_fetch_sub(&global_anywhere(), 1, __ATOMIC_RELAXED);")):
        if old not in s:
            raise SystemExit("capture_mode: " + old[:60])
        s = s.replace(old, new)
    wr("capture/capture_mode.hpp", s)
    sub("capture/capture_status.hpp", "detail::capture_registry::global_anywhere().load(std::memory_order_relaxed)",
        "__atomic_load_n(&detail::capture_registry::global_anywhere(), __ATOMIC_RELAXED)")


def step_ranges():
    """No <ranges>: memory_range.hpp takes enable_borrowed_range from <string_view> (which
    specializes it, so libstdc++ and libc++ declare it there); copy.hpp uses std::data/std::size
    (declared by <span>, which it includes)."""
    drop_include("memory/memory_range.hpp", "ranges")
    sub("memory/memory_range.hpp", "#include <type_traits>\n",
        "#include <string_view>  // std::ranges::enable_borrowed_range, without <ranges>\n#include <type_traits>\n")
    p = "memory/copy.hpp"
    drop_include(p, "ranges")
    sub(p, "static_assert(std::ranges::contiguous_range<Host> && std::ranges::sized_range<Host>,",
        "static_assert(host_range<Host>,")
    sub(p, "using element = std::remove_reference_t<std::ranges::range_reference_t<Host>>;",
        "using element = std::remove_pointer_t<decltype(std::data(host))>;")
    sub(p, "return pageable_span<element>::adopt(std::ranges::data(host), std::ranges::size(host));",
        "return pageable_span<element>::adopt(std::data(host), std::size(host));")
    sub(p, "/// The host side of copy_sync_pageable:",
        '''/// Contiguous host memory with a size: std::vector, std::span, std::array, a C array.
template <class R>
concept host_range = requires(R& r) {
  { std::data(r) } -> std::convertible_to<void const*>;
  std::size(r);
};

/// The host side of copy_sync_pageable:''')


def step_managed_iter():
    """managed_buffer.hpp: a loop instead of std::find/std::begin (no <algorithm>, <iterator>)."""
    p = "memory/managed_buffer.hpp"
    drop_include(p, "algorithm")
    drop_include(p, "iterator")
    sub(p, "return std::find(std::begin(devices), std::end(devices), device) != std::end(devices);",
        "for (int const d : devices) {\n      if (d == device) {\n        return true;\n      }\n    }\n    return false;")


def step_optional():
    """async_pool_buffer.hpp: a null cudaMemPool_t for "the current pool" instead of std::optional."""
    p = "memory/async_pool_buffer.hpp"
    drop_include(p, "optional")
    s = rd(p)
    for old, new in ((": async_pool_buffer(count, stream, std::nullopt, where)",
                      ": async_pool_buffer(count, stream, cudaMemPool_t{}, where)"),
                     (": async_pool_buffer(count, stream, std::optional<memory_pool_ref>(pool), where)",
                      ": async_pool_buffer(count, stream, pool.get(), where)"),
                     ("async_pool_buffer(std::size_t count, stream_view<Tag> stream, std::optional<memory_pool_ref> pool,",
                      "async_pool_buffer(std::size_t count, stream_view<Tag> stream, cudaMemPool_t pool,"),
                     ("pool->get()", "pool"),
                     ("describe_pool(std::optional<memory_pool_ref> const& pool)", "describe_pool(cudaMemPool_t pool)"),
                     ("memory_pool_ref const ref = pool ? *pool :", "memory_pool_ref const ref = pool ? memory_pool_ref(pool) :")):
        if old not in s:
            raise SystemExit("optional: " + old[:60])
        s = s.replace(old, new)
    wr(p, s)


def step_messages():
    """Exception messages through one printf-style helper (detail::format) instead of std::string
    arithmetic and std::to_string at each throw site, and check()'s throw out of line (cold)."""
    sub("error.hpp", "#include <cstddef>\n", "#include <cstdarg>\n#include <cstddef>\n")
    sub("error.hpp", '''namespace detail {

inline std::string describe_location(std::source_location const& where)
{
  return std::string(where.file_name()) + ":" + std::to_string(where.line());
}''', '''namespace detail {

/// A printf-style message: one function for every exception text, instead of std::string
/// arithmetic and std::to_string at each throw site (which the host compiler optimizes anew).
#if defined(__GNUC__)
[[gnu::format(printf, 1, 2)]]
#endif
inline std::string format(char const* pattern, ...)
{
  char buffer[256];
  std::va_list args;
  va_start(args, pattern);
  std::va_list again;
  va_copy(again, args);
  int const length = std::vsnprintf(buffer, sizeof buffer, pattern, args);
  va_end(args);
  std::string text;
  if (length > 0 && static_cast<std::size_t>(length) < sizeof buffer) {
    text.assign(buffer, static_cast<std::size_t>(length));
  } else if (length > 0) {
    text.resize(static_cast<std::size_t>(length));
    std::vsnprintf(text.data(), text.size() + 1, pattern, again);
  }
  va_end(again);
  return text;
}

inline std::string describe_location(std::source_location const& where)
{
  return format("%s:%u", where.file_name(), static_cast<unsigned>(where.line()));
}''')
    sub("error.hpp", '''    return std::string(call) + " failed with " + cudaGetErrorName(status) + " (" + cudaGetErrorString(status) +
           ") at " + detail::describe_location(where);''',
        '''    return detail::format("%.*s failed with %s (%s) at %s:%u", static_cast<int>(call.size()), call.data(),
                          cudaGetErrorName(status), cudaGetErrorString(status), where.file_name(),
                          static_cast<unsigned>(where.line()));''')
    sub("error.hpp", '''        message_(detail::umsync_message(std::string(allocator) + " could not allocate " +
                                        std::to_string(requested_bytes) + " bytes" +
                                        (detail.empty() ? std::string() : " (" + std::string(detail) + ")") + " at " +
                                        detail::describe_location(where)))''',
        '''        message_(detail::umsync_message(detail::format(
            "%.*s could not allocate %zu bytes%s%.*s%s at %s:%u", static_cast<int>(allocator.size()), allocator.data(),
            requested_bytes, detail.empty() ? "" : " (", static_cast<int>(detail.size()), detail.data(),
            detail.empty() ? "" : ")", where.file_name(), static_cast<unsigned>(where.line()))))''')
    sub("error.hpp", '''inline void check(cudaError_t status, std::string_view call,
                  std::source_location where = std::source_location::current())
{
  if (status != cudaSuccess) [[unlikely]] {
    static_cast<void>(cudaGetLastError());
    throw cuda_error(status, call, where);
  }
}''', '''namespace detail {
#if defined(__GNUC__)
[[gnu::cold, gnu::noinline]]
#endif
[[noreturn]] inline void throw_cuda_error(cudaError_t status, std::string_view call, std::source_location const& where)
{
  static_cast<void>(cudaGetLastError());
  throw cuda_error(status, call, where);
}
}  // namespace detail

inline void check(cudaError_t status, std::string_view call,
                  std::source_location where = std::source_location::current())
{
  if (status != cudaSuccess) [[unlikely]] {
    detail::throw_cuda_error(status, call, where);
  }
}''')
    sub("stream.hpp", '''      throw out_of_range("stream priority " + std::to_string(options.priority) + " is outside the device's range [" +
                         std::to_string(range.greatest) + ", " + std::to_string(range.least) +
                         "] (lower is more urgent)");''',
        '''      throw out_of_range(detail::format("stream priority %d is outside the device's range [%d, %d] (lower is more "
                                        "urgent)",
                                        options.priority, range.greatest, range.least));''')
    sub("detail/allocate.hpp", '''    throw length_error(std::string(owner) + " of " + std::to_string(count) + " elements of " +
                       std::to_string(sizeof(T)) + " bytes overflows size_t");''',
        '''    throw length_error(format("%.*s of %zu elements of %zu bytes overflows size_t", static_cast<int>(owner.size()),
                              owner.data(), count, sizeof(T)));''')
    s = rd("memory/async_pool_buffer.hpp")
    i = s.index('      return "pool reserved " + std::to_string(ref.reserved_bytes())')
    j = s.index(";", i)
    s = s[:i] + '''      return detail::format("pool reserved %llu B, used %llu B", static_cast<unsigned long long>(ref.reserved_bytes()),
                            static_cast<unsigned long long>(ref.used_bytes()))''' + s[j:]
    wr("memory/async_pool_buffer.hpp", s)
    sub("memory/memory_pool.hpp", 'std::string("cudaMemPoolGetAttribute(") + name + ")"',
        'detail::format("cudaMemPoolGetAttribute(%s)", name)')
    sub("detail/unique_handle.hpp", 'throw usage_error("use of a moved-from " + std::string(type_name));',
        'throw usage_error(format("use of a moved-from %.*s", static_cast<int>(type_name.size()), type_name.data()));')


def step_algorithm():
    """No <algorithm> (9k lines: ranges_algo, stl_algo, the pstl declarations): plain loops."""
    drop_include("graph/graph.hpp", "algorithm")
    sub("graph/graph.hpp", '''    return static_cast<std::size_t>(std::count_if(all.begin(), all.end(),
                                                  [&](cudaGraphNode_t node) { return type_of(node, where) == type; }));''',
        '''    std::size_t count = 0;
    for (cudaGraphNode_t const node : all) {
      count += type_of(node, where) == type ? 1 : 0;
    }
    return count;''')
    sub("graph/graph.hpp", '''    return std::any_of(all.begin(), all.end(), [&](cudaGraphNode_t node) {
      auto const type = type_of(node, where);
      return type == cudaGraphNodeTypeMemAlloc || type == cudaGraphNodeTypeMemFree;
    });''', '''    for (cudaGraphNode_t const node : all) {
      auto const type = type_of(node, where);
      if (type == cudaGraphNodeTypeMemAlloc || type == cudaGraphNodeTypeMemFree) {
        return true;
      }
    }
    return false;''')
    drop_include("graph/capture_scope.hpp", "algorithm")
    sub("graph/capture_scope.hpp",
        "bool const joined_before = std::find(forks_.begin(), forks_.end(), handle) != forks_.end();",
        "bool joined_before = false;\n    for (cudaStream_t const fork : forks_) {\n"
        "      joined_before = joined_before || fork == handle;\n    }")
    drop_include("memory/pipelined_prefetch.hpp", "algorithm")
    sub("memory/pipelined_prefetch.hpp", "std::size_t const count = std::min(chunk_elements, n - first);",
        "std::size_t const count = chunk_elements < n - first ? chunk_elements : n - first;")
    drop_include("memory/managed_batch.hpp", "algorithm")
    sub("memory/managed_batch.hpp", '''    std::stable_sort(sorted.begin(), sorted.end(), [](entry const& a, entry const& b) {
      return a.to.ordinal() < b.to.ordinal();  // the host sorts first (ordinal -1)
    });''', '''    for (std::size_t i = 1; i < sorted.size(); ++i) {  // stable insertion sort: batches are short
      for (std::size_t j = i; j > 0 && sorted[j].to.ordinal() < sorted[j - 1].to.ordinal(); --j) {
        std::swap(sorted[j], sorted[j - 1]);  // the host sorts first (ordinal -1)
      }
    }''')


def step_tuple():
    """launch.hpp: the converted arguments live in a lambda's parameters; no <tuple>/std::apply."""
    drop_include("launch.hpp", "tuple")
    sub("launch.hpp", '''  std::tuple<Params...> values{
      static_cast<Params>(detail::kernel_argument<tag>(std::forward<Args>(args), stream.get(), config.where))...};
  std::apply(
      [&](auto&... value) {
        void* pointers[] = {static_cast<void*>(&value)..., nullptr};
        check(cudaLaunchKernel(reinterpret_cast<void const*>(kernel), config.grid, config.block, pointers,
                               config.shared_bytes, stream.get()),
              "cudaLaunchKernel");
      },
      values);''', '''  auto const launch_with = [&](Params... value) {
    void* pointers[] = {static_cast<void*>(&value)..., nullptr};
    check(cudaLaunchKernel(reinterpret_cast<void const*>(kernel), config.grid, config.block, pointers,
                           config.shared_bytes, stream.get()),
          "cudaLaunchKernel");
  };
  launch_with(static_cast<Params>(detail::kernel_argument<tag>(std::forward<Args>(args), stream.get(), config.where))...);''')


def step_core_umbrella():
    """umsync.hpp: the core only (streams, events, buffers, pools, spans, launch, copies, edges,
    device); graphs and capture, managed batches, the phase advisor, step buffers, pool IPC,
    pipelined prefetch and cuda_tool by their own headers."""
    s = rd("umsync.hpp")
    for h in ("capture/capture_error.hpp", "capture/capture_mode.hpp", "capture/capture_status.hpp",
              "capture/capturing_stream.hpp", "capture/non_capturing_stream.hpp", "cuda_tool.hpp",
              "graph/capture_scope.hpp", "graph/graph.hpp", "graph/graph_exec.hpp", "graph/graph_memory.hpp",
              "memory/managed_batch.hpp", "memory/pipelined_prefetch.hpp", "memory/pool_ipc.hpp",
              "memory/step_buffer.hpp", "phase/phase_advisor.hpp"):
        s = s.replace(f"#include <umsync/{h}>\n", "")
    wr("umsync.hpp", s)


def step_no_cuda_h():
    """Measurement only: detail/driver_entry.hpp without <cuda.h> (int stand-ins for the 3 types)."""
    p = "detail/driver_entry.hpp"
    s = rd(p).replace("#include <cuda.h>\n", "")
    s = s.replace("UMSYNC_NAMESPACE_BEGIN\nnamespace detail {\n",
                  "UMSYNC_NAMESPACE_BEGIN\nnamespace detail {\nusing CUresult = int;\nusing CUdevice = int;\n"
                  "using CUdevice_attribute = int;\ninline constexpr int CUDA_SUCCESS = 0;\n"
                  "inline constexpr int CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 111;\n", 1)
    wr(p, s)


def step_nostring():
    """Measurement of the lean path without <string>, <string_view>, <stdexcept> (API change:
    exceptions on std::exception with fixed-buffer messages; char const* call names). Only the
    headers umsync_lean.cu reaches are converted."""
    wr("error.hpp", NOSTRING_ERROR_HPP)
    for p in ("stream.hpp", "memory/async_pool_buffer.hpp", "memory/memory_pool.hpp", "detail/unique_handle.hpp",
              "detail/allocate.hpp"):
        wr(p, rd(p).replace("#include <stdexcept>\n", "").replace("#include <string>\n", "")
           .replace("#include <string_view>\n", ""))
    sub("stream.hpp", "throw out_of_range(detail::format(", "throw out_of_range(detail::message(")
    sub("stream.hpp", "options.priority, range.greatest, range.least));",
        "options.priority, range.greatest, range.least).c_str());")
    sub("detail/unique_handle.hpp", "get_or_throw(std::string_view type_name) const", "get_or_throw(char const* type_name) const")
    sub("detail/unique_handle.hpp",
        'throw usage_error(format("use of a moved-from %.*s", static_cast<int>(type_name.size()), type_name.data()));',
        'throw usage_error(message("use of a moved-from %s", type_name).c_str());')
    p = "detail/allocate.hpp"
    sub(p, "std::size_t bytes_of(std::size_t count, std::string_view owner)", "std::size_t bytes_of(std::size_t count, char const* owner)")
    sub(p, '''    throw length_error(format("%.*s of %zu elements of %zu bytes overflows size_t", static_cast<int>(owner.size()),
                              owner.data(), count, sizeof(T)));''',
        '''    throw length_error(message("%s of %zu elements of %zu bytes overflows size_t", owner, count, sizeof(T)).c_str());''')
    sub(p, "std::string operator()() const { return {}; }", "message operator()() const { return {}; }")
    sub(p, "owned_elements<T> allocate_elements(std::size_t count, std::string_view owner, std::string_view call,",
        "owned_elements<T> allocate_elements(std::size_t count, char const* owner, char const* call,")
    sub(p, "throw bad_alloc(bytes, call, describe_allocator(), where);",
        "throw bad_alloc(bytes, call, describe_allocator().c_str(), where);")
    p = "memory/async_pool_buffer.hpp"
    sub(p, "static std::string describe_pool(", "static detail::message describe_pool(")
    sub(p, 'return detail::format("pool reserved', 'return detail::message("pool reserved')
    sub(p, 'return "pool state unreadable";', 'return detail::message("pool state unreadable");')
    sub("memory/memory_pool.hpp", 'detail::format("cudaMemPoolGetAttribute(%s)", name)',
        'detail::message("cudaMemPoolGetAttribute(%s)", name).c_str()')


NOSTRING_ERROR_HPP = r'''// umsync/error.hpp, string-free experiment: no <string>, <string_view>, <stdexcept>, <atomic>.
// Every umsync exception derives from umsync::error, itself a std::exception (the standard
// bases std::runtime_error / std::logic_error / std::length_error ... are gone: that is the API
// change), and keeps its message in a fixed buffer.
#pragma once

#include <umsync/config.hpp>

#include <cstdarg>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <new>
#include <source_location>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

namespace detail {

/// An exception's text, "umsync: " first: fixed capacity (longer text is cut), copied without
/// allocating.
class message {
 public:
  message() noexcept { text_[0] = '\0'; }
#if defined(__GNUC__)
  [[gnu::format(printf, 2, 3)]]
#endif
  explicit message(char const* pattern, ...) noexcept
  {
    std::va_list args;
    va_start(args, pattern);
    if (std::vsnprintf(text_, sizeof text_, pattern, args) < 0) {
      text_[0] = '\0';
    }
    va_end(args);
  }
  [[nodiscard]] char const* c_str() const noexcept { return text_; }

 private:
  char text_[400];
};

inline char const* without_prefix(char const* text) noexcept
{
  while (text[0] == 'u' && text[1] == 'm' && text[2] == 's' && text[3] == 'y' && text[4] == 'n' && text[5] == 'c' &&
         text[6] == ':' && text[7] == ' ') {
    text += 8;
  }
  return text;
}

}  // namespace detail

/// The base of every exception umsync throws.
class error : public std::exception {
 public:
  [[nodiscard]] char const* what() const noexcept override { return message_.c_str(); }

 protected:
  error() = default;
  explicit error(char const* text) : message_("umsync: %s", detail::without_prefix(text)) {}
  detail::message message_;
};

class cuda_error : public error {
 public:
  cuda_error(cudaError_t status, char const* call, std::source_location where = std::source_location::current())
      : status_(status), where_(where), call_("%s", call)
  {
    message_ = detail::message("umsync: %s failed with %s (%s) at %s:%u", call, cudaGetErrorName(status),
                               cudaGetErrorString(status), where.file_name(), static_cast<unsigned>(where.line()));
  }

  [[nodiscard]] cudaError_t code() const noexcept { return status_; }
  [[nodiscard]] char const* name() const noexcept { return cudaGetErrorName(status_); }
  [[nodiscard]] char const* call() const noexcept { return call_.c_str(); }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  cudaError_t status_;
  std::source_location where_;
  detail::message call_;
};

class bad_alloc : public std::bad_alloc, public error {
 public:
  bad_alloc(std::size_t requested_bytes, char const* allocator, char const* detail = "",
            std::source_location where = std::source_location::current())
      : requested_bytes_(requested_bytes), where_(where)
  {
    message_ = detail::message("umsync: %s could not allocate %zu bytes%s%s%s at %s:%u", allocator, requested_bytes,
                               *detail ? " (" : "", detail, *detail ? ")" : "", where.file_name(),
                               static_cast<unsigned>(where.line()));
  }
  [[nodiscard]] char const* what() const noexcept override { return error::what(); }
  [[nodiscard]] std::size_t requested_bytes() const noexcept { return requested_bytes_; }
  [[nodiscard]] std::source_location const& where() const noexcept { return where_; }

 private:
  std::size_t requested_bytes_;
  std::source_location where_;
};

class usage_error : public error {
 public:
  explicit usage_error(char const* what_happened) : error(what_happened) {}
};
class length_error : public error {
 public:
  explicit length_error(char const* what_happened) : error(what_happened) {}
};
class out_of_range : public error {
 public:
  explicit out_of_range(char const* what_happened) : error(what_happened) {}
};
class invalid_argument : public error {
 public:
  explicit invalid_argument(char const* what_happened) : error(what_happened) {}
};

class ordering_error : public usage_error {
 public:
  struct site {
    void const* stream = nullptr;
    char const* operation = "";
    std::source_location where;
  };

  ordering_error(site earlier, site later)
      : usage_error(detail::message("unordered access: %s on stream %p at %s:%u is not ordered after the %s on stream "
                                    "%p at %s:%u; add an event edge (umsync::stream_dependency) between them",
                                    later.operation, later.stream, later.where.file_name(),
                                    static_cast<unsigned>(later.where.line()), earlier.operation, earlier.stream,
                                    earlier.where.file_name(), static_cast<unsigned>(earlier.where.line()))
                        .c_str()),
        earlier_(earlier),
        later_(later)
  {}

  [[nodiscard]] site const& earlier() const noexcept { return earlier_; }
  [[nodiscard]] site const& later() const noexcept { return later_; }

 private:
  site earlier_;
  site later_;
};

namespace detail {
#if defined(__GNUC__)
[[gnu::cold, gnu::noinline]]
#endif
[[noreturn]] inline void throw_cuda_error(cudaError_t status, char const* call, std::source_location const& where)
{
  static_cast<void>(cudaGetLastError());
  throw cuda_error(status, call, where);
}
}  // namespace detail

inline void check(cudaError_t status, char const* call, std::source_location where = std::source_location::current())
{
  if (status != cudaSuccess) [[unlikely]] {
    detail::throw_cuda_error(status, call, where);
  }
}

using destructor_error_handler = void (*)(error const&) noexcept;

namespace detail {

inline void print_destructor_error(error const& failure) noexcept
{
  std::fprintf(stderr, "%s (in a destructor; not thrown)\n", failure.what());
}

inline destructor_error_handler& destructor_handler_slot() noexcept
{
  static destructor_error_handler slot = &print_destructor_error;
  return slot;
}

inline void report_in_destructor(error const& failure) noexcept
{
  __atomic_load_n(&destructor_handler_slot(), __ATOMIC_ACQUIRE)(failure);
}

inline void report_in_destructor(cudaError_t status, char const* call,
                                 std::source_location where = std::source_location::current()) noexcept
{
  if (status == cudaSuccess) [[likely]] {
    return;
  }
  static_cast<void>(cudaGetLastError());
  report_in_destructor(cuda_error(status, call, where));
}

}  // namespace detail

inline destructor_error_handler set_destructor_error_handler(destructor_error_handler handler) noexcept
{
  return __atomic_exchange_n(&detail::destructor_handler_slot(),
                             handler != nullptr ? handler : &detail::print_destructor_error, __ATOMIC_ACQ_REL);
}

UMSYNC_NAMESPACE_END

#define UMSYNC_CUDA_CHECK(...) ::umsync::check((__VA_ARGS__), #__VA_ARGS__)
'''

STEPS = {n[5:]: f for n, f in list(globals().items()) if n.startswith("step_")}
FULL = ["checker", "stream_ref", "chrono", "chrono_out_of_umbrella", "pool_no_device", "device_light", "atomic",
        "ranges", "managed_iter", "optional", "messages", "algorithm", "tuple"]


def main():
    global root
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("--rev", default="b30968d")
    parser.add_argument("steps", nargs="*", help="step names, or full")
    args = parser.parse_args()
    steps = []
    for name in args.steps:
        steps += FULL if name == "full" else [name]
    unknown = [s for s in steps if s not in STEPS]
    if unknown:
        parser.error(f"unknown step(s) {unknown}; known: full, {', '.join(STEPS)}")
    os.makedirs(args.out_dir, exist_ok=True)
    archive = subprocess.run(["git", "-C", ROOT, "archive", args.rev, "include"], capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", args.out_dir], input=archive.stdout, check=True)
    root = os.path.join(args.out_dir, "include", "umsync")
    for name in steps:
        STEPS[name]()
        print(f"experiments: applied {name}", file=sys.stderr)


if __name__ == "__main__":
    main()
