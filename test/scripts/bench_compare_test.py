#!/usr/bin/env python3
"""Host tests of scripts/bench/compare.py on synthetic Google Benchmark JSON (no GPU needed).

Paired rows (umsync and raw CUDA in the same iterations, counter `ratio`) are judged on their
ratio, so a run on another host (every absolute time 20% slower, ratios unchanged) is "same" and
exits 0, with the 20% shown as absolute drift; a ratio that grew beyond the runs' noise is
"slower" and exits 1; a change inside the noise is "same" or "unsure" and exits 0; unpaired rows
are judged on their time and gate unless --gate ratios; different GPUs or host CPUs are named.

    python3 test/scripts/bench_compare_test.py
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench", "compare.py")


def samples(median, noise, count=3):
    """`count` repetitions whose median is `median` and whose relative sample stddev is `noise` (count 3)."""
    if count == 1:
        return [median]
    return [median * (1 - noise), median, median * (1 + noise)] + [median] * (count - 3)


def mean(values):
    return sum(values) / len(values)


def stddev(values):
    m = mean(values)
    return (sum((v - m) ** 2 for v in values) / (len(values) - 1)) ** 0.5


def benchmark(run_name, time, time_noise, ratio=None, ratio_noise=0.0, count=3, aggregates=True, unit="us"):
    """The rows Google Benchmark writes for one benchmark: aggregates (mean, median, stddev, cv) over
    `count` repetitions, or the repetition rows themselves. A paired row also reports raw_us,
    umsync_us and ratio (umsync / raw), as bench/support/timing.cuh's side_by_side does."""
    times = samples(time, time_noise, count)
    ratios = samples(ratio, ratio_noise, count) if ratio is not None else None
    base = dict(run_name=run_name, repetitions=count, threads=1, iterations=100, time_unit=unit)

    def counters(index_or_values):
        if ratios is None:
            return {}
        r, t = index_or_values
        return {"ratio": r, "umsync_us": t, "raw_us": t / r if r else 0.0}

    if not aggregates or count == 1:
        return [dict(base, name=run_name, run_type="iteration", repetition_index=i, real_time=t, cpu_time=t,
                     **counters((ratios[i] if ratios else None, t))) for i, t in enumerate(times)]
    rows = []
    columns = [times] + ([ratios] if ratios else [])
    for aggregate, f in (("mean", mean), ("median", lambda v: sorted(v)[len(v) // 2]), ("stddev", stddev),
                         ("cv", lambda v: stddev(v) / mean(v))):
        t = f(times)
        row = dict(base, name=f"{run_name}_{aggregate}", run_type="aggregate", aggregate_name=aggregate,
                   real_time=t, cpu_time=t)
        if ratios:
            row.update(ratio=f(ratios), umsync_us=t, raw_us=f([x / r for x, r in zip(*columns)]))
        rows.append(row)
    return rows


def write(path, benchmarks, gpu="NVIDIA H200", host_cpu="Intel(R) Xeon(R) Processor"):
    context = {"date": "synthetic", "host_name": "test"}
    if gpu is not None:
        context["gpu"] = gpu
    if host_cpu is not None:
        context["host_cpu"] = host_cpu
    with open(path, "w") as f:
        json.dump({"context": context, "benchmarks": benchmarks}, f)


def table_rows(stdout):
    """benchmark name -> the table's cells (decided by, old, new, change, noise, verdict, drift)."""
    rows = {}
    for line in stdout.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1:]
    return rows


class BenchCompare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.old = os.path.join(self.dir.name, "old.json")
        self.new = os.path.join(self.dir.name, "new.json")

    def tearDown(self):
        self.dir.cleanup()

    def compare(self, *options):
        result = subprocess.run([sys.executable, SCRIPT, self.old, self.new, *options], capture_output=True,
                                text=True)
        return result, table_rows(result.stdout)

    def paired_suite(self, time_scale=1.0, ratio_of=lambda name, r: r, host_cpu="Intel(R) Xeon(R) Processor"):
        """Four paired rows as the wrapper and pool families write them, times scaled by time_scale."""
        rows = []
        for name, time, noise, ratio, ratio_noise in (
                ("wrapper_launch/manual_time", 3.9, 0.06, 0.998, 0.014),
                ("wrapper_event_edge/manual_time", 4.6, 0.005, 1.005, 0.0065),
                ("alloc_pool_kept/1048576/16/manual_time", 4.4, 0.04, 0.999, 0.004),
                ("barrier_named_raw_vs_typed<4>/manual_time", 14.7, 0.0007, 1.0, 0.0)):
            rows += benchmark(name, time * time_scale, noise, ratio_of(name, ratio), ratio_noise)
        return rows

    def test_another_host_moves_times_not_ratios(self):
        write(self.old, self.paired_suite(), host_cpu="Intel(R) Xeon(R) Processor")
        write(self.new, self.paired_suite(time_scale=1.2), host_cpu="AMD EPYC 9654")
        result, rows = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(len(rows), 4, result.stdout)
        for name, cells in rows.items():
            self.assertEqual(cells[0], "ratio", name)
            self.assertEqual(cells[5], "same", name)
            self.assertTrue(cells[6].startswith("+20.0%"), cells)  # the host's drift, reported
        self.assertIn("slower", rows["wrapper_event_edge"][6])  # beyond that row's time noise, yet not gated
        self.assertIn("warning: different host CPU: 'Intel(R) Xeon(R) Processor' vs 'AMD EPYC 9654'", result.stdout)
        self.assertIn("4 paired rows, decided by their umsync/raw ratio: 4 same, 0 faster, 0 slower, 0 unsure",
                      result.stdout)
        self.assertIn("moved by a median +20.0%", result.stdout)
        self.assertIn("0 regression(s) in 4 compared benchmarks", result.stdout)

    def test_a_ratio_regression_beyond_noise_fails(self):
        write(self.old, self.paired_suite())
        write(self.new, self.paired_suite(ratio_of=lambda name, r: r * 1.10 if "event_edge" in name else r))
        result, rows = self.compare()
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(rows["wrapper_event_edge"][0], "ratio")
        self.assertEqual(rows["wrapper_event_edge"][3], "+10.0%")
        self.assertEqual(rows["wrapper_event_edge"][5], "**slower**")
        self.assertEqual(rows["wrapper_event_edge"][6].split()[0], "+0.0%")  # the time did not move
        self.assertEqual([cells[5] for name, cells in rows.items() if name != "wrapper_event_edge"], ["same"] * 3)
        self.assertIn("1 regression(s) in 4 compared benchmarks", result.stdout)

    def test_a_ratio_regression_on_another_host_still_fails(self):
        write(self.old, self.paired_suite(), host_cpu="CPU A")
        write(self.new, self.paired_suite(time_scale=0.8,
                                          ratio_of=lambda name, r: r * 1.08 if "pool" in name else r),
              host_cpu="CPU B")
        result, rows = self.compare("--gate", "ratios")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(rows["alloc_pool_kept/1048576/16"][5], "**slower**")
        self.assertTrue(rows["alloc_pool_kept/1048576/16"][6].startswith("-20.0%"))

    def test_a_change_inside_the_noise_is_not_a_regression(self):
        # wrapper_launch's ratio noise is 1.4%: +3% is below --min-change (same), +8% is beyond one
        # noise but not beyond 3 noises when the noise is 4% (unsure); neither fails.
        write(self.old, self.paired_suite())
        write(self.new, self.paired_suite(ratio_of=lambda name, r: r * 1.03 if "launch" in name else r))
        result, rows = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(rows["wrapper_launch"][5], "same")
        write(self.old, benchmark("wrapper_launch/manual_time", 3.9, 0.06, 1.0, 0.04))
        write(self.new, benchmark("wrapper_launch/manual_time", 3.9, 0.06, 1.08, 0.04))
        result, rows = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(rows["wrapper_launch"][5], "unsure")
        self.assertEqual(rows["wrapper_launch"][4], "+/-4.0%")  # the noise that decided, shown
        # Beyond --min-change but inside one noise (10%): same. Without a --min-change, +3% against
        # a 1.4% noise is beyond one noise but not three: unsure.
        write(self.old, benchmark("wrapper_launch/manual_time", 3.9, 0.06, 1.0, 0.10))
        write(self.new, benchmark("wrapper_launch/manual_time", 3.9, 0.06, 1.07, 0.10))
        result, rows = self.compare()
        self.assertEqual((result.returncode, rows["wrapper_launch"][5]), (0, "same"), result.stdout)
        write(self.old, benchmark("wrapper_launch/manual_time", 3.9, 0.06, 1.0, 0.014))
        write(self.new, benchmark("wrapper_launch/manual_time", 3.9, 0.06, 1.03, 0.014))
        result, rows = self.compare("--min-change", "0")
        self.assertEqual((result.returncode, rows["wrapper_launch"][5]), (0, "unsure"), result.stdout)

    def test_a_faster_ratio_passes(self):
        write(self.old, self.paired_suite())
        write(self.new, self.paired_suite(ratio_of=lambda name, r: r * 0.85 if "pool" in name else r))
        result, rows = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(rows["alloc_pool_kept/1048576/16"][5], "faster")

    def test_unpaired_rows_are_judged_on_time_and_gate_unless_ratios_only(self):
        write(self.old, self.paired_suite() + benchmark("alloc_cuda_malloc/1048576/manual_time", 16000, 0.02))
        write(self.new, self.paired_suite(time_scale=1.2) +
              benchmark("alloc_cuda_malloc/1048576/manual_time", 16000 * 1.2, 0.02))
        result, rows = self.compare()
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(rows["alloc_cuda_malloc/1048576"][:2], ["absolute", "16,000 us"])
        self.assertEqual(rows["alloc_cuda_malloc/1048576"][5], "**slower**")
        self.assertEqual(rows["alloc_cuda_malloc/1048576"][6], "-")
        result, rows = self.compare("--gate", "ratios")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(rows["alloc_cuda_malloc/1048576"][5], "slower")  # still said, not gated
        self.assertIn("not gated: --gate ratios", result.stdout)

    def test_different_gpus_warn(self):
        write(self.old, self.paired_suite(), gpu="NVIDIA H100 80GB HBM3")
        write(self.new, self.paired_suite(), gpu="NVIDIA H200")
        result, _ = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("warning: different GPU: 'NVIDIA H100 80GB HBM3' vs 'NVIDIA H200'", result.stdout)
        self.assertNotIn("different host CPU", result.stdout)

    def test_an_unrecorded_machine_warns(self):
        write(self.old, self.paired_suite(), gpu=None, host_cpu=None)
        write(self.new, self.paired_suite())
        result, _ = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("old.json does not record its GPU", result.stdout)
        self.assertIn("old.json does not record its host CPU", result.stdout)

    def test_rows_match_across_repetition_settings_and_raw_repetitions(self):
        # A quick run (other repeats, repetition rows instead of aggregates) still matches the full run.
        write(self.old, benchmark("family_a_advisor_vs_prefetch/1024/iterations:4/repeats:3/manual_time",
                                  0.4, 0.05, 0.99, 0.02))
        write(self.new, benchmark("family_a_advisor_vs_prefetch/1024/iterations:2/repeats:5/manual_time",
                                  0.4, 0.05, 0.99 * 1.2, 0.02, count=5, aggregates=False))
        result, rows = self.compare()
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertEqual(rows["family_a_advisor_vs_prefetch/1024"][0], "ratio")
        self.assertEqual(rows["family_a_advisor_vs_prefetch/1024"][5], "**slower**")

    def test_a_row_without_repetitions_is_unsure(self):
        write(self.old, self.paired_suite() + benchmark("family_a/um_prefetch/16777216/manual_time", 1800, 0, count=1))
        write(self.new, self.paired_suite() + benchmark("family_a/um_prefetch/16777216/manual_time", 2900, 0, count=1))
        result, rows = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(rows["family_a/um_prefetch/16777216"][4:6], ["n/a", "unsure"])

    def test_only_in_one_run_and_skipped_rows_are_listed(self):
        skipped = [dict(name="family_a/um_no_hints/16777216/manual_time", run_name="family_a/um_no_hints/16777216/"
                        "manual_time", run_type="iteration", real_time=0, cpu_time=0, time_unit="ms", iterations=0,
                        error_occurred=True, error_message="not enough free device memory")]
        write(self.old, self.paired_suite() + benchmark("graph_step/8/manual_time", 4.3, 0.02, 1.0, 0.01) + skipped)
        write(self.new, self.paired_suite() + skipped)
        result, _ = self.compare()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("`graph_step/8`: only in baseline", result.stdout)
        self.assertIn("`family_a/um_no_hints/16777216`: skipped in baseline: not enough free device memory",
                      result.stdout)

    def test_runs_without_repetitions_are_unusable(self):
        write(self.old, benchmark("launch_typed/manual_time", 4.0, 0, 0.99, 0, count=1))
        write(self.new, benchmark("launch_typed/manual_time", 4.0, 0, 0.99, 0, count=1))
        result, _ = self.compare()
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)
        self.assertIn("--benchmark_repetitions", result.stderr)

    def test_an_unreadable_run_is_unusable(self):
        write(self.old, self.paired_suite())
        with open(self.new, "w") as f:
            f.write('{"context": {}, "benchmarks": [')  # what a run stopped at a time limit leaves
        result, _ = self.compare()
        self.assertEqual(result.returncode, 2, result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
