"""The seeds' claims that umsync's benchmarks can check, as data for the report's
"Claims checked" section (scripts/bench/report.py; claim_check.py runs the tests).

The seeds (../shared/seeds/*.txt beside the project) state figures about the choices the
benchmarks measure. Their API names and numbers are unverified or wrong; each claim below is a
paraphrase of one statement with its figure, and the test that the report runs on a run's JSON.
Nothing here is a measured figure: the verdict is computed from the JSON every time.

One claim is one dict:

  id        short name, unique (shown in the report)
  seed      the seed file the claim comes from, and where in it ("§4.2" = its section 4.2)
  claim     the claim, paraphrased in English
  claimed   the seed's figures, as the seed gives them, and the ratio derived from them
  a, b      the two measured values of the test: (family, instance, counter). The instance is a
            glob over the report's instance names ("*" = every instance); b given as a counter
            name alone means that counter of a's row. The measured figure is a / b.
  pair      how rows of a and b are paired: "same_row" (each row of a with itself; implied when
            b is a counter name), "same_size" (rows whose first number, the size, is equal), or
            "each" (a and b each pick one row by `pick`: a 2-tuple of picks)
  pick      which pairs are tested: "all", "largest" or "smallest" (by size); for pair="each",
            a 2-tuple (a's pick, b's pick)
  sizes     optional; "a_smaller": the pair counts only when a's size is below b's (else "not
            measured": e.g. a run that measured one warp count only)
  expect    "at_least" or "at_most": the claim holds when a / b reaches `figure` from that side,
            within the spread of a and b (their coefficients of variation over the repetitions,
            combined as the root of the sum of squares; at least 2%)
  figure    the ratio the claim implies (derived from the seed's numbers, see `claimed`)
  size_unit how to print the size in instance names ("KiB", "B", "warps", "MiB", "kernels"...)
  note      what the test compares exactly, and where it differs from the seed's setting
  why       only for a claim no benchmark measures: the reason (its verdict is "not measured")

The verdict: "held" when every tested pair meets the figure, "did not hold" when none does,
"partly held (k of n)" otherwise, "not measured" when the rows are not in the run.
"""

SEED_BARRIERS_UM = "000_2bbce995e00a2676.txt"
SEED_UM_POOLS_GRAPHS = "003_13d616bc1c0c6e3f.txt"

CLAIMS = [
    {
        "id": "B1",
        "seed": f"{SEED_BARRIERS_UM} §4.2",
        "claim": "Replacing `__syncthreads()` by a named barrier (`__barrier_sync`) cuts the latency of a barrier 3.7x",
        "claimed": "320 ns -> 86 ns per barrier (0.27x)",
        "a": ("barrier_named_vs_syncthreads", "*", "umsync_cycles"),
        "b": "raw_cycles",
        "pair": "same_row",
        "pick": "all",
        "expect": "at_most",
        "figure": 86 / 320,
        "size_unit": "warps",
        "note": "named barrier / `__syncthreads()` over the same warps (the whole block), cycles per barrier",
    },
    {
        "id": "B2",
        "seed": f"{SEED_BARRIERS_UM} §4.2",
        "claim": "Syncing only the one warp that shares data (named barrier) instead of the whole 1,024-thread "
                 "block (`__syncthreads()`) cuts the barrier's latency 3.7x",
        "claimed": "320 ns -> 86 ns per barrier (0.27x)",
        "a": ("barrier_named_raw_vs_typed", "*", "umsync_cycles"),
        "b": ("barrier_named_vs_syncthreads", "*", "raw_cycles"),
        "pair": "each",
        "pick": ("smallest", "largest"),
        "sizes": "a_smaller",
        "expect": "at_most",
        "figure": 86 / 320,
        "size_unit": "warps",
        "note": "named barrier over the fewest warps measured / `__syncthreads()` over the most warps measured, "
                "cycles per barrier; the named-barrier row runs in a block of that many warps, with no other "
                "warps running beside it",
    },
    {
        "id": "B3",
        "seed": f"{SEED_BARRIERS_UM} §4.2",
        "claim": "Named barriers instead of `__syncthreads()` raise a kernel's effective bandwidth by 28%",
        "claimed": "+28% effective bandwidth (1.28x)",
        "a": ("warp_specialized_pipeline", "*", "GB/s"),
        "b": "syncthreads_GB/s",
        "pair": "same_row",
        "pick": "all",
        "expect": "at_least",
        "figure": 1.28,
        "size_unit": "blocks",
        "note": "warp-specialized producer/consumer kernel with umsync named barriers / the same roles in "
                "lockstep with `__syncthreads()`, GB/s (read + write), same run and iterations",
    },
    {
        "id": "P1",
        "seed": f"{SEED_UM_POOLS_GRAPHS} §2.1",
        "claim": "Prefetching managed memory (CUDA 13's prefetch) instead of migrating it on fault cuts its "
                 "access latency 2.66x",
        "claimed": "84.2 us -> 31.7 us (2.66x); the seed compares CUDA 12.4 with 13.0",
        "a": ("family_a", "um_no_hints/*", "to_device_ms"),
        "b": ("family_a", "um_prefetch/*", "to_device_ms"),
        "pair": "same_size",
        "pick": "all",
        "expect": "at_least",
        "figure": 84.2 / 31.7,
        "size_unit": "KiB",
        "note": "host-written managed data moved to the device + one kernel: no hints (fault-driven) / "
                "`cudaMemPrefetchAsync` first, same size; one CUDA version per run, so the seed's version "
                "comparison itself is not measured",
    },
    {
        "id": "P2",
        "seed": f"{SEED_UM_POOLS_GRAPHS} §2.1",
        "claim": "Prefetched managed memory reaches 92% of the peak bandwidth",
        "claimed": "92% of peak (68% before)",
        "a": ("family_a_entry", "one_stream/*", "ceiling_to_device_ms"),
        "b": "to_device_ms",
        "pair": "same_row",
        "pick": "largest",
        "expect": "at_least",
        "figure": 0.92,
        "size_unit": "KiB",
        "note": "pinned-copy time / prefetch time to the device (one stream, no kernel), same iteration: the "
                "fraction of the pinned-copy ceiling",
    },
    {
        "id": "R1",
        "seed": f"{SEED_BARRIERS_UM} §4.3",
        "claim": "Read-mostly advice (`cudaMemAdviseSetReadMostly`) in the forward phase lowers migration cost",
        "claimed": "part of 18.7 -> 3.2 migrations per step, 62% -> 91% bandwidth",
        "a": None,
        "why": "no benchmark applies read-mostly advice",
    },
    {
        "id": "R2",
        "seed": f"{SEED_BARRIERS_UM} §4.3",
        "claim": "Phase-aware hints move managed data 1.47x faster than one static hint (preferred location on "
                 "the GPU)",
        "claimed": "62% -> 91% of UM bandwidth (1.47x)",
        "a": ("family_a", "um_preferred_location_prefetch/*", "to_device_ms"),
        "b": ("family_a", "phase_advisor_plan/*", "to_device_ms"),
        "pair": "same_size",
        "pick": "largest",
        "expect": "at_least",
        "figure": 91 / 62,
        "size_unit": "KiB",
        "note": "preferred location + prefetch / umsync's phase plan (`phase_advisor`), time to the device with "
                "one kernel, largest size both measured",
    },
    {
        "id": "R3",
        "seed": f"{SEED_BARRIERS_UM} §4.3",
        "claim": "Phase-aware hints reach 91% of the bandwidth",
        "claimed": "91% of UM bandwidth",
        "a": ("family_a", "phase_advisor_plan/*", "ceiling_to_device_ms"),
        "b": "to_device_ms",
        "pair": "same_row",
        "pick": "largest",
        "expect": "at_least",
        "figure": 0.91,
        "size_unit": "KiB",
        "note": "pinned copy + kernel / phase plan's move + kernel, same iteration: the fraction of the "
                "pinned-copy ceiling, largest size",
    },
    {
        "id": "U1",
        "seed": f"{SEED_BARRIERS_UM} §2.3",
        "claim": "Gradients in managed memory (migrate on fault) make the all-reduce's sync 1.39x slower than "
                 "pinned memory",
        "claimed": "184.2 us -> 256.8 us (1.39x)",
        "a": None,
        "why": "the all-reduce benchmark uses device memory only",
    },
    {
        "id": "A1",
        "seed": f"{SEED_UM_POOLS_GRAPHS} §4.2",
        "claim": "Stream-ordered allocation (`cudaMallocAsync`, the default pool) instead of `cudaMalloc` speeds a "
                 "training step up 7.4%",
        "claimed": "3,240 -> 3,480 samples/s (1.074x), ResNet-50",
        "a": ("alloc_cuda_malloc", "*", "us_per_op"),
        "b": ("alloc_pool_threshold0_sync_each", "*", "raw_us"),
        "pair": "same_size",
        "pick": "all",
        "expect": "at_least",
        "figure": 3480 / 3240,
        "size_unit": "B",
        "note": "`cudaMalloc` + `cudaFree` / `cudaMallocFromPoolAsync` + `cudaFreeAsync` from a pool at release "
                "threshold 0 (the default pool's setting) with a stream sync after each free, per allocation",
    },
    {
        "id": "A2",
        "seed": f"{SEED_UM_POOLS_GRAPHS} §4.2",
        "claim": "A memory pool instead of `cudaMalloc` speeds a training step up 14.5%",
        "claimed": "3,240 -> 3,710 samples/s (1.145x), ResNet-50",
        "a": ("graph_step", "*", "a_step_us"),
        "b": "b_step_us",
        "pair": "same_row",
        "pick": "all",
        "expect": "at_least",
        "figure": 3710 / 3240,
        "size_unit": "kernels",
        "note": "a step of two allocations and N small kernels on two streams: `cudaMalloc` + `cudaFree` / a pool "
                "that keeps its memory, per step (launch-bound kernels: a model's longer kernels dilute "
                "the gain)",
    },
    {
        "id": "G1",
        "seed": f"{SEED_UM_POOLS_GRAPHS} §4.2",
        "claim": "Capturing the step in a CUDA graph speeds it up 13% over the pool on streams",
        "claimed": "3,710 -> 4,190 samples/s (1.13x), ResNet-50; BERT-Large 1.18x",
        "a": ("graph_step", "*", "b_step_us"),
        "b": "c_step_us",
        "pair": "same_row",
        "pick": "all",
        "expect": "at_least",
        "figure": 4190 / 3710,
        "size_unit": "kernels",
        "note": "the same step on streams with a pool / replayed from a graph captured with umsync, per step, "
                "warm (capture and instantiation not counted)",
    },
]
