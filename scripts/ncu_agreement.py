#!/usr/bin/env python3
"""The app's stopwatch against Nsight Compute's, on the GPU machine, in one call.

For each rung (LADDER/RUNG, at the ladder's default sizes, or LADDER/RUNG@AXIS=VALUE):
  - the runner's cold-L2 median with each flush of --flushes (KL_L2_FLUSH values, default write
    and write_discard; they are alternated ROUNDS times, so drift shows as a spread rather than
    as a difference), and its warm-L2 median;
  - `ncu --clock-control none` (Nsight Compute's own cache control: every cache flushed and
    cleaned before each profiled kernel) gpu__time_duration of the rung's kernels over REPS
    launches (the kernels launched REPS times: not the reference's or the inputs'), the median
    per kernel, summed over the rung's kernels. Event time also holds the gaps between a rung's
    kernels and the launch after the start event, which ncu's per-kernel time does not.
Prints a table last and writes every number to OUT (JSON). Needs the GPU and ncu; nothing here
runs in CI.

A target whose working set fits in L2 (vector_add@n=2^21) asks the other question: does the
flush evict it? Cold should then be above warm (GpuTiming.WarmL2IsFasterThanColdWhenTheDataFits).

With --ncu-after-flush, ncu also times the rung's kernels with `--cache-control none` inside the
runner's own cold run under each flush: the kernel's real time in the cache state that flush
leaves, which tells a slower kernel from a longer stopwatch. A flush named FLUSH+STEP is FLUSH
with KL_L2_FLUSH_AFTER=STEP (touch or reset, app/gpu/timing.h); FLUSH:span times the runner's
side with the GPU-span stopwatch (KL_STOPWATCH=span, app/gpu/span_stopwatch.h), whose
calibration and rungs then share that stopwatch.

Usage: ncu_agreement.py --kladder K --out FILE.json [--rounds N] [--reps N] [--flushes A,B]
       [--no-ncu] [--ncu-after-flush] LADDER/RUNG[@AXIS=VALUE]...
"""
import argparse
import csv
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HELPER_PREFIX = "kl_"  # the workbook's own kernels (fills, flush, clock probe): not the rung's


def flush_env(flush):
    """The runner's environment for a column of --flushes: FLUSH, FLUSH+STEP, and either with
    :span (KL_STOPWATCH=span, the GPU-span stopwatch; events otherwise)."""
    flush, _, stopwatch = flush.partition(":")
    base, _, after = flush.partition("+")
    if after not in ("", "touch", "reset"):
        raise ValueError(f"flush '{flush}': only '+touch' or '+reset' may follow the flush's name")
    if stopwatch not in ("", "events", "span"):
        raise ValueError(f"flush '{flush}': only ':events' or ':span' may follow it")
    return dict(os.environ, KL_L2_FLUSH=base, KL_L2_FLUSH_AFTER=after, KL_STOPWATCH=stopwatch or "events")


def app_median(kladder, ladder, rung, size, flush, warm, scratch):
    out = os.path.join(scratch, "run.json")
    cmd = [kladder, "run", ladder, "--rung", rung, "--json", out] + (["--size", size] if size else [])
    if warm:
        cmd.append("--warm-l2")
    done = subprocess.run(cmd, env=flush_env(flush), capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    with open(out) as f:
        run = json.load(f)["runs"][0]
    if run.get("error"):
        raise RuntimeError(f"{ladder}/{rung}: {run['error']}")
    return run["timing"]["median_ms"], run.get("stopwatch", "events"), run.get("stopwatch_note", "")


def ncu_medians(ncu, kladder, ladder, rung, size, reps, after_flush=None):
    """ncu's own cache control on a warm run, or (after_flush) none inside a cold run under it."""
    cache = ["--cache-control", "none"] if after_flush else []
    run = [kladder, "run", ladder, "--rung", rung, "--no-check", "--warmup", "0",
           "--reps", str(reps)] + ([] if after_flush else ["--warm-l2"]) + (["--size", size] if size else [])
    cmd = [ncu, "--clock-control", "none"] + cache + ["--print-units", "base", "--csv", "--metrics",
           "gpu__time_duration.sum", "--kernel-name", f"regex:^(?!{HELPER_PREFIX})"] + run
    env = flush_env(after_flush) if after_flush else None
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"ncu on {ladder}/{rung}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    text = done.stdout[done.stdout.find('"ID"'):]
    launches = []  # (kernel name, ns) in launch order
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("Metric Name") == "gpu__time_duration.sum":
            launches.append((row["Kernel Name"], float(row["Metric Value"].replace(",", ""))))
    return rung_repetitions(launches, reps, f"{ladder}/{rung}")


def rung_repetitions(launches, reps, what):
    """The rung's launches (the names launched at least `reps` times: the reference and input
    kernels run once a run) cut into `reps` repetitions in launch order. Returns the median per
    name (one launch), the launch counts, and the median over repetitions of each repetition's
    summed time (ms): a rung that launches one kernel name twice a repetition counts both."""
    counts = {}
    for name, _ in launches:
        counts[name] = counts.get(name, 0) + 1
    mine = [(name, ns) for name, ns in launches if counts[name] >= reps]
    if not mine:
        raise RuntimeError(f"ncu on {what}: no kernel profiled {reps} times")
    if len(mine) % reps:
        raise RuntimeError(f"ncu on {what}: {len(mine)} launches of the rung's kernels do not split into {reps} repetitions")
    per_rep = len(mine) // reps
    sums = [sum(ns for _, ns in mine[i * per_rep:(i + 1) * per_rep]) for i in range(reps)]
    per_name = {}
    for name, ns in mine:
        per_name.setdefault(name, []).append(ns)
    return ({name: statistics.median(v) / 1e6 for name, v in per_name.items()},
            {name: len(v) for name, v in per_name.items()}, statistics.median(sums) / 1e6)


def measure(args, target, ncu, scratch):
    ladder_rung, _, size = target.partition("@")
    ladder, rung = ladder_rung.split("/", 1)
    row = {"ladder": ladder, "rung": rung, "size": size, "cold_ms": {f: [] for f in args.flushes}}
    for _ in range(args.rounds):
        for flush in args.flushes:
            ms, stopwatch, note = app_median(args.kladder, ladder, rung, size, flush, False, scratch)
            wanted = "span" if flush.endswith(":span") else "events"
            if stopwatch != wanted:  # a span that fell back to events is not a span figure
                raise RuntimeError(f"{ladder}/{rung} under {flush}: timed by {stopwatch} ({note})")
            row["cold_ms"][flush].append(ms)
    row["warm_ms"] = app_median(args.kladder, ladder, rung, size, "write", True, scratch)[0]
    if not args.no_ncu:
        kernels, counts, per_repetition_ms = ncu_medians(ncu, args.kladder, ladder, rung, size, args.reps)
        row["ncu_kernels_ms"], row["ncu_launches"] = kernels, counts
        row["ncu_ms"] = per_repetition_ms
        if args.ncu_after_flush:
            row["ncu_after_flush_ms"] = {
                f: ncu_medians(ncu, args.kladder, ladder, rung, size, args.reps, f.split(":")[0])[2]
                for f in args.flushes}
    return row


def print_table(rows, flushes):
    print(f"{'rung':40} {'warm ms':>9} {'ncu ms':>9}  " + "  ".join(f"{f + ' ms (vs ncu, vs warm)':>38}" for f in flushes))
    for r in rows:
        name = r["ladder"] + "/" + r["rung"] + ("@" + r["size"] if r["size"] else "")
        ncu_ms = r.get("ncu_ms")
        cells = []
        for f in flushes:
            v = statistics.median(r["cold_ms"][f])
            vs_ncu = f"{100 * (v / ncu_ms - 1):+.1f}%" if ncu_ms else "-"
            after = r.get("ncu_after_flush_ms", {}).get(f)
            state = f", ncu here {after:.4f}" if after else ""
            cells.append(f"{v:.4f} ({vs_ncu}, {100 * (v / r['warm_ms'] - 1):+.1f}%{state})")
        print(f"{name:40} {r['warm_ms']:9.4f} {ncu_ms if ncu_ms else float('nan'):9.4f}  " + "  ".join(f"{c:>38}" for c in cells))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kladder", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--flushes", default="write,write_discard", type=lambda v: v.split(","))
    parser.add_argument("--no-ncu", action="store_true", help="runner figures only")
    parser.add_argument("--ncu-after-flush", action="store_true",
                        help="also ncu --cache-control none inside the runner's cold run under each flush")
    parser.add_argument("targets", nargs="+", metavar="LADDER/RUNG")
    args = parser.parse_args()
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    rows, failures = [], []
    with tempfile.TemporaryDirectory() as scratch:
        for target in args.targets:
            if "/" not in target:
                sys.exit(f"ncu_agreement.py: '{target}' is not LADDER/RUNG")
            try:
                rows.append(measure(args, target, ncu, scratch))
            except (RuntimeError, subprocess.TimeoutExpired, KeyError, ValueError) as e:
                failures.append(f"{target}: {e}")
    with open(args.out + ".tmp", "w") as f:
        json.dump({"flushes": args.flushes, "rows": rows, "failures": failures}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print_table(rows, args.flushes)
    for line in failures:
        print("FAILED", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
