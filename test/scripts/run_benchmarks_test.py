#!/usr/bin/env python3
"""Host tests of scripts/bench/run-benchmarks.sh's quick run and progress lines (no GPU needed).

    python3 test/scripts/run_benchmarks_test.py

A stub umsync_bench (Python) knows the benchmark names of the latest H200 run
(docs/results/latest/umsync-bench.json), applies --benchmark_filter as a regex search, logs its
arguments and writes Google Benchmark-shaped JSON. The tests check: the quick run passes 2
repetitions, min time 0.05 s and the context umsync_quick=1 to every group, measures every family
at exactly one size, every line of scripts/bench/quick_filter.txt selects something, a family the
file does not name runs at every size (and the run says so), the variables still override; the
full run keeps its filters and settings; both print the plan, each group's place and time left,
and benchmarks done within a group. Where g++ and Google Benchmark's headers are installed, one
more test builds a fake umsync_bench on the real library (the same names, manual time only) and
checks that Google Benchmark's own filter selects what the script counted and writes the
quick context into the JSON."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
SCRIPT = os.path.join(ROOT, "scripts", "bench", "run-benchmarks.sh")
QUICK_LIST = os.path.join(ROOT, "scripts", "bench", "quick_filter.txt")
LATEST = os.path.join(ROOT, "docs", "results", "latest", "umsync-bench.json")
GROUPS = {"ceilings": "^ceiling_", "unified_memory": "^family_a", "memory": "^alloc_|^edge_|^launch_typed",
          "wrappers": "^wrapper_", "library_calls": "^library_call_", "barriers": "^barrier_|^warp_specialized",
          "graphs": "^graph_", "launch_chain": "^launch_chain_",
          "cluster_reduce": "^cluster_reduce_", "tma_pipeline": "^tma_pipeline_", "nccl": "^nccl_"}
# Groups that run an executable of their own (not the stub): their quick lines are checked by name only.
OWN_EXECUTABLE = {"rmm": "^rmm_"}


NEWER_THAN_LATEST = [f"launch_chain_{mode}/{size}/manual_time" for mode in ("stream", "pdl", "graph", "graph_pdl")
                     for size in ("256/33792", "64/16777216")]
NEWER_THAN_LATEST += [f"cluster_reduce_{way}/{floats}/{group}/manual_time" for way in ("dsmem", "atomic", "two_kernels")
                      for floats in ("1081344", "69206016") for group in ("2", "4", "8")]
NEWER_THAN_LATEST += [f"tma_pipeline_{shape}/{stages}/{per_sm}/iterations:20/manual_time"
                      for shape in ("copy", "producer_consumer") for stages in ("one_stage", "two_stages", "four_stages")
                      for per_sm in ("1", "4")]


def latest_names():
    with open(LATEST) as f:
        data = json.load(f)
    names = []
    for row in data["benchmarks"]:
        if row.get("run_name", row["name"]) not in names:
            names.append(row.get("run_name", row["name"]))
    # The stub stands in for umsync_bench only: rows of groups with an executable of their own
    # (family R) are not its to run.
    names = [n for n in names if not any(re.search(regex, n) for regex in OWN_EXECUTABLE.values())]
    # Families added since the latest run was recorded: their names as bench/ registers them.
    for name in NEWER_THAN_LATEST:
        if name not in names:
            names.append(name)
    return names


def family_of(name):
    return re.split(r"[/<]", name, maxsplit=1)[0]


def size_of(name):
    """The instance without its family's strategy part: the numbers and <N> that say its size."""
    rest = re.sub(r"/(iterations:\d+|repeats:\d+|manual_time)", "", name)[len(family_of(name)):]
    return tuple(re.findall(r"\d+", rest))


STUB = r'''#!/usr/bin/env python3
import json, os, re, sys
names = [n for n in open(os.environ["STUB_NAMES"]).read().split("\n") if n]
args = sys.argv[1:]
opt = dict(a[2:].split("=", 1) for a in args if a.startswith("--") and "=" in a)
print("umsync_bench on stub", flush=True)
picked = [n for n in names if re.search(opt.get("benchmark_filter", ""), n)]
if opt.get("benchmark_list_tests") == "true":
    print("\n".join(picked))
    sys.exit(0)
with open(os.environ["STUB_LOG"], "a") as log:
    log.write(json.dumps(args) + "\n")
context = {"gpu": "stub"}
for kv in filter(None, opt.get("benchmark_context", "").split(",")):
    context[kv.split("=", 1)[0]] = kv.split("=", 1)[1]
rows = []
for n in picked:
    for agg in ("mean", "median", "stddev", "cv"):
        print(f"{n}_{agg}   1.00 ms   1.00 ms   3", flush=True)
        rows.append(dict(name=f"{n}_{agg}", run_name=n, run_type="aggregate", aggregate_name=agg,
                         real_time=1.0, cpu_time=1.0, time_unit="ms", iterations=3))
with open(opt["benchmark_out"], "w") as f:
    json.dump({"context": context, "benchmarks": rows}, f)
'''


class RunBenchmarks(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.names = latest_names()
        self.stub = os.path.join(self.dir.name, "umsync_bench")
        with open(self.stub, "w") as f:
            f.write(STUB)
        os.chmod(self.stub, 0o755)
        self.log = os.path.join(self.dir.name, "calls.jsonl")
        self.out = os.path.join(self.dir.name, "out")

    def tearDown(self):
        self.dir.cleanup()

    def run_script(self, names=None, seconds=300, bench=None, **env):
        names_file = os.path.join(self.dir.name, "names.txt")
        with open(names_file, "w") as f:
            f.write("\n".join(names or self.names) + "\n")
        base = {k: v for k, v in os.environ.items() if not k.startswith("UMSYNC_BENCH_")}
        base.update(UMSYNC_BENCH_NO_PLOTS="1", STUB_NAMES=names_file, STUB_LOG=self.log)
        base.update({k: v for k, v in env.items() if v is not None})
        return subprocess.run(["bash", SCRIPT, bench or self.stub, self.out, str(seconds)], capture_output=True,
                              text=True, env=base)

    def calls(self):
        with open(self.log) as f:
            calls = [json.loads(line) for line in f]
        return [dict(a[2:].split("=", 1) for a in call if "=" in a) for call in calls]

    def merged(self):
        with open(os.path.join(self.out, "umsync-bench.json")) as f:
            return json.load(f)

    def run_names(self):
        return {b["run_name"] for b in self.merged()["benchmarks"]}

    def test_quick_run_settings_and_context(self):
        result = self.run_script(UMSYNC_BENCH_QUICK="1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        calls = self.calls()
        self.assertEqual(len(calls), len(GROUPS))
        for call in calls:
            self.assertEqual(call["benchmark_repetitions"], "2")
            self.assertEqual(call["benchmark_min_time"], "0.05")
            self.assertEqual(call["benchmark_context"], "umsync_quick=1")
            self.assertEqual(call["benchmark_report_aggregates_only"], "true")
        self.assertEqual(self.merged()["context"].get("umsync_quick"), "1")
        with open(os.path.join(self.out, "bench-report", "report.md")) as f:
            first = f.readline()
        if "--quick" in subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "bench", "report.py"), "--help"],
                                       capture_output=True, text=True).stdout:
            self.assertIn("quick", first.lower())
        self.assertIn("quick run: one size per family", result.stdout)

    def test_quick_run_measures_every_family_at_one_size(self):
        result = self.run_script(UMSYNC_BENCH_QUICK="1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        ran = self.run_names()
        families = {family_of(n) for n in self.names}
        self.assertEqual({family_of(n) for n in ran}, families)
        for family in families:
            sizes = {size_of(n) for n in ran if family_of(n) == family}
            self.assertEqual(len(sizes), 1, f"{family}: {sorted(sizes)}")
        self.assertLess(len(ran), len(self.names) / 2)
        self.assertNotIn("every size of it runs", result.stdout)
        # Every line of the file selects at least one benchmark (no stale line).
        with open(QUICK_LIST) as f:
            lines = [line.split() for line in f if line.strip() and not line.startswith("#")]
        for group, regex in lines:
            if group in OWN_EXECUTABLE:
                self.assertTrue(regex.startswith(OWN_EXECUTABLE[group]), f"{regex} is outside group {group}")
                continue
            self.assertIn(group, GROUPS)
            self.assertTrue(any(re.search(regex, n) for n in ran), f"{regex} selects nothing")
            self.assertTrue(all(re.search(GROUPS[group], n) for n in self.names if re.search(regex, n)),
                            f"{regex} selects a benchmark outside group {group}")

    def test_a_family_the_quick_list_does_not_name_runs_at_every_size(self):
        extra = ["alloc_new_thing/1/manual_time", "alloc_new_thing/2/manual_time"]
        result = self.run_script(names=self.names + extra, UMSYNC_BENCH_QUICK="1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("quick: alloc_new_thing has no line in scripts/bench/quick_filter.txt: every size of it runs",
                      result.stdout)
        self.assertTrue(set(extra) <= self.run_names())

    def test_variables_override_the_quick_defaults(self):
        result = self.run_script(UMSYNC_BENCH_QUICK="1", UMSYNC_BENCH_REPETITIONS="4", UMSYNC_BENCH_MIN_TIME="0.1",
                                 UMSYNC_BENCH_GROUPS="graphs")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        [call] = self.calls()
        self.assertEqual((call["benchmark_repetitions"], call["benchmark_min_time"]), ("4", "0.1"))
        self.assertEqual(self.run_names(), {"graph_step/64/manual_time"})
        self.assertIn("graphs: group 1 of 1, family 1 of 1 (1 benchmark)", result.stdout)

    def test_quick_off_is_the_full_run(self):
        for value in (None, "0", ""):
            shutil.rmtree(self.out, ignore_errors=True)
            if os.path.exists(self.log):
                os.remove(self.log)
            result = self.run_script(UMSYNC_BENCH_QUICK=value)
            self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
            calls = self.calls()
            self.assertEqual([c["benchmark_filter"] for c in calls], list(GROUPS.values()))
            for call in calls:
                self.assertEqual((call["benchmark_repetitions"], call["benchmark_min_time"]), ("3", "0.2"))
                self.assertNotIn("benchmark_context", call)
            self.assertEqual(self.run_names(), set(self.names))
            self.assertNotIn("umsync_quick", self.merged()["context"])
            self.assertIn(f"full run: 11 groups, 36 families, {len(self.names)} benchmarks", result.stdout)

    def test_progress_lines(self):
        result = self.run_script(UMSYNC_BENCH_PROGRESS_SECONDS="0")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        out = result.stdout
        self.assertRegex(out, r"\[bench\] ceilings: group 1 of 11, families 1-3 of 36 \(3 benchmarks\); \d+ s left "
                              r"before the time limit, about \d+ s to go(, more than the time left: the last groups "
                              r"will not run)?; --benchmark_filter='\^ceiling_'")
        # The stub run's limit (300 s) is below the H200 reference (549 s): said at the start.
        self.assertRegex(out, r"\[bench\] ceilings: group 1 of 11.*about 564 s to go, more than the time left: the "
                              r"last groups will not run")
        self.assertRegex(out, r"\[bench\] nccl: group 11 of 11, families 35-36 of 36 \(10 benchmarks\)")
        self.assertIn(f"[bench] nccl: done in", out)
        self.assertIn(f"36 of 36 families, {len(self.names)} of {len(self.names)} benchmarks", out)
        self.assertRegex(out, r"\[bench\] unified_memory: 56 of 57 benchmarks done \(group 2 of 11\); \d+ s left "
                              r"before the time limit, about \d+ s to go")
        # One line per benchmark but the last of each group (that one is the group's "done" line).
        self.assertEqual(len(re.findall(r"benchmarks done \(group", out)), len(self.names) - len(GROUPS))
        self.assertRegex(out, r"\[bench\] done in \d+ s: .*umsync-bench.json")
        with open(os.path.join(self.out, "bench.txt")) as f:
            self.assertIn("[bench] graphs: group 7 of 11", f.read())

    def test_progress_counts_groups_in_the_build(self):
        names = [n for n in self.names if not n.startswith("nccl_")]
        result = self.run_script(names=names, UMSYNC_BENCH_QUICK="1")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("quick run (one size per family, scripts/bench/quick_filter.txt): 10 groups, 34 families",
                      result.stdout)
        self.assertIn("nccl: not in this build", result.stdout)
        self.assertIn("graphs: group 7 of 10, family 25 of 34 (1 benchmark)", result.stdout)

    def test_a_configured_executable_that_is_not_built_fails_before_measuring(self):
        # The bench tests name what configure made; a group whose executable is missing then is a
        # build that skipped it (the main job once lost its RMM decision so), not a smaller build.
        result = self.run_script(UMSYNC_BENCH_QUICK="1", UMSYNC_BENCH_EXECUTABLES="umsync_bench umsync_rmm_bench")
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        self.assertIn("umsync_rmm_bench was configured but is not built", result.stderr)
        self.assertIn("umsync_benchmarks", result.stderr)
        self.assertFalse(os.path.exists(self.log), "a benchmark ran")
        result = self.run_script(UMSYNC_BENCH_QUICK="1", UMSYNC_BENCH_EXECUTABLES="umsync_bench")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("rmm: not in this build", result.stdout)

    @unittest.skipUnless(shutil.which("g++") and os.path.exists("/usr/include/benchmark/benchmark.h"),
                         "g++ or Google Benchmark's headers are missing")
    def test_google_benchmark_selects_what_the_script_counted(self):
        source = os.path.join(self.dir.name, "fake.cpp")
        with open(source, "w") as f:
            f.write(FAKE)
        fake = os.path.join(self.dir.name, "fake_bench")
        build = subprocess.run(["g++", "-std=c++17", "-O0", source, "-o", fake, "-lbenchmark", "-lpthread"],
                               capture_output=True, text=True)
        if build.returncode != 0:
            self.skipTest("could not build against Google Benchmark: " + build.stderr[-300:])
        rows = os.path.join(self.dir.name, "rows.txt")
        with open(rows, "w") as f:
            for name in self.names:
                iterations = re.search(r"/iterations:(\d+)", name)
                repeats = re.search(r"/repeats:(\d+)", name)
                base = re.sub(r"/(iterations:\d+|repeats:\d+|manual_time)", "", name)
                f.write(f"{base} {iterations.group(1) if iterations else 0} {repeats.group(1) if repeats else 0}\n")
        result = self.run_script(bench=fake, UMSYNC_BENCH_QUICK="1", FAKE_ROWS=rows)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertEqual(self.merged()["context"].get("umsync_quick"), "1")
        ran = self.run_names()
        with open(QUICK_LIST) as f:
            regexes = [line.split()[1] for line in f if line.strip() and not line.startswith("#")]
        self.assertEqual(ran, {n for n in self.names if any(re.search(regex, n) for regex in regexes)})
        planned = int(re.search(r"families, (\d+) benchmarks", result.stdout).group(1))
        self.assertEqual(planned, len(ran))
        self.assertEqual({b["aggregate_name"] for b in self.merged()["benchmarks"]}, {"mean", "median", "stddev", "cv"})


# A fake umsync_bench on the real Google Benchmark: the names of FAKE_ROWS ("base iterations
# repetitions" per line, 0 = not fixed), each one reporting a manual time of 1 ms per iteration.
FAKE = r"""
#include <benchmark/benchmark.h>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
int main(int argc, char** argv) {
  std::printf("umsync_bench on fake\n");
  std::ifstream in(std::getenv("FAKE_ROWS"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    std::string name;
    long long iterations = 0;
    int repetitions = 0;
    s >> name >> iterations >> repetitions;
    auto* b = benchmark::RegisterBenchmark(name.c_str(), [](benchmark::State& state) {
      for (auto _ : state) state.SetIterationTime(1e-3);
    });
    if (iterations) b->Iterations(iterations);
    if (repetitions) b->Repetitions(repetitions);
    b->UseManualTime()->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
"""

if __name__ == "__main__":
    unittest.main()
