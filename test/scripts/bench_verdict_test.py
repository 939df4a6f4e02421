#!/usr/bin/env python3
"""Host tests of bench/report.py's verdict and claims on synthetic Google Benchmark JSON (no GPU
needed): the verdict picks the cheapest option and gives each option's ratio to it and to the
ceiling measured in the same run; a decision whose rows are missing says "not measured in this
run"; a seed claim is held, not held, partly held or not measured as the rows say; --quick or the
context key umsync_quick marks the report; the verdict figure is written and embedded at the top
when matplotlib is there, and the report is written without it otherwise.

    python3 test/scripts/bench_verdict_test.py"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench")


sys.path.insert(0, SCRIPTS)  # the pipeline's modules import each other by name
import runs  # noqa: E402
import verdict  # noqa: E402


def decide_launch_chain(run):
    return verdict.decide_one(run, "launch_chain")


def decide_cluster_reduction(run):
    return verdict.decide_one(run, "cluster_reduction")


def aggregate(run_name, cv=0.01, time=1.0, **counters):
    """The median and cv rows Google Benchmark writes for one benchmark with repetitions (the cv
    row carries each counter's cv too)."""
    median = dict(name=f"{run_name}_median", run_name=run_name, run_type="aggregate", aggregate_name="median",
                  real_time=time, cpu_time=time, time_unit="us", iterations=3, **counters)
    spread = dict(name=f"{run_name}_cv", run_name=run_name, run_type="aggregate", aggregate_name="cv",
                  real_time=cv, cpu_time=cv, time_unit="us", iterations=3, **{k: cv for k in counters})
    return [median, spread]


def allocation_rows(pool=4.0, malloc=80.0, threshold0=100.0):
    return (aggregate("alloc_cuda_malloc/1048576/manual_time", us_per_op=malloc) +
            aggregate("alloc_pool_kept_sync_each/1048576/1/manual_time", raw_us=pool, umsync_us=pool, ratio=1.0) +
            aggregate("alloc_pool_threshold0_sync_each/1048576/1/manual_time", raw_us=threshold0,
                      umsync_us=threshold0, ratio=1.0))


def family_a_rows(kib=65536):
    """Explicit copies at the ceiling, prefetch 1.2x it, faults 6x it (to the device)."""
    rows = []
    for name, to_device in (("step_buffer_device_only", 10.0), ("um_prefetch", 12.0), ("um_no_hints", 60.0)):
        rows += aggregate(f"family_a/{name}/{kib}/iterations:2/repeats:3/manual_time", to_device_ms=to_device,
                          ceiling_to_device_ms=10.0, ratio_to_device=to_device / 10.0, to_host_ms=2 * to_device,
                          ceiling_to_host_ms=20.0, resident_kernel_us=5.0, ceiling_kernel_us=5.0, ratio_resident=1.0)
    return rows


def graph_rows(b_step=300.0, c_step=50.0):
    return aggregate("graph_step/64/manual_time", raw_us=c_step, umsync_us=c_step, ratio=1.0, a_step_us=400.0,
                     b_step_us=b_step, c_step_us=c_step, d_step_us=c_step, c_capture_us=100.0,
                     c_instantiate_us=100.0, c_first_launch_us=50.0)


def pipeline_rows(named_gbps=3400.0, syncthreads_gbps=3390.0):
    us = 100.0
    return aggregate("warp_specialized_pipeline/1056/manual_time", **{
        "GB/s": named_gbps, "raw_named_GB/s": named_gbps, "syncthreads_GB/s": syncthreads_gbps, "raw_us": us,
        "umsync_us": us, "ratio": 1.0, "vs_syncthreads": syncthreads_gbps / named_gbps})


def launch_chain_rows(stream=4.6, pdl=3.8, graph=1.05, graph_pdl=0.75, long_stream=40.0, long_pdl=39.5):
    """Family P: per-kernel us of a chain of short kernels four ways, and of long kernels two ways."""
    rows = []
    for family, short, long in (("stream", stream, long_stream), ("pdl", pdl, long_pdl), ("graph", graph, None),
                                ("graph_pdl", graph_pdl, None)):
        rows += aggregate(f"launch_chain_{family}/256/33792/manual_time", raw_us=short, umsync_us=short, ratio=1.0)
        if long is not None:
            rows += aggregate(f"launch_chain_{family}/64/16777216/manual_time", raw_us=long, umsync_us=long,
                              ratio=1.0)
    return rows


def cluster_reduce_rows(short=None, long=None, skip_dsmem_8=False):
    """Family Q: per-reduction us of the three ways, at the launch-bound size for groups of 2, 4
    and 8 blocks, and at the bandwidth-bound size; GB/s counted as bytes read."""
    short = short or {"dsmem": {2: 6.0, 4: 5.0, 8: 5.5}, "atomic": {2: 8.0, 4: 8.0, 8: 8.0},
                      "two_kernels": {2: 7.0, 4: 7.0, 8: 7.0}}
    long = long or {"dsmem": 70.0, "atomic": 70.7, "two_kernels": 72.0}
    rows = []
    for way, groups in short.items():
        for group, us in groups.items():
            name = f"cluster_reduce_{way}/1081344/{group}/manual_time"
            if skip_dsmem_8 and way == "dsmem" and group == 8:
                rows.append(dict(name=name, run_name=name, run_type="iteration", error_occurred=True,
                                 error_message="this device places clusters of at most 4 blocks"))
                continue
            rows += aggregate(name, raw_us=us, umsync_us=us, ratio=1.0, **{"GB/s": 1081344 * 4 / us * 1e-3})
    for way, us in long.items():
        for group in (2, 4, 8):
            rows += aggregate(f"cluster_reduce_{way}/69206016/{group}/manual_time", raw_us=us, umsync_us=us, ratio=1.0,
                              **{"GB/s": 69206016 * 4 / us * 1e-3})
    return rows


def tma_rows(copy=None, compute=None, cutlass=True):
    """Family T: us per kernel of the four versions at each stage count and 1 or 4 blocks per SM;
    the row's own copy ceiling at 64 us. Without CUTLASS the rows carry the label saying why."""
    copy = copy or {"one_stage": 120.0, "two_stages": 90.0, "four_stages": 80.0}
    compute = compute or {"one_stage": 300.0, "two_stages": 200.0, "four_stages": 160.0}
    rows = []
    for family, stages in (("tma_pipeline_copy", copy), ("tma_pipeline_producer_consumer", compute)):
        for word, us in stages.items():
            for per_sm, slower in ((1, 1.5), (4, 1.0)):
                counters = dict(umsync_us=us * slower, raw_us=us * slower, ratio=1.0, plain_us=100.0 * slower,
                                ceiling_us=64.0)
                if cutlass:
                    counters.update(cutlass_us=us * slower * 1.1, umsync_vs_cutlass=1 / 1.1)
                median, spread = aggregate(f"{family}/{word}/{per_sm}/iterations:20/manual_time", **counters)
                if not cutlass:
                    median["label"] = "no CUTLASS rows: CUTLASS not found at configure time: no headers"
                rows += [median, spread]
    return rows


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.out = os.path.join(self.dir.name, "report")

    def tearDown(self):
        self.dir.cleanup()

    def write(self, benchmarks, **context):
        path = os.path.join(self.dir.name, "bench.json")
        with open(path, "w") as f:
            json.dump({"context": dict({"gpu": "synthetic GPU", "date": "test"}, **context),
                       "benchmarks": benchmarks}, f)
        return path

    def report(self, benchmarks, *args, context=None, plots=False):
        path = self.write(benchmarks, **(context or {}))
        command = [sys.executable, os.path.join(SCRIPTS, "report.py"), path, "--out", self.out, *args]
        if not plots:
            command.append("--no-plots")
        result = subprocess.run(command, capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            return f.read()

    @staticmethod
    def row_of(report, title):
        """The verdict table's row of the decision titled `title`."""
        rows = [line for line in report.splitlines() if line.startswith(f"| **{title}**")]
        assert len(rows) == 1, f"{len(rows)} verdict rows for {title!r}"
        return rows[0]

    @staticmethod
    def claim_of(report, claim_id):
        rows = [line for line in report.splitlines() if line.startswith(f"| {claim_id} |")]
        assert len(rows) == 1, f"{len(rows)} claim rows for {claim_id}"
        return rows[0]


class Verdict(Report):
    def test_the_cheapest_option_is_best_and_ratios_are_to_it(self):
        run = runs.Run(runs.load(self.write(allocation_rows(4.0, 80.0, 100.0)))[1])
        decision = verdict.decide_one(run, "allocation")
        self.assertEqual([o.label for o in decision.options][0], "a pool that keeps its memory")
        ratios = {o.label: o.ratio for o in decision.options}
        self.assertAlmostEqual(ratios["cudaMalloc + cudaFree"], 20.0)
        self.assertAlmostEqual(ratios["a pool at release threshold 0 (the default pool's setting)"], 25.0)
        self.assertTrue(decision.verdict.startswith("Use a pool that keeps its memory; cudaMalloc + cudaFree "
                                                   "costs 20.0x"), decision.verdict)

    def test_a_chain_of_dependent_kernels_ranks_the_four_launches_and_says_where_pdl_stops_paying(self):
        run = runs.Run(runs.load(self.write(launch_chain_rows()))[1])
        decision = verdict.decide_one(run, "launch_chain")
        self.assertEqual([o.label for o in decision.options],
                         ["graph of PDL launches", "graph replay", "PDL (umsync::launch_dependent)",
                          "stream order (umsync::launch)"])
        self.assertAlmostEqual(decision.options[-1].ratio, 4.6 / 0.75)
        self.assertIn("With bandwidth-bound kernels (16 Mi floats) PDL is 1.01x stream order", decision.verdict)
        slow = decide_launch_chain(runs.Run(runs.load(
            self.write(launch_chain_rows(pdl=5.0)))[1]))
        self.assertLess([o.label for o in slow.options].index("stream order (umsync::launch)"),
                        [o.label for o in slow.options].index("PDL (umsync::launch_dependent)"))

    def test_a_cross_block_reduction_ranks_the_three_ways_and_reports_cluster_sizes(self):
        ceiling = aggregate("ceiling_device_to_device/1024/manual_time", **{"GB/s": 69206016 * 4 / 35.0 * 1e-3})
        run = runs.Run(runs.load(self.write(cluster_reduce_rows() + ceiling))[1])
        decision = verdict.decide_one(run, "cluster_reduction")
        self.assertEqual([o.label for o in decision.options],
                         ["cluster DSMEM (umsync::cluster_shared_scope)", "two kernels (umsync::launch)",
                          "global atomics (umsync::launch)"])
        self.assertAlmostEqual(decision.options[0].value, 5.0)  # groups of 4, not 2 or 8
        self.assertAlmostEqual(decision.options[-1].ratio, 8.0 / 5.0)
        self.assertTrue(decision.verdict.startswith("Use cluster DSMEM"), decision.verdict)
        self.assertIn("DSMEM by cluster size (launch-bound): 2 blocks 6.000 us, 4 blocks 5.000 us, 8 blocks "
                      "5.500 us; fastest with 4.", decision.verdict)
        # The copy ceiling moves 264 MiB in 35 us: the bandwidth-bound rows read at 2x it.
        self.assertIn("Bandwidth-bound (264 MiB read, groups of 4): cluster DSMEM 70.0 us (2.00x ceiling), global "
                      "atomics 70.7 us (2.02x ceiling), two kernels 72.0 us (2.06x ceiling).", decision.verdict)
        self.assertIn("umsync / raw over the 18 rows: 1.000-1.000.", decision.verdict)
        row = self.row_of(self.report(cluster_reduce_rows() + ceiling),
                          "A cross-block reduction: cluster DSMEM, global atomics or two kernels")
        self.assertIn("**cluster DSMEM (umsync::cluster_shared_scope): 5.000 us, 1.00x", row)

    def test_a_cross_block_reduction_names_a_cluster_the_device_could_not_place(self):
        run = runs.Run(runs.load(self.write(cluster_reduce_rows(skip_dsmem_8=True)))[1])
        decision = verdict.decide_one(run, "cluster_reduction")
        self.assertEqual(len(decision.options), 3)
        self.assertIn("Not run: `cluster_reduce_dsmem/1081344/8`", decision.verdict)
        self.assertIn("fastest with 4.", decision.verdict)
        slow = decide_cluster_reduction(runs.Run(runs.load(self.write(
            cluster_reduce_rows(short={"dsmem": {4: 9.0}, "atomic": {4: 8.0}, "two_kernels": {4: 8.05}})))[1]))
        self.assertTrue(slow.verdict.startswith("Global atomics (umsync::launch) and two kernels (umsync::launch) cost "
                                                "the same within the run's spread"), slow.verdict)
        missing = decide_cluster_reduction(runs.Run(runs.load(self.write(
            allocation_rows()))[1]))
        self.assertFalse(missing.measured)

    def test_a_streamed_transform_ranks_the_pipelines_and_plain_loads_against_the_copy_ceiling(self):
        run = runs.Run(runs.load(self.write(tma_rows()))[1])
        decision = verdict.decide_one(run, "tma_or_plain")
        self.assertEqual([o.label for o in decision.options],
                         ["the umsync pipeline", "hand-written cuda::ptx", "CUTLASS PipelineTmaAsync",
                          "plain loads (no shared memory)"])
        self.assertAlmostEqual(decision.options[0].value, 80.0)  # four stages at 4 blocks per SM
        self.assertAlmostEqual(decision.options[0].ceiling, 80.0 / 64.0)
        self.assertAlmostEqual(decision.options[-1].ratio, 100.0 / 80.0)
        self.assertIn("With 32 rounds per word and 8 consumer warps (tma_pipeline_producer_consumer, four stages, "
                      "4 blocks per SM): the umsync pipeline 160.0 us (2.50x ceiling)", decision.verdict)
        self.assertIn("umsync / hand-written over the 12 rows: 1.000-1.000.", decision.verdict)
        self.assertIn("umsync / CUTLASS over the 12 rows: 0.909-0.909.", decision.verdict)
        plain = verdict.decide_one(runs.Run(runs.load(self.write(tma_rows(copy={"four_stages": 200.0})))[1]),
                                   "tma_or_plain")
        self.assertTrue(plain.verdict.startswith("Use plain loads"), plain.verdict)

    def test_a_build_without_cutlass_leaves_its_option_unmeasured(self):
        run = runs.Run(runs.load(self.write(tma_rows(cutlass=False)))[1])
        decision = verdict.decide_one(run, "tma_or_plain")
        self.assertEqual(len(decision.options), 3)
        self.assertEqual(decision.missing, ["CUTLASS PipelineTmaAsync: no tma_pipeline_copy row"])  # with cutlass_us
        self.assertIn("its rows' label says why", decision.timed)

    def test_pipeline_stages_rank_at_the_larger_grid_and_list_the_rest(self):
        run = runs.Run(runs.load(self.write(tma_rows()))[1])
        decision = verdict.decide_one(run, "tma_stages")
        self.assertEqual([o.label for o in decision.options],
                         ["four stages (umsync)", "two stages (umsync)", "one stage (umsync)"])
        self.assertAlmostEqual(decision.options[-1].ratio, 120.0 / 80.0)
        self.assertIn("4 blocks per SM", decision.timed)
        self.assertIn("With 32 rounds per word and 8 consumer warps at 4 blocks per SM: one stage 300.0 us.",
                      decision.verdict)
        self.assertIn("With 32 rounds per word and 8 consumer warps at 4 blocks per SM: four stages 160.0 us.",
                      decision.verdict)
        self.assertFalse(verdict.decide_one(runs.Run(runs.load(self.write(allocation_rows()))[1]),
                                            "tma_stages").measured)

    def test_the_best_changes_with_the_rows(self):
        run = runs.Run(runs.load(self.write(allocation_rows(90.0, 80.0, 100.0)))[1])
        decision = verdict.decide_one(run, "allocation")
        self.assertEqual(decision.options[0].label, "cudaMalloc + cudaFree")
        self.assertAlmostEqual(decision.options[1].ratio, 90.0 / 80.0)

    def test_the_report_opens_with_the_verdict_table(self):
        report = self.report(allocation_rows() + family_a_rows())
        self.assertLess(report.index("## Verdict"), report.index("| Decision"))
        self.assertLess(report.index("| Decision"), report.index("## Claims checked"))
        self.assertLess(report.index("## Claims checked"), report.index("## alloc_cuda_malloc"))
        row = self.row_of(report, "Allocation in a step")
        self.assertIn("**a pool that keeps its memory: 4.000 us, 1.00x**", row)
        self.assertIn("cudaMalloc + cudaFree: 80.0 us, 20.0x", row)
        self.assertIn("costs 25.0x", row)

    def test_ratios_to_the_ceiling_of_the_same_run(self):
        report = self.report(family_a_rows())
        row = self.row_of(report, "Managed memory to the device")
        self.assertIn("64 MiB, cold", row)
        self.assertIn("**explicit copies (`step_buffer<device_only>`): 10.0 ms, 1.00x, 1.00x ceiling**", row)
        self.assertIn("prefetch: 12.0 ms, 1.20x, 1.20x ceiling", row)
        self.assertIn("migrate on fault (no hints): 60.0 ms, 6.00x, 6.00x ceiling", row)
        # Strategies the run did not measure are named, the measured ones still compared.
        self.assertIn("not measured: the phase plan (`phase_advisor`): no family_a row", row)

    def test_the_warp_specialized_kernel_is_read_against_the_copy_ceiling(self):
        report = self.report(pipeline_rows(3400.0, 3390.0) +
                             aggregate("ceiling_device_to_device/1024/manual_time", **{"GB/s": 6800.0}))
        row = self.row_of(report, "Producer/consumer kernel: warp specialization or `__syncthreads()` lockstep")
        self.assertIn("warp specialization with umsync named barriers: 100.0 us, 1.00x, 2.00x ceiling", row)
        self.assertIn("cost the same within the run's spread: choose on other grounds", row)  # 0.3% apart

    def test_all_reduce_costs_are_per_gib_of_gradients(self):
        rows = (aggregate("nccl_overlap_efficiency/16/manual_time", overlapped_ms=1.5, serial_ms=1.7, compute_ms=1.2,
                          comm_ms=0.3, buckets=32.0) +  # 512 MiB of gradients
                aggregate("nccl_overlap_efficiency/256/manual_time", overlapped_ms=3.3, serial_ms=3.1, compute_ms=2.5,
                          comm_ms=0.5, buckets=4.0))  # 1 GiB
        row = self.row_of(self.report(rows), "Gradient all-reduce: overlapped with compute or serial, and the bucket "
                                             "size")
        self.assertIn("**overlap with 16 MiB buckets: 3.000 ms per GiB, 1.00x, 1.25x perfect overlap**", row)
        self.assertIn("serial with 256 MiB buckets (the best serial): 3.100 ms per GiB, 1.03x", row)
        self.assertIn("overlap with 256 MiB buckets: 3.300 ms per GiB, 1.10x", row)
        self.assertIn("Overlap is slower than serial at 256 MiB buckets.", row)

    def test_a_missing_decision_says_not_measured(self):
        report = self.report(allocation_rows())
        row = self.row_of(report, "Gradient all-reduce: overlapped with compute or serial, and the bucket size")
        self.assertIn("**not measured in this run**", row)
        row = self.row_of(report, "A training-like step: graph replay or stream launches")
        self.assertIn("**not measured in this run**", row)
        self.assertIn("not measured: graph replay (umsync capture): no graph_step row", row)

    def test_one_option_of_a_decision_missing_is_named(self):
        rows = [r for r in allocation_rows() if not r["run_name"].startswith("alloc_pool_threshold0")]
        row = self.row_of(self.report(rows), "Allocation in a step")
        self.assertIn("not measured: a pool at release threshold 0 (the default pool's setting): no "
                      "alloc_pool_threshold0_sync_each row", row)
        self.assertIn("Use a pool that keeps its memory; cudaMalloc + cudaFree costs 20.0x.", row)


class Claims(Report):
    def claims_file(self, text):
        path = os.path.join(self.dir.name, "claims.py")
        with open(path, "w") as f:
            f.write(text)
        return path

    def test_held_not_held_and_not_measured_from_the_real_table(self):
        report = self.report(graph_rows(b_step=300.0, c_step=50.0) + pipeline_rows(3400.0, 3390.0))
        self.assertTrue(self.claim_of(report, "G1").endswith("| **held** |"))  # 6x >= 1.13x
        self.assertIn("6.000x at 64 kernels (300.0 / 50.0)", self.claim_of(report, "G1"))
        self.assertTrue(self.claim_of(report, "B3").endswith("| **did not hold** |"))  # 1.003x < 1.28x
        self.assertIn("not measured: no benchmark applies read-mostly advice", self.claim_of(report, "R1"))
        self.assertTrue(self.claim_of(report, "R1").endswith("| not measured |"))
        self.assertIn("not measured in this run (its rows are missing)", self.claim_of(report, "P2"))

    def test_the_same_claim_turns_with_the_rows(self):
        report = self.report(graph_rows(b_step=52.0, c_step=50.0))  # 1.04x < 1.13x
        self.assertTrue(self.claim_of(report, "G1").endswith("| **did not hold** |"))

    def test_partly_held_over_sizes(self):
        rows = []
        for kib, faults, prefetch in ((4, 1.0, 1.0), (65536, 60.0, 10.0)):
            for name, ms in (("um_no_hints", faults), ("um_prefetch", prefetch)):
                rows += aggregate(f"family_a/{name}/{kib}/iterations:2/repeats:3/manual_time", to_device_ms=ms,
                                  ceiling_to_device_ms=1.0)
        claim = self.claim_of(self.report(rows), "P1")
        self.assertIn("1.000x at 4 KiB", claim)
        self.assertIn("6.000x at 64 MiB", claim)
        self.assertTrue(claim.endswith("| **partly held (1 of 2)** |"), claim)

    def test_fewer_warps_needs_two_warp_counts(self):
        def barriers(*warps):
            rows = []
            for n in warps:
                rows += aggregate(f"barrier_named_raw_vs_typed<{n}>/manual_time", raw_cycles=10.0 + 2 * n,
                                  umsync_cycles=10.0 + 2 * n, ratio=1.0)
                rows += aggregate(f"barrier_named_vs_syncthreads<{n}>/manual_time", raw_cycles=10.0 + 2 * n,
                                  umsync_cycles=10.0 + 2 * n, ratio=1.0)
            return rows
        quick = self.claim_of(self.report(barriers(4)), "B2")  # a quick run: one warp count
        self.assertTrue(quick.endswith("| not measured |"), quick)
        full = self.claim_of(self.report(barriers(1, 32)), "B2")  # 12 / 74 cycles = 0.16x <= 0.27x
        self.assertIn("0.162x at 1 warp vs 32 warps (12.0 / 74.0)", full)
        self.assertTrue(full.endswith("| **held** |"), full)
        same = self.claim_of(self.report(barriers(1, 32)), "B1")  # the same warps: 1.0x
        self.assertTrue(same.endswith("| **did not hold** |"), same)

    def test_a_claims_file_of_ones_own(self):
        path = self.claims_file('''CLAIMS = [
    {"id": "X1", "seed": "s.txt", "claim": "pools are 10x faster", "claimed": "10x",
     "a": ("alloc_cuda_malloc", "*", "us_per_op"), "b": ("alloc_pool_kept_sync_each", "*", "raw_us"),
     "pair": "same_size", "pick": "all", "expect": "at_least", "figure": 10.0, "size_unit": "B"},
    {"id": "X2", "seed": "s.txt", "claim": "the default pool costs at most half of cudaMalloc", "claimed": "0.5x",
     "a": ("alloc_pool_threshold0_sync_each", "*", "raw_us"), "b": ("alloc_cuda_malloc", "*", "us_per_op"),
     "pair": "same_size", "pick": "all", "expect": "at_most", "figure": 0.5, "size_unit": "B"},
    {"id": "X3", "seed": "s.txt", "claim": "within the spread", "claimed": "1.3x",
     "a": ("alloc_cuda_malloc", "*", "us_per_op"), "b": ("alloc_pool_threshold0_sync_each", "*", "raw_us"),
     "pair": "same_size", "pick": "all", "expect": "at_least", "figure": 0.81, "size_unit": "B"},
    {"id": "X4", "seed": "s.txt", "claim": "no rows", "claimed": "2x",
     "a": ("graph_step", "*", "a_step_us"), "b": "b_step_us", "pick": "all", "expect": "at_least",
     "figure": 2.0},
]
''')
        report = self.report(allocation_rows(4.0, 80.0, 100.0), "--claims", path)
        self.assertIn("20.0x at 1 MiB (80.0 / 4.000)", self.claim_of(report, "X1"))
        self.assertTrue(self.claim_of(report, "X1").endswith("| **held** |"))
        self.assertTrue(self.claim_of(report, "X2").endswith("| **did not hold** |"))  # 1.25x > 0.5x
        # 0.8x against 0.81x: short by 1.2%, within the 2% the spread allows at least.
        self.assertTrue(self.claim_of(report, "X3").endswith("| **held** |"))
        self.assertTrue(self.claim_of(report, "X4").endswith("| not measured |"))


class Quick(Report):
    def test_the_flag_marks_the_report(self):
        report = self.report(allocation_rows(), "--quick")
        self.assertTrue(report.startswith("# umsync benchmark report (quick run)\n"))
        self.assertIn("- **Quick run**", report)

    def test_the_context_marks_the_report(self):
        for value in ("1", True, "true"):
            report = self.report(allocation_rows(), context={"umsync_quick": value})
            self.assertTrue(report.startswith("# umsync benchmark report (quick run)\n"), value)

    def test_a_full_run_is_not_marked(self):
        for context in ({}, {"umsync_quick": "0"}, {"umsync_quick": False}):
            report = self.report(allocation_rows(), context=context)
            self.assertTrue(report.startswith("# umsync benchmark report\n"), context)
            self.assertNotIn("Quick run", report)

    def test_the_header_keeps_gpu_host_and_clocks(self):
        report = self.report(allocation_rows(), "--quick", context={"host_cpu": "Synthetic CPU", "num_cpus": 8,
                                                                    "mhz_per_cpu": 2000, "gpu_sm_clock_mhz": 1980})
        self.assertIn("- GPU: synthetic GPU;", report)
        self.assertIn("- Host CPU: Synthetic CPU (8 CPUs, 2000 MHz)", report)
        self.assertIn("- Also recorded by the run: gpu_sm_clock_mhz = 1980", report)


class Table(unittest.TestCase):
    """The decisions are data (decisions.py); verdict.py reads them and names no benchmark."""

    def test_every_entry_names_a_known_policy_and_known_notes(self):
        import decisions
        keys = [entry["key"] for entry in decisions.DECISIONS]
        self.assertEqual(len(keys), len(set(keys)), "two decisions share a key")
        for entry in decisions.DECISIONS:
            self.assertIn(entry["policy"], verdict.POLICIES, entry["key"])
            for note in entry.get("notes", []):
                self.assertIn(note["kind"], verdict.NOTES, entry["key"])
            for option in entry.get("options", []):
                for expression in (option["counter"], option.get("ceiling")):
                    if expression:  # well-formed: an empty row leaves it unmeasured, never raises
                        self.assertIsNone(verdict.evaluate(expression, {}, None), expression)

    def test_verdict_py_names_no_benchmark(self):
        import decisions
        with open(os.path.join(SCRIPTS, "verdict.py")) as f:
            code = f.read()
        families = {family for entry in decisions.DECISIONS for family in entry.get("families", [])}
        families |= {option["family"] for entry in decisions.DECISIONS for option in entry.get("options", [])}
        self.assertEqual([family for family in sorted(families) if family in code], [])

    def test_expressions(self):
        row = {"a": 6.0, "b": 3.0, "c": 2.0, "GB/s": 10.0, "zero": 0.0}
        self.assertEqual(verdict.evaluate("a / b", row), 2.0)
        self.assertEqual(verdict.evaluate("a + b * c", row), 12.0)
        self.assertEqual(verdict.evaluate("a - b - c", row), 1.0)
        self.assertEqual(verdict.evaluate("GB/s * 2", row), 20.0)
        self.assertIsNone(verdict.evaluate("a / zero", row))
        self.assertIsNone(verdict.evaluate("a / missing", row))


class Figure(Report):
    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed: no figure to check")
    def test_the_verdict_figure_is_written_and_embedded_first(self):
        report = self.report(allocation_rows() + family_a_rows(), plots=True)
        self.assertTrue(os.path.exists(os.path.join(self.out, "verdict.png")))
        figure = report.index("](verdict.png)")
        self.assertLess(figure, report.index("| Decision"))
        self.assertEqual(report[:figure].count("!["), 1)  # the first image of the report

    def test_without_plots_the_report_has_no_figure(self):
        report = self.report(allocation_rows())
        self.assertFalse(os.path.exists(os.path.join(self.out, "verdict.png")))
        self.assertNotIn("verdict.png", report)
        self.assertIn("| Decision", report)

    def test_without_matplotlib_the_report_says_so_and_installs_nothing(self):
        """A matplotlib that fails to import (a stub ahead on the path): no plots, a clear message
        on stderr and in the report, exit 0, and no package manager is run (PATH has none)."""
        stub = os.path.join(self.dir.name, "stub")
        os.makedirs(os.path.join(stub, "matplotlib"))
        with open(os.path.join(stub, "matplotlib", "__init__.py"), "w") as f:
            f.write("raise ImportError('no matplotlib here')\n")
        path = self.write(allocation_rows())
        env = dict(os.environ, PYTHONPATH=stub, PATH=os.path.join(self.dir.name, "empty-path"))
        result = subprocess.run([sys.executable, os.path.join(SCRIPTS, "report.py"), path, "--out", self.out],
                                capture_output=True, text=True, env=env)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("matplotlib is not installed, so this report has no plots", result.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        self.assertIn("matplotlib is not installed, so this report has no plots", report)
        self.assertNotIn(".png", report)
        self.assertFalse(os.path.exists(os.path.join(self.out, "verdict.png")))


if __name__ == "__main__":
    unittest.main()
