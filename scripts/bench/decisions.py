"""The verdict's decisions as data: one entry per decision a user faces, in the report's order,
read by verdict.py (which holds no benchmark name). A new decision is a new entry here; a
decision whose rows are not in a run says "not measured in this run".

Every entry has
  key, title          an id and the report's heading
  quick_label         the heading in the verdict figure
  families            the families the decision covers (the others get "without a decision")
  policy              how its options are found and ranked (verdict.py, POLICIES):
    "sized"   each option is one row's value; the options compared at the size most of them
              measured (the largest of those). options: [{label, family, instance, counter, unit,
              ceiling}], instance a glob-free name with {size} for the size; counter and ceiling
              expressions (below); size_unit names the size for the text ("B", "KiB", "MiB",
              "warps", "kernels", "blocks", "" for none). timed: the text of what is timed, {size}
              replaced by the size chosen. missing: options never measured, with why.
    "paired"  rows that run umsync and raw CUDA side by side (a ratio counter next to a raw_*
              one) of the families starting with one of prefixes (all when absent): raw, the median
              pair and the slowest, as ratios to raw.
    "overlap" the all-reduce's buckets, overlapped against serial (its fields below).
  ceiling_label, ceiling_short   what the ceiling is (the report), its name in the figure
  notes               extra sentences after the verdict, each a {kind, ...} of verdict.py's NOTES

Expressions (counter, ceiling, value, cold, saved): counter names of the row, numbers and
run:FAMILY:COUNTER (that family's value at its largest size, e.g. a ceiling family's GB/s),
joined by + - * / with spaces around them ("umsync_us * GB/s / run:ceiling_device_to_device:GB/s").
A counter missing or not positive makes the expression unmeasured.
"""

# Family A's strategies: (label, instance name), shared by three decisions.
FAMILY_A = [("migrate on fault (no hints)", "um_no_hints"), ("prefetch", "um_prefetch"),
            ("preferred location + prefetch", "um_preferred_location_prefetch"),
            ("the phase plan (`phase_advisor`)", "phase_advisor_plan"), ("pipelined prefetch", "pipelined_prefetch"),
            ("explicit copies (`step_buffer<device_only>`)", "step_buffer_device_only"),
            ("accessed-by (the data stays on the host)", "um_accessed_by")]


def family_a(counter, ceiling, only=None, leave_out=()):
    return [{"label": label, "family": "family_a", "instance": f"{name}/{{size}}", "counter": counter, "unit":
             "ms" if counter.endswith("_ms") else "us", "ceiling": ceiling}
            for label, name in FAMILY_A if (only is None or name in only) and name not in leave_out]


LAUNCH_CHAIN_SHORT = 33792  # elements per kernel of family P's launch-bound rows (132 x 256 threads)
CLUSTER_REDUCE_SHORT = 1081344  # floats of family Q's launch-bound rows (1056 blocks x 256 threads x one float4)
CLUSTER_REDUCE_GROUP = 4  # blocks per group the decision ranks at; the other sizes go to the notes
CLUSTER_REDUCE_WAYS = (("cluster DSMEM (umsync::cluster_shared_scope)", "cluster DSMEM", "cluster_reduce_dsmem"),
                       ("global atomics (umsync::launch)", "global atomics", "cluster_reduce_atomic"),
                       ("two kernels (umsync::launch)", "two kernels", "cluster_reduce_two_kernels"))
# The device-to-device copy ceiling's time for the bytes a kernel moves (its GB/s counts them).
COPY_CEILING_US = "umsync_us * GB/s / run:ceiling_device_to_device:GB/s"
UMSYNC_OVER_RAW = {"kind": "range", "value": "ratio", "format": ".3f", "at_least": 1,
                   "text": "umsync / raw over the {count} rows: {min}-{max}."}

# Family T (bench/tma_pipeline_bench.cu): the four versions of each row, by counter, and the stage
# counts, by instance word; every row carries its own device-to-device copy ceiling (ceiling_us).
TMA_VERSIONS = (("the umsync pipeline", "umsync_us"), ("hand-written cuda::ptx", "raw_us"),
                ("CUTLASS PipelineTmaAsync", "cutlass_us"), ("plain loads (no shared memory)", "plain_us"))
TMA_STAGES = (("one stage", "one_stage"), ("two stages", "two_stages"), ("four stages", "four_stages"))
TMA_CEILING = ("cudaMemcpyAsync device to device of the same 128 MiB in the same iterations (the row's ceiling_us; "
               "the ceiling family's copy is 1 GiB)")
TMA_FAMILIES = ["tma_pipeline_copy", "tma_pipeline_producer_consumer"]

DECISIONS = [
    {"key": "allocation", "title": "Allocation in a step", "quick_label": "allocation (1 alloc + free + sync)",
     "families": ["alloc_cuda_malloc", "alloc_pool_kept_sync_each", "alloc_pool_threshold0_sync_each"],
     "policy": "sized", "size_unit": "B",
     "options": [
         {"label": "a pool that keeps its memory", "family": "alloc_pool_kept_sync_each", "instance": "{size}/1",
          "counter": "raw_us", "unit": "us"},
         {"label": "cudaMalloc + cudaFree", "family": "alloc_cuda_malloc", "instance": "{size}", "counter":
          "us_per_op", "unit": "us"},
         {"label": "a pool at release threshold 0 (the default pool's setting)", "family":
          "alloc_pool_threshold0_sync_each", "instance": "{size}/1", "counter": "raw_us", "unit": "us"}],
     "timed": "{size}: one allocation, its free and a stream sync, host-timed per allocation (raw CUDA calls; "
              "cudaFree synchronizes by itself). Warm: the kept pool already holds the memory; cold: threshold 0 "
              "hands it back at every sync, cudaMalloc maps it anew",
     "notes": [{"kind": "row", "family": "alloc_pool_kept", "instance": "{size}/1", "value": "raw_us",
                "text": "Without the sync, the kept pool costs {value} us per allocation."}]},

    {"key": "managed_to_device", "title": "Managed memory to the device",
     "quick_label": "managed memory: to the device", "families": ["family_a"],
     "ceiling_label": "pinned copy + the same kernel, same iteration",
     "policy": "sized", "size_unit": "KiB", "options": family_a("to_device_ms", "ceiling_to_device_ms"),
     "timed": "{size}, cold: the host has just written every byte; event-timed move to the device + one kernel "
              "(the steady state is the row below)"},

    {"key": "managed_to_host", "title": "Managed memory back to the host",
     "quick_label": "managed memory: back to the host", "families": ["family_a", "family_a_return"],
     "ceiling_label": "pinned copy from device memory, same iteration",
     "policy": "sized", "size_unit": "KiB",
     "options": family_a("to_host_ms", "ceiling_to_host_ms",
                         leave_out=("um_accessed_by", "um_preferred_location_prefetch", "pipelined_prefetch")) + [
         {"label": "copy into pinned staging (`copy_async`)", "family": "family_a_return",
          "instance": "copy_to_pinned/{size}", "counter": "to_host_ms", "unit": "ms", "ceiling": "ceiling_to_host_ms"},
         {"label": "prefetch over four streams", "family": "family_a_return", "instance":
          "prefetch_four_streams/{size}", "counter": "to_host_ms", "unit": "ms", "ceiling": "ceiling_to_host_ms"}],
     "timed": "{size}, data resident on the device; host-timed: the move back, a stream sync and the host reading "
              "one word per page"},

    {"key": "managed_steady", "title": "Managed memory, steady state",
     "quick_label": "managed memory: kernel on placed data", "families": ["family_a"],
     "ceiling_label": "the same kernel on device memory, same iteration",
     "policy": "sized", "size_unit": "KiB",
     "options": family_a("resident_kernel_us", "ceiling_kernel_us",
                         only=("um_no_hints", "um_prefetch", "phase_advisor_plan", "step_buffer_device_only",
                               "um_accessed_by")),
     "timed": "{size}, warm: the kernel once more on data already where the move left it, event-timed"},

    {"key": "prefetch_streams", "title": "Prefetch to the device: one stream or several",
     "quick_label": "prefetch: one stream or several", "families": ["family_a_entry"],
     "ceiling_label": "one pinned copy, same iteration",
     "policy": "sized", "size_unit": "KiB",
     "options": [{"label": label, "family": "family_a_entry", "instance": f"{name}/{{size}}", "counter":
                  "to_device_ms", "unit": "ms", "ceiling": "ceiling_to_device_ms"}
                 for label, name in (("one prefetch", "one_stream"), ("a prefetch split over 4 streams",
                                                                      "four_streams"),
                                     ("a prefetch split over 8 streams", "eight_streams"))],
     "timed": "{size} of host-resident managed data to the device, no kernel, host-timed until every stream is "
              "done"},

    {"key": "cross_stream", "title": "Ordering work across streams", "quick_label": "cross-stream ordering (per op)",
     "families": ["wrapper_event_edge", "wrapper_stream_sync", "edge_stream_dependency"],
     "policy": "sized", "size_unit": "",
     "options": [
         {"label": "an event edge (record + wait)", "family": "wrapper_event_edge", "instance": "-",
          "counter": "raw_us", "unit": "us"},
         {"label": "a host synchronization (stream)", "family": "wrapper_stream_sync", "instance": "-",
          "counter": "raw_us", "unit": "us"}],
     "missing": ["a device synchronization (`cudaDeviceSynchronize`): no benchmark row; the stream synchronization "
                 "is the closest"],
     "timed": "per operation, each with one empty kernel launch; host-timed over 1,000 (raw CUDA calls)",
     "notes": [{"kind": "row", "family": "edge_stream_dependency", "instance": "-", "value": "raw_us",
                "text": "The edge alone, without a kernel, costs {value} us."}]},

    {"key": "barrier", "title": "Block barrier: named barrier or `__syncthreads()`",
     "quick_label": "barrier latency (same warps)", "families": ["barrier_named_vs_syncthreads"],
     "policy": "sized", "size_unit": "warps",
     "options": [
         {"label": "a named barrier (umsync)", "family": "barrier_named_vs_syncthreads", "instance": "<{size}>",
          "counter": "umsync_cycles", "unit": "cycles"},
         {"label": "`__syncthreads()`", "family": "barrier_named_vs_syncthreads", "instance": "<{size}>",
          "counter": "raw_cycles", "unit": "cycles"}],
     "timed": "cycles per barrier, one block of {size}, every warp meets (clock64 on the device)",
     "notes": [{"kind": "ends", "family": "barrier_named_raw_vs_typed", "value": "umsync_cycles", "size_unit":
                "warps", "text": "What costs is how many warps meet: a named barrier takes {first} cycles over "
                                 "{first_size}, {last} over {last_size}."}]},

    {"key": "warp_specialization",
     "title": "Producer/consumer kernel: warp specialization or `__syncthreads()` lockstep",
     "quick_label": "producer/consumer kernel", "families": ["warp_specialized_pipeline"],
     "ceiling_label": "device-to-device copy bandwidth (ceiling_device_to_device), same run",
     "policy": "sized", "size_unit": "blocks",
     "options": [
         {"label": "warp specialization with umsync named barriers", "family": "warp_specialized_pipeline",
          "instance": "{size}", "counter": "umsync_us", "unit": "us", "ceiling": COPY_CEILING_US},
         {"label": "warp specialization with raw named barriers", "family": "warp_specialized_pipeline",
          "instance": "{size}", "counter": "raw_us", "unit": "us", "ceiling": COPY_CEILING_US},
         {"label": "`__syncthreads()` lockstep", "family": "warp_specialized_pipeline", "instance": "{size}",
          "counter": "umsync_us / vs_syncthreads", "unit": "us", "ceiling": COPY_CEILING_US}],
     "timed": "{size} of 4 producer + 4 consumer warps, event-timed per kernel"},

    {"key": "graph", "title": "A training-like step: graph replay or stream launches",
     "quick_label": "step: graph or streams", "families": ["graph_step"],
     "policy": "sized", "size_unit": "kernels",
     "options": [{"label": label, "family": "graph_step", "instance": "{size}", "counter": counter, "unit": "us"}
                 for label, counter in (("graph replay (umsync capture)", "c_step_us"),
                                        ("graph replay (raw capture)", "d_step_us"),
                                        ("a pool + stream launches", "b_step_us"),
                                        ("cudaMalloc + stream launches", "a_step_us"))],
     "timed": "warm: per step of {size} on two streams with two allocations, host-timed over a batch of steps; "
              "cold (capture + instantiate + first launch) in the verdict",
     "notes": [{"kind": "payback", "family": "graph_step", "instance": "{size}",
                "cold": "c_capture_us + c_instantiate_us + c_first_launch_us", "saved": "b_step_us - c_step_us",
                "text": "Cold, the graph costs {cold} us once (capture + instantiate + first launch)",
                "paid_back": ", paid back after {steps} steps.", "never": ", never paid back."},
               {"kind": "range", "families": ["graph_step"], "value": "b_step_us / c_step_us", "format": "ratio",
                "at_least": 2, "text": "Replay against streams over every N measured: {min}-{max} faster."}]},

    {"key": "launch_chain",
     "title": "A chain of short dependent kernels: stream order, PDL, graph or graph of PDL",
     "quick_label": "dependent kernels: PDL or graphs",
     "families": ["launch_chain_stream", "launch_chain_pdl", "launch_chain_graph", "launch_chain_graph_pdl"],
     "policy": "sized", "size_unit": "kernels",
     "options": [{"label": label, "family": family, "instance": f"{{size}}/{LAUNCH_CHAIN_SHORT}",
                  "counter": "umsync_us", "unit": "us"}
                 for label, family in (("stream order (umsync::launch)", "launch_chain_stream"),
                                       ("PDL (umsync::launch_dependent)", "launch_chain_pdl"),
                                       ("graph replay", "launch_chain_graph"),
                                       ("graph of PDL launches", "launch_chain_graph_pdl"))],
     "timed": f"per kernel of a chain of {{size}} ({LAUNCH_CHAIN_SHORT} floats each, one stream, each reading the "
              "previous output), host-timed from the first launch to the stream's sync",
     "notes": [{"kind": "quotient", "value": "umsync_us", "exclude": f"*/{LAUNCH_CHAIN_SHORT}",
                "a": "launch_chain_stream", "b": "launch_chain_pdl",
                "text": "With bandwidth-bound kernels (16 Mi floats) PDL is {ratio} stream order: the gap it hides "
                        "is small beside the kernel."},
               UMSYNC_OVER_RAW]},

    {"key": "cluster_reduction", "title": "A cross-block reduction: cluster DSMEM, global atomics or two kernels",
     "quick_label": "cross-block reduction", "families": [family for _, _, family in CLUSTER_REDUCE_WAYS],
     "ceiling_label": "device-to-device copy bandwidth (ceiling_device_to_device) for the bytes read, same run",
     "policy": "sized", "size_unit": "",
     "options": [{"label": label, "family": family, "instance": f"{CLUSTER_REDUCE_SHORT}/{CLUSTER_REDUCE_GROUP}",
                  "counter": "umsync_us", "unit": "us", "ceiling": COPY_CEILING_US}
                 for label, _, family in CLUSTER_REDUCE_WAYS],
     "timed": f"per reduction of {CLUSTER_REDUCE_SHORT:,} floats (4.1 MiB, launch-bound) by 1,056 blocks in groups "
              f"of {CLUSTER_REDUCE_GROUP} (one sum per group), event-timed over a batch of 32",
     "notes": [{"kind": "list", "family": "cluster_reduce_dsmem", "instance": f"{CLUSTER_REDUCE_SHORT}/*",
                "key": 1, "value": "umsync_us", "at_least": 2, "item": "{key} blocks {value} us",
                "text": "DSMEM by cluster size (launch-bound): {items}; fastest with {best}."},
               {"kind": "errors", "family": "cluster_reduce_dsmem",
                "text": "Not run: {items} (the device could not place the cluster)."},
               {"kind": "rows", "instance": f"*/{CLUSTER_REDUCE_GROUP}", "exclude": f"{CLUSTER_REDUCE_SHORT}/*",
                "rows": [{"label": short, "family": family} for _, short, family in CLUSTER_REDUCE_WAYS],
                "value": "umsync_us", "ceiling": COPY_CEILING_US, "item": "{label} {value} us",
                "item_ceiling": " ({ratio} ceiling)", "size_scale": 4, "size_unit": "B",
                "text": f"Bandwidth-bound ({{size}} read, groups of {CLUSTER_REDUCE_GROUP}): {{items}}."},
               UMSYNC_OVER_RAW]},

    {"key": "tma_or_plain", "title": "A streamed transform: TMA pipeline or plain loads",
     "quick_label": "TMA pipeline or plain loads", "families": ["tma_pipeline_copy"],
     "ceiling_label": TMA_CEILING, "ceiling_short": "copy ceiling",
     "policy": "sized", "size_unit": "blocks per SM",
     "options": [{"label": label, "family": "tma_pipeline_copy", "instance": "four_stages/{size}", "counter": counter,
                  "unit": "us", "ceiling": "ceiling_us"} for label, counter in TMA_VERSIONS],
     "timed": "128 MiB read and written, one round of an integer hash per word, {size}; the pipelines: 4 stages of "
              "8 KiB, one producer thread, 4 consumer warps; event-timed per kernel (a build without CUTLASS: its "
              "rows' label says why)",
     "notes": [{"kind": "rows", "instance": "four_stages/4",
                "rows": [{"label": label, "family": "tma_pipeline_producer_consumer"} for label, _ in
                         TMA_VERSIONS[:1]],
                "value": "umsync_us", "ceiling": "ceiling_us", "item": "{label} {value} us",
                "item_ceiling": " ({ratio} ceiling)",
                "text": "With 32 rounds per word and 8 consumer warps (tma_pipeline_producer_consumer, four stages, "
                        "4 blocks per SM): {items}."},
               {"kind": "range", "families": TMA_FAMILIES, "value": "ratio", "format": ".3f", "at_least": 1,
                "text": "umsync / hand-written over the {count} rows: {min}-{max}."},
               {"kind": "range", "families": TMA_FAMILIES, "value": "umsync_vs_cutlass", "format": ".3f",
                "at_least": 1, "text": "umsync / CUTLASS over the {count} rows: {min}-{max}."}]},

    {"key": "tma_stages", "title": "TMA pipeline stages: one, two or four",
     "quick_label": "TMA pipeline stages", "families": TMA_FAMILIES,
     "ceiling_label": TMA_CEILING, "ceiling_short": "copy ceiling",
     "policy": "sized", "size_unit": "blocks per SM",
     "options": [{"label": f"{label} (umsync)", "family": "tma_pipeline_copy", "instance": f"{word}/{{size}}",
                  "counter": "umsync_us", "unit": "us", "ceiling": "ceiling_us"} for label, word in TMA_STAGES],
     "timed": "the copy pipeline (128 MiB, one round per word, 4 consumer warps), {size}, stages of 8 KiB; "
              "event-timed per kernel",
     "notes": [{"kind": "rows", "instance": f"{word}/4",
                "rows": [{"label": label, "family": "tma_pipeline_producer_consumer"}],
                "value": "umsync_us", "item": "{label} {value} us",
                "text": "With 32 rounds per word and 8 consumer warps at 4 blocks per SM: {items}."}
               for label, word in TMA_STAGES]},

    {"key": "allreduce", "title": "Gradient all-reduce: overlapped with compute or serial, and the bucket size",
     "quick_label": "all-reduce overlap (one GPU)", "families": ["nccl_overlap_efficiency"],
     "ceiling_label": "perfect overlap: the longer of compute alone and all-reduce alone, same bucket",
     "ceiling_short": "perfect overlap",
     "policy": "overlap", "family": "nccl_overlap_efficiency", "overlapped": "overlapped_ms", "serial": "serial_ms",
     "alone": ["compute_ms", "comm_ms"], "buckets": "buckets",
     "missing": "overlapped and serial loops: no nccl_overlap_efficiency row (a build without NCCL?)",
     "overlapped_label": "overlap with {bucket} MiB buckets",
     "serial_label": "serial with {bucket} MiB buckets (the best serial)",
     "timed": "per backward step ({gradients} of gradients, in buckets), event-timed, {scaling}; one GPU (a one-rank "
              "communicator: the overlap measured is contention on one device, not network overlap)",
     "losing": "Overlap is slower than serial at {buckets} MiB buckets."},

    {"key": "library_calls", "title": "Library calls (cuBLAS, CUB, Thrust) through umsync or raw",
     "quick_label": "library calls: umsync / raw", "policy": "paired", "prefixes": ["library_call_"],
     "timed_what": "library calls (GEMM, reductions; small and large)", "raw_label": "the raw library call"},

    {"key": "resources", "title": "Buffers from an RMM resource: through a umsync buffer or the resource directly",
     "quick_label": "RMM resource: umsync / direct", "policy": "paired", "prefixes": ["rmm_"],
     "timed_what": "allocate + free pairs", "raw_label": "the resource called directly"},

    {"key": "wrappers", "title": "umsync's typed calls or the raw CUDA calls they wrap",
     "quick_label": "umsync / raw CUDA (paired rows)", "policy": "paired"},
]

# What each family times, cold or warm; printed under its heading in the report.
FAMILY_NOTES = {
    "alloc_cuda_malloc": "Host-timed per cudaMalloc + cudaFree (cudaFree synchronizes the device).",
    "alloc_pool_kept": "Host-timed per allocation + free from a pool that keeps its memory (warm), raw CUDA and "
                       "umsync side by side; instance: bytes/streams.",
    "alloc_pool_kept_sync_each": "As alloc_pool_kept, with a stream sync after each free (warm pool).",
    "alloc_pool_threshold0_sync_each": "A pool at release threshold 0 with a stream sync after each free: the memory "
                                       "goes back at every sync, so each allocation is cold.",
    "family_a": "Per strategy/size (KiB): `to_device` = cold (host-written data moved + one kernel, event-timed); "
                "`resident` = warm (the kernel again on placed data); `to_host` = move back + host reads (host-timed); "
                "`ceiling_*` = pinned copies with device memory in the same iteration.",
    "family_a_advisor_vs_prefetch": "The phase plan and raw prefetch on two buffers, paired in every iteration; "
                                    "ratio = plan / raw.",
    "family_a_entry": "Host-resident managed data prefetched to the device (no kernel), split over streams; "
                      "`fraction_of_pinned` = pinned-copy time / this time, same iteration.",
    "family_a_return": "Device-resident managed data back to the host + host reads; `fraction_of_pinned` = pinned-copy "
                       "time / this time, same iteration.",
    "graph_step": "Per step (instance: kernels), warm: a = cudaMalloc + streams, b = pool + streams, c = graph replay "
                  "(umsync capture), d = graph replay (raw capture); cold: `*_capture_us`, `*_instantiate_us`, "
                  "`*_first_launch_us`.",
    "warp_specialized_pipeline": "Event-timed per kernel (instance: blocks); GB/s counts bytes read + written.",
    "tma_pipeline_copy": "Event-timed per kernel (instance: stages/blocks per SM), 128 MiB read + written, one round "
                         "per word: umsync, hand-written (raw), CUTLASS and plain loads in the same iterations; "
                         "`*_fraction` = the same-size device-to-device copy (`ceiling_us`) / the version's time.",
    "tma_pipeline_producer_consumer": "As tma_pipeline_copy with 32 rounds per word and 8 consumer warps.",
}
