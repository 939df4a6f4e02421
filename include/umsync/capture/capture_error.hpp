// umsync/capture/capture_error.hpp: the exception for a capture-unsafe call caught in time.
//
// Inside stream capture, cudaMemPrefetchAsync, cudaMemAdvise, cudaMalloc, cudaStreamSynchronize
// and cudaStreamAttachMemAsync fail with cudaErrorStreamCaptureUnsupported and also invalidate
// the whole capture (measured on the H200): the error surfaces far away, at end of capture.
// umsync's guards throw capture_error *before* such a call, and the capture stays valid.
//
// The class itself is defined in error.hpp, with the rest of umsync's exceptions: stream_view
// and event, which sit above capture/ in the layers, refuse a host synchronization of a
// capturing stream with it (detail/capture_check.hpp).
#pragma once

#include <umsync/config.hpp>
#include <umsync/error.hpp>
