#!/usr/bin/env python3
"""Host tests of the main job's scripts on synthetic Google Benchmark JSON (no GPU needed):
bench/compare.py flags a regression beyond the measured noise and only that, and
bench/report.py writes a table per family with every counter, skipped rows with their reason,
and (when matplotlib is importable) a bandwidth-against-size plot for family A; bench/merge.py
keeps every complete part and names the ones cut short; run-benchmarks.sh (the main job's run)
says once that there is no GPU and fails, and a group stopped at the deadline loses only its rows."""
import importlib.util
import json
import os
import random
import subprocess
import sys
import tempfile
import unittest

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "bench")


def aggregate(run_name, median, stddev, **counters):
    """The three aggregate rows Google Benchmark writes for one benchmark with repetitions."""
    rows = []
    for name, value in (("mean", median), ("median", median), ("stddev", stddev)):
        rows.append(dict(name=f"{run_name}_{name}", run_name=run_name, run_type="aggregate", aggregate_name=name,
                         real_time=value, cpu_time=value, time_unit="ms", iterations=3, **counters))
    return rows


def write(path, benchmarks):
    with open(path, "w") as f:
        json.dump({"context": {"gpu": "synthetic", "date": "test"}, "benchmarks": benchmarks}, f)


def run(script, *args):
    return subprocess.run([sys.executable, os.path.join(SCRIPTS, script), *args], capture_output=True, text=True)


class BenchCompare(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.rng = random.Random()
        self.base = self.rng.uniform(1.0, 100.0)

    def tearDown(self):
        self.dir.cleanup()

    def compare(self, candidate_median, candidate_stddev):
        old = os.path.join(self.dir.name, "old.json")
        new = os.path.join(self.dir.name, "new.json")
        write(old, aggregate("step/1", self.base, 0.01 * self.base))
        write(new, aggregate("step/1", candidate_median, candidate_stddev))
        return run("compare.py", old, new)

    def test_same_time_is_not_a_regression(self):
        result = self.compare(self.base * 1.01, 0.01 * self.base)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("same", result.stdout)

    def test_slower_beyond_noise_is_a_regression(self):
        result = self.compare(self.base * 1.5, 0.01 * self.base)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("| **slower** |", result.stdout)  # a slower verdict that sets the exit status

    def test_slower_within_noise_is_not(self):
        result = self.compare(self.base * 1.2, 0.2 * self.base)  # 3 sigmas would be 60%
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)

    def test_a_different_host_cpu_is_named_and_the_verdict_kept(self):
        old = os.path.join(self.dir.name, "old.json")
        new = os.path.join(self.dir.name, "new.json")
        for path, cpu, median in ((old, "CPU A", self.base), (new, "CPU B", self.base * 1.5)):
            with open(path, "w") as f:
                json.dump({"context": {"gpu": "synthetic", "host_cpu": cpu},
                           "benchmarks": aggregate("step/1", median, 0.01 * self.base)}, f)
        result = run("compare.py", old, new)
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("warning: different host CPU: 'CPU A' vs 'CPU B'", result.stdout)
        self.assertNotIn("different GPU", result.stdout)

    def test_an_unrecorded_host_cpu_is_named(self):
        result = self.compare(self.base, 0.01 * self.base)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("old.json and ", result.stdout)
        self.assertIn("new.json do not record their host CPU", result.stdout)

    def test_runs_without_repetitions_are_unusable(self):
        path = os.path.join(self.dir.name, "single.json")
        write(path, [dict(name="step/1", run_name="step/1", run_type="iteration", real_time=1.0, cpu_time=1.0,
                          time_unit="ms", iterations=1)])
        result = run("compare.py", path, path)
        self.assertEqual(result.returncode, 2)


class BenchMerge(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.rng = random.Random()

    def tearDown(self):
        self.dir.cleanup()

    def part(self, name, run_name):
        path = os.path.join(self.dir.name, name)
        write(path, aggregate(run_name, self.rng.uniform(1.0, 100.0), 0.1))
        return path

    def test_complete_parts_merge_in_order(self):
        first = self.part("a.json", "ceiling_x/1")
        second = self.part("b.json", "family_a/um_prefetch/64")
        out = os.path.join(self.dir.name, "merged.json")
        result = run("merge.py", out, first, second)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(out) as f:
            merged = json.load(f)
        names = [b["run_name"] for b in merged["benchmarks"]]
        self.assertEqual(names, ["ceiling_x/1"] * 3 + ["family_a/um_prefetch/64"] * 3)
        self.assertEqual(merged["context"]["umsync_parts_missing"], [])
        self.assertEqual(merged["context"]["gpu"], "synthetic")

    def test_a_part_cut_short_is_named_and_the_rest_kept(self):
        first = self.part("a.json", "ceiling_x/1")
        cut = os.path.join(self.dir.name, "cut.json")
        with open(self.part("c.json", "graph_step/1")) as f:
            text = f.read()
        with open(cut, "w") as f:
            f.write(text[: len(text) // 2])  # what a killed run leaves behind
        out = os.path.join(self.dir.name, "merged.json")
        result = run("merge.py", out, first, cut, os.path.join(self.dir.name, "never-written.json"))
        self.assertEqual(result.returncode, 1)
        self.assertIn("cut.json", result.stderr)
        with open(out) as f:
            merged = json.load(f)
        self.assertEqual({b["run_name"] for b in merged["benchmarks"]}, {"ceiling_x/1"})
        self.assertEqual(merged["context"]["umsync_parts_missing"], ["cut.json", "never-written.json"])

    def test_nothing_complete_is_an_error(self):
        result = run("merge.py", os.path.join(self.dir.name, "merged.json"),
                     os.path.join(self.dir.name, "absent.json"))
        self.assertEqual(result.returncode, 2)


# Stands in for umsync_bench: lists one benchmark per filter (none for family F, as in a build
# without NCCL), sleeps in the graph group, writes a one-row JSON; UMSYNC_STUB_NO_GPU makes it
# fail like umsync_bench on a machine without a GPU.
STUB = r"""#!/bin/bash
if [ -n "${UMSYNC_STUB_NO_GPU:-}" ]; then echo "umsync_bench: no usable CUDA device (stub)" >&2; exit 1; fi
list=0; out=; filter=
for a in "$@"; do case $a in --benchmark_out=*) out=${a#*=};; --benchmark_filter=*) filter=${a#*=};;
  --benchmark_list_tests=true) list=1;; esac; done
echo "umsync_bench on stub"
name=$(echo "$filter" | tr -dc 'a-z')
if [ $list = 1 ]; then [ "$filter" != "^nccl_" ] && echo "$name/1"; exit 0; fi
[ "$filter" = "^graph_" ] && sleep "${UMSYNC_STUB_GRAPH_SECONDS:-0}"
printf '{"context":{"gpu":"stub"},"benchmarks":[{"name":"%s/1_median","run_name":"%s/1","aggregate_name":"median","real_time":1,"cpu_time":1,"time_unit":"ms"}]}' "$name" "$name" > "$out"
"""


class RunBenchmarks(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.stub = os.path.join(self.dir.name, "umsync_bench")
        with open(self.stub, "w") as f:
            f.write(STUB)
        os.chmod(self.stub, 0o755)
        self.out = os.path.join(self.dir.name, "out")

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, seconds, **env):
        return subprocess.run(["bash", os.path.join(SCRIPTS, "run-benchmarks.sh"), self.stub, self.out, str(seconds)],
                              capture_output=True, text=True,
                              env=dict(self.clean_environment(), UMSYNC_BENCH_NO_PLOTS="1", **env))

    @staticmethod
    def clean_environment():
        # The caller's UMSYNC_BENCH_* settings (a group subset, repetitions) would change the plan
        # these tests check, so the script runs with only what each test sets.
        return {k: v for k, v in os.environ.items() if not k.startswith("UMSYNC_BENCH_")}

    def merged(self):
        with open(os.path.join(self.out, "umsync-bench.json")) as f:
            return json.load(f)

    def test_no_gpu_is_said_once_and_fails(self):
        result = self.run_script(60, UMSYNC_STUB_NO_GPU="1")
        self.assertEqual(result.returncode, 1)
        self.assertEqual(result.stderr.count("no usable CUDA device"), 1, result.stderr)
        self.assertIn("needs a CUDA GPU", result.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.out, "umsync-bench.json")))

    def test_every_group_runs_and_merges_ceilings_first(self):
        result = self.run_script(120)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        names = [b["run_name"] for b in self.merged()["benchmarks"]]
        self.assertEqual(names[0], "ceiling/1")
        self.assertEqual(len(names), 10)  # twelve groups; family F and family R not in this build
        self.assertIn("nccl: not in this build", result.stdout)
        self.assertTrue(os.path.exists(os.path.join(self.out, "bench-report", "report.md")))

    def test_a_group_past_the_deadline_loses_only_its_rows(self):
        result = self.run_script(8, UMSYNC_STUB_GRAPH_SECONDS="30")
        self.assertEqual(result.returncode, 1)
        self.assertIn("graphs: stopped at the time limit", result.stdout)
        merged = self.merged()
        # The graph group was stopped; families P, Q and T come after it and had no time left (F,
        # R: not in this build).
        self.assertEqual(merged["context"]["umsync_parts_missing"],
                         ["bench-graphs.json", "bench-launch_chain.json", "bench-cluster_reduce.json",
                          "bench-tma_pipeline.json"])
        self.assertEqual([b["run_name"] for b in merged["benchmarks"]],
                         ["ceiling/1", "familya/1", "allocedgelaunchtyped/1", "wrapper/1", "librarycall/1",
                          "barrierwarpspecialized/1"])
        with open(os.path.join(self.out, "bench-report", "report.md")) as f:
            self.assertIn("Not in this report", f.read())


class BenchReport(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        rng = random.Random()
        benchmarks = []
        self.ratio = round(rng.uniform(1.1, 2.0), 3)
        for kib in (4, 1024, 65536):
            run_name = f"family_a/um_prefetch/{kib}/iterations:2/repeats:3/manual_time"
            benchmarks += aggregate(run_name, 1.0, 0.01, to_device_ms=kib / 1e4 + 0.01,
                                    ceiling_to_device_ms=kib / 2e4 + 0.01, ratio_to_device=self.ratio,
                                    um_gpu_faults=0.0)
        benchmarks.append(dict(name="family_a/um_no_hints/16777216/manual_time",
                               run_name="family_a/um_no_hints/16777216/manual_time", run_type="iteration",
                               real_time=0, cpu_time=0, time_unit="ms", iterations=0, error_occurred=True,
                               error_message="not enough free device memory"))
        benchmarks += aggregate("graph_step/8/manual_time", 0.3, 0.01, raw_us=8.9, umsync_us=8.8, ratio=0.99)
        self.json = os.path.join(self.dir.name, "bench.json")
        write(self.json, benchmarks)
        self.out = os.path.join(self.dir.name, "report")

    def tearDown(self):
        self.dir.cleanup()

    def test_tables_carry_every_counter_and_skipped_rows(self):
        result = run("report.py", self.json, "--out", self.out, "--no-plots")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            report = f.read()
        self.assertIn("## family_a", report)
        self.assertIn("## graph_step", report)
        self.assertIn("ratio_to_device", report)
        self.assertIn("um_gpu_faults", report)  # a counter METRICS does not list still shows
        self.assertIn(f"{self.ratio:.3f}", report)
        self.assertIn("| um_prefetch/65536 |", report)  # iterations/repeats/manual_time stripped
        self.assertIn("skipped: not enough free device memory", report)
        self.assertIn("- Host CPU: not recorded (? CPUs, ? MHz)", report)

    def test_report_names_the_host_cpu(self):
        with open(self.json) as f:
            data = json.load(f)
        model = f"Synthetic CPU {random.randrange(1000, 9999)}"
        data["context"].update(host_cpu=model, num_cpus=16, mhz_per_cpu=2100)
        with open(self.json, "w") as f:
            json.dump(data, f)
        result = run("report.py", self.json, "--out", self.out, "--no-plots")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        with open(os.path.join(self.out, "report.md")) as f:
            self.assertIn(f"- Host CPU: {model} (16 CPUs, 2100 MHz)", f.read())
        self.assertFalse([name for name in os.listdir(self.out) if name.endswith(".png")])

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib is not installed: no plots to check")
    def test_family_a_gets_a_plot(self):
        result = run("report.py", self.json, "--out", self.out)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.out, "family_a.png")))

    def test_empty_json_is_an_error(self):
        path = os.path.join(self.dir.name, "empty.json")
        write(path, [])
        result = run("report.py", path, "--out", self.out, "--no-plots")
        self.assertEqual(result.returncode, 1)


if __name__ == "__main__":
    unittest.main()
