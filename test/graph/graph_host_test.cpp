// Compile-time properties of umsync/graph/graph.hpp, graph_exec.hpp and graph_memory.hpp
// (host only, no device needed).
#include <doctest/doctest.h>
#include <umsync/graph/graph.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>

#include <string>
#include <type_traits>

// Owning handles: move-only, moves never throw, destructors never throw.
static_assert(!std::is_copy_constructible_v<umsync::graph>);
static_assert(!std::is_copy_assignable_v<umsync::graph>);
static_assert(std::is_nothrow_move_constructible_v<umsync::graph>);
static_assert(std::is_nothrow_move_assignable_v<umsync::graph>);
static_assert(std::is_nothrow_destructible_v<umsync::graph>);
static_assert(!std::is_copy_constructible_v<umsync::graph_exec>);
static_assert(!std::is_copy_assignable_v<umsync::graph_exec>);
static_assert(std::is_nothrow_move_constructible_v<umsync::graph_exec>);
static_assert(std::is_nothrow_move_assignable_v<umsync::graph_exec>);
static_assert(std::is_nothrow_destructible_v<umsync::graph_exec>);
// A graph is made by create(), adopt() or a capture; it never adopts a raw handle implicitly.
static_assert(!std::is_constructible_v<umsync::graph, cudaGraph_t>);
static_assert(!std::is_default_constructible_v<umsync::graph>);
// An executable graph is instantiated from a graph, explicitly.
static_assert(std::is_constructible_v<umsync::graph_exec, umsync::graph const&>);
static_assert(!std::is_convertible_v<umsync::graph const&, umsync::graph_exec>);
// A refused update is a CUDA failure with its reason, catchable as cuda_error.
static_assert(std::is_base_of_v<umsync::cuda_error, umsync::graph_update_error>);

TEST_CASE("graph_update_error says the topology changed and what to do instead")
{
  cudaGraphExecUpdateResultInfo info{};
  info.result = cudaGraphExecUpdateErrorTopologyChanged;
  umsync::graph_update_error const error(cudaErrorGraphExecUpdateFailure, info);
  std::string const what = error.what();
  CHECK(error.topology_changed());
  CHECK(error.result() == cudaGraphExecUpdateErrorTopologyChanged);
  CHECK(error.code() == cudaErrorGraphExecUpdateFailure);
  CHECK(error.error_node() == nullptr);
  CHECK(what.find("cudaGraphExecUpdate") != std::string::npos);
  CHECK(what.find("topology changed") != std::string::npos);
  CHECK(what.find("instantiate a new graph_exec") != std::string::npos);
}

TEST_CASE("graph_update_error tells other refusals apart from a topology change")
{
  cudaGraphExecUpdateResultInfo info{};
  info.result = cudaGraphExecUpdateErrorNodeTypeChanged;
  umsync::graph_update_error const error(cudaErrorGraphExecUpdateFailure, info);
  CHECK_FALSE(error.topology_changed());
  CHECK(std::string(error.what()).find("type changed") != std::string::npos);
  for (auto result : {cudaGraphExecUpdateErrorParametersChanged, cudaGraphExecUpdateErrorNotSupported,
                      cudaGraphExecUpdateErrorUnsupportedFunctionChange, cudaGraphExecUpdateErrorAttributesChanged,
                      cudaGraphExecUpdateError}) {
    CHECK_FALSE(umsync::graph_update_error::describe(result).empty());
    CHECK(umsync::graph_update_error::describe(result) !=
          umsync::graph_update_error::describe(cudaGraphExecUpdateErrorTopologyChanged));
  }
}

TEST_CASE("a moved-from graph refuses use instead of passing a null handle to CUDA")
{
  // adopt(nullptr) stands for a moved-from graph without needing a device.
  umsync::graph empty = umsync::graph::adopt(nullptr);
  CHECK_THROWS_AS(static_cast<void>(empty.get()), umsync::usage_error);
  umsync::graph moved = std::move(empty);
  CHECK_THROWS_AS(static_cast<void>(moved.get()), umsync::usage_error);
}
