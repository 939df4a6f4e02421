// umsync/graph/graph.hpp: an owning, move-only CUDA graph (cudaGraph_t).
//
//   umsync::capture_scope scope(s);
//   ... work on scope.stream() ...
//   umsync::graph g = scope.end();         // the captured work, not yet runnable
//   umsync::graph_exec exec(g);            // instantiated: launch it any number of times
//
// A graph is a description; it runs only once instantiated (graph_exec). Its queries (nodes
// by type, edges) exist so tests and tools can check what a capture produced.
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/heap_array.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>

#include <cstddef>
#include <source_location>
#include <utility>

UMSYNC_NAMESPACE_BEGIN

/// One dependency edge: `to` runs after `from` has completed (with memory visibility).
struct graph_edge {
  cudaGraphNode_t from = nullptr;
  cudaGraphNode_t to = nullptr;
};

class graph {
 public:
  /// An empty graph (cudaGraphCreate); nodes may be added with the raw graph API.
  [[nodiscard]] static graph create(std::source_location where = std::source_location::current())
  {
    cudaGraph_t handle = nullptr;
    check(cudaGraphCreate(&handle, 0), "cudaGraphCreate", where);
    return graph(handle);
  }

  /// Takes ownership of `handle` (e.g. from cudaStreamEndCapture); it is destroyed with this.
  [[nodiscard]] static graph adopt(cudaGraph_t handle) noexcept { return graph(handle); }

  /// The raw handle; throws usage_error on a moved-from graph.
  [[nodiscard]] cudaGraph_t get() const { return handle_.get_or_throw("umsync::graph"); }

  /// The graph's nodes, as an array (detail/heap_array.hpp: size(), operator[], begin() and
  /// end() as pointers; `std::vector(a.begin(), a.end())` copies it into a vector).
  [[nodiscard]] detail::heap_array<cudaGraphNode_t> nodes(
      std::source_location where = std::source_location::current()) const
  {
    std::size_t count = 0;
    check(cudaGraphGetNodes(get(), nullptr, &count), "cudaGraphGetNodes", where);
    detail::heap_array<cudaGraphNode_t> result(count);
    if (count != 0) {
      check(cudaGraphGetNodes(get(), result.data(), &count), "cudaGraphGetNodes", where);
      result.resize(count);
    }
    return result;
  }

  [[nodiscard]] std::size_t node_count(std::source_location where = std::source_location::current()) const
  {
    return nodes(where).size();
  }

  /// How many nodes have `type` (cudaGraphNodeTypeKernel, ...MemAlloc, ...MemFree, ...).
  [[nodiscard]] std::size_t count_nodes(cudaGraphNodeType type,
                                        std::source_location where = std::source_location::current()) const
  {
    std::size_t count = 0;
    for (cudaGraphNode_t const node : nodes(where)) {
      count += type_of(node, where) == type ? 1 : 0;
    }
    return count;
  }

  /// True when the graph allocates or frees memory (a capture of stream_buffer work).
  [[nodiscard]] bool has_memory_nodes(std::source_location where = std::source_location::current()) const
  {
    for (cudaGraphNode_t const node : nodes(where)) {
      auto const type = type_of(node, where);
      if (type == cudaGraphNodeTypeMemAlloc || type == cudaGraphNodeTypeMemFree) {
        return true;
      }
    }
    return false;
  }

  /// The graph's edges, each from one node to another, as an array like nodes()'s.
  [[nodiscard]] detail::heap_array<graph_edge> edges(std::source_location where = std::source_location::current()) const
  {
    std::size_t count = 0;
    check(cudaGraphGetEdges(get(), nullptr, nullptr, nullptr, &count), "cudaGraphGetEdges", where);
    detail::heap_array<cudaGraphNode_t> from(count);
    detail::heap_array<cudaGraphNode_t> to(count);
    detail::heap_array<cudaGraphEdgeData> data(count);
    if (count != 0) {
      check(cudaGraphGetEdges(get(), from.data(), to.data(), data.data(), &count), "cudaGraphGetEdges", where);
    }
    detail::heap_array<graph_edge> result;
    result.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      result.push_back({from[i], to[i]});
    }
    return result;
  }

  [[nodiscard]] static cudaGraphNodeType type_of(cudaGraphNode_t node,
                                                 std::source_location where = std::source_location::current())
  {
    cudaGraphNodeType type{};
    check(cudaGraphNodeGetType(node, &type), "cudaGraphNodeGetType", where);
    return type;
  }

  /// Writes the graph in Graphviz form (cudaGraphDebugDotPrint), verbose, for debugging.
  void write_dot(char const* path, std::source_location where = std::source_location::current()) const
  {
    check(cudaGraphDebugDotPrint(get(), path, cudaGraphDebugDotFlagsVerbose), "cudaGraphDebugDotPrint", where);
  }

 private:
  struct destroy_graph {
    void operator()(cudaGraph_t handle) const noexcept
    {
      detail::report_in_destructor(cudaGraphDestroy(handle), "cudaGraphDestroy");
    }
  };

  explicit graph(cudaGraph_t handle) noexcept : handle_(handle) {}

  detail::unique_handle<cudaGraph_t, destroy_graph> handle_;
};

UMSYNC_NAMESPACE_END
