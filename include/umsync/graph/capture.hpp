// umsync/graph/capture.hpp: everything for capturing stream work into CUDA graphs and
// replaying it: capture_scope, capturing_stream, the non_capturing_stream rule, the run-time
// capture guards, graph, graph_exec and graph memory.
#pragma once

#include <umsync/graph/capture_error.hpp>
#include <umsync/graph/capture_guard.hpp>
#include <umsync/graph/capture_mode.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/capturing_stream.hpp>
#include <umsync/graph/graph.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/graph/non_capturing_stream.hpp>
