// umsync/memory/pipelined_prefetch.hpp: a migration overlapped with the work that consumes it.
//
//   umsync::prefetch_pipelined(weights, umsync::managed_location::device(0), copy_stream,
//                              compute_stream, 8 << 20,
//                              [&](umsync::managed_span<float> chunk, auto on) {
//                                umsync::launch(on, config, scale, chunk, chunk.size());
//                              });
//
// One cudaMemPrefetchAsync of a whole buffer finishes before the first kernel may start, so a
// phase entry costs migration + compute. Cut into chunks, the migration of chunk i+1 runs on the
// copy stream while the kernel of chunk i runs on the compute stream; the phase then costs about
// max(migration, compute) + one chunk. Each chunk's kernel waits for that chunk's prefetch
// through an event edge; the first prefetch waits for everything queued on the compute stream
// before the call (the previous phase may still be writing the buffer).
//
// Pages a kernel touches before their prefetch arrives would still migrate by fault, so results
// never depend on the edges; the edges only keep the pipeline in order.
#pragma once

#include <umsync/capture/non_capturing_stream.hpp>
#include <umsync/config.hpp>
#include <umsync/error.hpp>
#include <umsync/event.hpp>
#include <umsync/memory/managed_buffer.hpp>
#include <umsync/stream_view.hpp>

#include <cstddef>
#include <source_location>

UMSYNC_NAMESPACE_BEGIN

/// Prefetches `buffer` to `to` in chunks of `chunk_elements` on `copy`, and for each chunk calls
/// `consume(chunk_span, compute_view)` once `compute` has been made to wait for that chunk.
/// `consume` queues work on the compute stream only. Returns the number of chunks.
/// `chunk_elements` == 0 throws invalid_argument; the streams must differ (usage_error),
/// or there is nothing to overlap.
template <class T, stream_handle CopyStream, stream_handle ComputeStream, class Consume>
std::size_t prefetch_pipelined(managed_buffer<T>& buffer, managed_location to, CopyStream const& copy,
                               ComputeStream const& compute, std::size_t chunk_elements, Consume&& consume,
                               std::source_location where = std::source_location::current())
{
  forbid_in_capture<capture_unsafe::prefetch, CopyStream>();
  forbid_in_capture<capture_unsafe::prefetch, ComputeStream>();
  using compute_view = stream_view<typename ComputeStream::tag_type>;
  if (chunk_elements == 0) {
    throw invalid_argument("prefetch_pipelined needs chunks of at least one element");
  }
  if (copy.get() == compute.get()) {
    throw usage_error("prefetch_pipelined needs a copy stream other than the compute stream "
                      "(one stream cannot overlap the migration with the kernels)");
  }
  std::size_t const n = buffer.size();
  if (n == 0) {
    return 0;
  }
  compute_view const on_compute{compute.get()};
  stream_view<typename CopyStream::tag_type> const on_copy{copy.get()};
  // One event serves every edge: a wait binds to the record that precedes it, so recording
  // again for the next chunk does not change what an earlier wait waits for.
  event edge(event_options{}, where);
  edge.record(on_compute, where);
  on_copy.wait(edge, where);
  std::size_t chunks = 0;
  for (std::size_t first = 0; first < n; first += chunk_elements) {
    std::size_t const count = n - first < chunk_elements ? n - first : chunk_elements;
    buffer.prefetch(first, count, to, on_copy, where);
    edge.record(on_copy, where);
    on_compute.wait(edge, where);
    consume(managed_span<T>::adopt(buffer.data() + first, count), on_compute);
    ++chunks;
  }
  return chunks;
}

UMSYNC_NAMESPACE_END
