// umsync/graph/graph_exec.hpp: an instantiated, launchable graph (cudaGraphExec_t).
//
//   umsync::graph_exec exec(g);     // instantiate once: the expensive part
//   exec.upload(s);                 // optional: move the setup cost out of the first launch
//   exec.launch(s);                 // replay: one call for the whole captured step
//   exec.update(recaptured);        // new parameters, same topology; else graph_update_error
//
// A graph with allocation nodes may have only one graph_exec at a time, and a launch fails if
// allocations of the previous launch are still live: umsync's captures free every buffer they
// allocate inside the graph, so replays need no auto-free flag.
//
// update() refuses graphs with memory nodes (on either side) before calling CUDA: every capture
// gives its allocation nodes new virtual addresses, so a re-capture's kernels point at memory
// the instantiated graph never maps, and CUDA 13.0 documents no rule for that case. Re-capture
// and instantiate a new graph_exec instead (docs/graphs.md).
#pragma once

#include <umsync/config.hpp>
#include <umsync/detail/returned_string.hpp>
#include <umsync/detail/unique_handle.hpp>
#include <umsync/error.hpp>
#include <umsync/graph/graph.hpp>
#include <umsync/stream_view.hpp>

#include <source_location>

UMSYNC_NAMESPACE_BEGIN

/// cudaGraphExecUpdate refused the update; the executable graph is unchanged and still
/// launchable. result() says why; topology_changed() is the usual case (a re-capture that
/// took another path): instantiate a new graph_exec instead.
class graph_update_error : public cuda_error {
 public:
  graph_update_error(cudaError_t status, cudaGraphExecUpdateResultInfo info,
                     std::source_location where = std::source_location::current())
      : graph_update_error(status, info, reason_of(info.result), where)
  {}
  /// The same, with umsync's own reason instead of the result's description.
  graph_update_error(cudaError_t status, cudaGraphExecUpdateResultInfo info, detail::text_view reason,
                     std::source_location where = std::source_location::current())
      : cuda_error(status, detail::compose<detail::message_capacity>("cudaGraphExecUpdate (", reason, ")"), where),
        info_(info)
  {}

  [[nodiscard]] cudaGraphExecUpdateResult result() const noexcept { return info_.result; }
  [[nodiscard]] bool topology_changed() const noexcept
  {
    return info_.result == cudaGraphExecUpdateErrorTopologyChanged;
  }
  /// The node of the new graph that could not be matched (may be null, see CUDA's docs).
  [[nodiscard]] cudaGraphNode_t error_node() const noexcept { return info_.errorNode; }

  /// What `result` means, in words. A std::string: needs <string> where it is called
  /// (detail/returned_string.hpp).
  template <class String = std::string>
  [[nodiscard]] static auto describe(cudaGraphExecUpdateResult result)
  {
    return detail::returned_string<String>(reason_of(result));
  }

 private:
  static char const* reason_of(cudaGraphExecUpdateResult result) noexcept
  {
    switch (result) {
      case cudaGraphExecUpdateSuccess: return "success";
      case cudaGraphExecUpdateErrorTopologyChanged:
        return "the topology changed: node count or edges differ; instantiate a new graph_exec";
      case cudaGraphExecUpdateErrorNodeTypeChanged: return "a node's type changed; instantiate a new graph_exec";
      case cudaGraphExecUpdateErrorFunctionChanged:
      case cudaGraphExecUpdateErrorUnsupportedFunctionChange:
        return "a kernel node's function changed in a way update cannot apply";
      case cudaGraphExecUpdateErrorParametersChanged: return "node parameters changed in an unsupported way";
      case cudaGraphExecUpdateErrorAttributesChanged: return "node attributes changed in an unsupported way";
      case cudaGraphExecUpdateErrorNotSupported: return "a node does not support update";
      case cudaGraphExecUpdateError: break;
    }
    return "update failed";
  }

  cudaGraphExecUpdateResultInfo info_;
};

struct instantiate_options {
  /// Free allocations a previous launch left live before each relaunch. Needed only for
  /// graphs whose allocations outlive the graph; umsync's captures free inside the graph.
  bool auto_free_on_launch = false;
  /// Kernel nodes keep the priority of the stream they were captured on.
  bool use_node_priority = false;
};

class graph_exec {
 public:
  explicit graph_exec(graph const& description, instantiate_options options = {},
                      std::source_location where = std::source_location::current())
  {
    unsigned long long flags = 0;
    if (options.auto_free_on_launch) {
      flags |= cudaGraphInstantiateFlagAutoFreeOnLaunch;
    }
    if (options.use_node_priority) {
      flags |= cudaGraphInstantiateFlagUseNodePriority;
    }
    has_memory_nodes_ = description.has_memory_nodes(where);
    cudaGraphExec_t handle = nullptr;
    check(cudaGraphInstantiateWithFlags(&handle, description.get(), flags), "cudaGraphInstantiateWithFlags", where);
    handle_ = decltype(handle_)(handle);
  }

  // Destroying a graph_exec lets pending launches complete; the graph's memory goes back to the
  // graph memory cache.

  /// The raw handle; throws usage_error on a moved-from graph_exec.
  [[nodiscard]] cudaGraphExec_t get() const { return handle_.get_or_throw("umsync::graph_exec"); }

  /// Runs the whole graph once, ordered after earlier work on `stream` and after the previous
  /// launch of this graph_exec.
  template <stream_handle Stream>
  void launch(Stream const& stream, std::source_location where = std::source_location::current()) const
  {
    check(cudaGraphLaunch(get(), stream.get()), "cudaGraphLaunch", where);
  }

  /// Does the launch setup ahead of time (ordered on `stream`), so the first launch is as
  /// cheap as the later ones.
  template <stream_handle Stream>
  void upload(Stream const& stream, std::source_location where = std::source_location::current()) const
  {
    check(cudaGraphUpload(get(), stream.get()), "cudaGraphUpload", where);
  }

  /// Takes the node parameters of `recaptured`, which must have the same topology as the
  /// graph this was instantiated from. Throws graph_update_error (this is left unchanged)
  /// when cudaGraphExecUpdate refuses, or when either graph has memory nodes (see above); any
  /// other failure throws cuda_error.
  void update(graph const& recaptured, std::source_location where = std::source_location::current())
  {
    cudaGraphExecUpdateResultInfo info{};
    if (has_memory_nodes_ || recaptured.has_memory_nodes(where)) {
      info.result = cudaGraphExecUpdateErrorNotSupported;
      throw graph_update_error(cudaErrorGraphExecUpdateFailure, info,
                               "umsync does not update graphs with memory nodes: a re-capture allocates at "
                               "other addresses; instantiate a new graph_exec",
                               where);
    }
    cudaError_t const status = cudaGraphExecUpdate(get(), recaptured.get(), &info);
    if (status == cudaErrorGraphExecUpdateFailure) {
      static_cast<void>(cudaGetLastError());
      throw graph_update_error(status, info, where);
    }
    check(status, "cudaGraphExecUpdate", where);
  }

 private:
  struct destroy_graph_exec {
    void operator()(cudaGraphExec_t handle) const noexcept
    {
      detail::report_in_destructor(cudaGraphExecDestroy(handle), "cudaGraphExecDestroy");
    }
  };

  detail::unique_handle<cudaGraphExec_t, destroy_graph_exec> handle_;
  bool has_memory_nodes_ = false;
};

UMSYNC_NAMESPACE_END
