// The phase plan the phase tests share: a training-like step of four phases over three managed
// buffers. test/phase/phase_advisor_host_test.cpp checks the rules it derives and its
// describe() text, test/phase/phase_advisor_test.cu runs it on the GPU. examples/um_health_gate.cu
// declares the same plan (an example includes only umsync headers), and so does
// examples/training_step.cu, with one more buffer (its inputs) and a backward that does not read W.
//
//   forward:    the device reads weights, writes activations
//   backward:   the device reads weights and activations, writes grads
//   optimizer:  the device writes weights, reads grads
//   checkpoint: the host reads weights (to save them): read-mostly stays on, so the prefetch to
//               the host copies the pages and the device keeps its copy for the next forward
//
// Host code only, no CUDA: the host test includes it too.
#pragma once

#include <umsync/phase/phase_plan.hpp>

// Internal linkage, and outside any named namespace: describe() prints a tag by its type's
// spelling with an anonymous namespace stripped, so these print "forward", "weights", as in the
// examples and in docs/unified_memory.md.
namespace {
struct forward {};  // phases
struct backward {};
struct optimizer {};
struct checkpoint {};

struct weights {};  // buffers
struct activations {};
struct grads {};

using training = umsync::phase_plan<
    umsync::phase<forward, umsync::uses<weights, umsync::device_read>,
                  umsync::uses<activations, umsync::device_read_write>>,
    umsync::phase<backward, umsync::uses<weights, umsync::device_read>, umsync::uses<activations, umsync::device_read>,
                  umsync::uses<grads, umsync::device_read_write>>,
    umsync::phase<optimizer, umsync::uses<weights, umsync::device_read_write>,
                  umsync::uses<grads, umsync::device_read>>,
    umsync::phase<checkpoint, umsync::uses<weights, umsync::host_read>>>;
}  // namespace
