// umsync/umsync.hpp: everything public in umsync.
#pragma once

#include <umsync/config.hpp>
#include <umsync/cuda_tool.hpp>
#include <umsync/deferred_edge.hpp>
#include <umsync/dependency.hpp>
#include <umsync/device.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/graph/capture.hpp>
#include <umsync/launch.hpp>
#include <umsync/memory/async_pool_buffer.hpp>
#include <umsync/memory/copy.hpp>
#include <umsync/memory/managed_batch.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/memory/memory_pool.hpp>
#include <umsync/memory/memory_span.hpp>
#include <umsync/memory/pinned_buffer.hpp>
#include <umsync/memory/pipelined_prefetch.hpp>
#include <umsync/memory/pool_ipc.hpp>
#include <umsync/memory/step_memory.hpp>
#include <umsync/phase_advisor.hpp>
#include <umsync/stream.hpp>
#include <umsync/stream_view.hpp>
