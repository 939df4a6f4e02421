// umsync/umsync.hpp: everything public in umsync's host API. Device-side headers (umsync/sync/),
// the Thrust policy (exec_policy.hpp: it includes Thrust), cuBLAS handles (cublas.hpp), RMM's
// exceptions (rmm.hpp), NCCL (umsync/nccl/), CUPTI telemetry (umsync/telemetry/) and PyTorch
// (torch.hpp) are included on their own. pdl.hpp comes with launch.hpp. So are the two host
// headers that cost the most to compile (docs/compile-cost.md): cuda::mr's concepts
// (memory/resource.hpp: a buffer from an RMM, CCCL or user resource, device_resource_ref) and
// timed_event.hpp (<chrono>).
#pragma once

#include <umsync/bound_handle.hpp>
#include <umsync/capture/capture_error.hpp>
#include <umsync/capture/capture_mode.hpp>
#include <umsync/capture/capture_status.hpp>
#include <umsync/capture/capturing_stream.hpp>
#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/cuda_tool.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/graph/capture_scope.hpp>
#include <umsync/graph/graph.hpp>
#include <umsync/graph/graph_exec.hpp>
#include <umsync/graph/graph_memory.hpp>
#include <umsync/launch.hpp>
#include <umsync/library_call.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/fill.hpp>
#include <umsync/memory/managed_batch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/managed_memory.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_range.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/pipelined_prefetch.hpp>
#include <umsync/memory/pool_ipc.hpp>
#include <umsync/memory/reinterpret_span.hpp>
#include <umsync/memory/staging_ring.hpp>
#include <umsync/memory/step_buffer.hpp>
#include <umsync/memory/stream_buffer.hpp>
#include <umsync/nvtx.hpp>
#include <umsync/phase/phase_advisor.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_edge.hpp>
#include <umsync/stream_view.hpp>
