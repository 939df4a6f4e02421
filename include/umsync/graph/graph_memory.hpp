// umsync/graph/graph_memory.hpp: the device's graph memory (what allocation nodes use).
//
// cudaMallocAsync inside a capture becomes a graph allocation node; its memory comes from a
// per-device graph memory cache, not from the stream's pool. The cache keeps physical memory
// after the graphs that used it are gone, until cudaDeviceGraphMemTrim: a program that checks
// for leaks with cudaMemGetInfo must trim first (see docs/graphs.md).
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>

#include <cstdint>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN

/// Bytes of graph memory on one device (cudaGraphMemAttr*).
struct graph_memory_usage {
  std::uint64_t used = 0;           ///< in live graph allocations now
  std::uint64_t used_high = 0;      ///< most used since the last reset
  std::uint64_t reserved = 0;       ///< held by the graph memory cache now
  std::uint64_t reserved_high = 0;  ///< most held since the last reset
};

[[nodiscard]] inline graph_memory_usage graph_memory(int device,
                                                     std::source_location where = std::source_location::current())
{
  graph_memory_usage usage;
  auto read = [&](cudaGraphMemAttributeType attribute, std::uint64_t& value) {
    check(cudaDeviceGetGraphMemAttribute(device, attribute, &value), "cudaDeviceGetGraphMemAttribute", where);
  };
  read(cudaGraphMemAttrUsedMemCurrent, usage.used);
  read(cudaGraphMemAttrUsedMemHigh, usage.used_high);
  read(cudaGraphMemAttrReservedMemCurrent, usage.reserved);
  read(cudaGraphMemAttrReservedMemHigh, usage.reserved_high);
  return usage;
}

/// Gives the graph memory cache's unused blocks back to the driver (cudaDeviceGraphMemTrim).
/// Memory of graphs that are running or queued stays.
inline void trim_graph_memory(int device, std::source_location where = std::source_location::current())
{
  check(cudaDeviceGraphMemTrim(device), "cudaDeviceGraphMemTrim", where);
}

/// Resets both high-water marks to zero (the only value they accept).
inline void reset_graph_memory_high_water(int device, std::source_location where = std::source_location::current())
{
  std::uint64_t zero = 0;
  check(cudaDeviceSetGraphMemAttribute(device, cudaGraphMemAttrUsedMemHigh, &zero), "cudaDeviceSetGraphMemAttribute",
        where);
  check(cudaDeviceSetGraphMemAttribute(device, cudaGraphMemAttrReservedMemHigh, &zero),
        "cudaDeviceSetGraphMemAttribute", where);
}

UMSYNC_NAMESPACE_END
