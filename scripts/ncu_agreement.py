#!/usr/bin/env python3
"""The app's stopwatch against Nsight Compute's, on the GPU machine, in one call.

For each rung (LADDER/RUNG), at the ladder's default sizes:
  - the runner's cold-L2 median with each flush (KL_L2_FLUSH=write, then write_discard; the two
    are alternated ROUNDS times, so drift shows as a spread rather than as a difference), and
    its warm-L2 median;
  - `ncu --clock-control none` (Nsight Compute's own cache control: every cache flushed and
    cleaned before each profiled kernel) gpu__time_duration of the rung's kernels over REPS
    launches (the kernels launched REPS times: not the reference's or the inputs'), the median
    per kernel, summed over the rung's kernels. Event time also holds the gaps between a rung's
    kernels and the launch after the start event, which ncu's per-kernel time does not.
Prints a table last and writes every number to OUT (JSON). Needs the GPU and ncu; nothing here
runs in CI.

Usage: ncu_agreement.py --kladder K --out FILE.json [--rounds N] [--reps N] LADDER/RUNG...
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


def app_median(kladder, ladder, rung, flush, warm, scratch):
    out = os.path.join(scratch, "run.json")
    cmd = [kladder, "run", ladder, "--rung", rung, "--json", out]
    if warm:
        cmd.append("--warm-l2")
    env = dict(os.environ, KL_L2_FLUSH=flush)
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    with open(out) as f:
        run = json.load(f)["runs"][0]
    if run.get("error"):
        raise RuntimeError(f"{ladder}/{rung}: {run['error']}")
    return run["timing"]["median_ms"], run["timing"].get("reps")


def ncu_medians(ncu, kladder, ladder, rung, reps):
    cmd = [ncu, "--clock-control", "none", "--print-units", "base", "--csv", "--metrics",
           "gpu__time_duration.sum", "--kernel-name", f"regex:^(?!{HELPER_PREFIX})",
           kladder, "run", ladder, "--rung", rung, "--no-check", "--warm-l2", "--warmup", "0",
           "--reps", str(reps)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"ncu on {ladder}/{rung}: exit {done.returncode}: {done.stderr.strip()[-400:]}")
    text = done.stdout[done.stdout.find('"ID"'):]
    per_kernel = {}
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        ns = float(row["Metric Value"].replace(",", ""))
        per_kernel.setdefault(row["Kernel Name"], []).append(ns)
    # The rung's kernels run once per repetition; the reference and input kernels once a run.
    per_kernel = {name: v for name, v in per_kernel.items() if len(v) >= reps}
    if not per_kernel:
        raise RuntimeError(f"ncu on {ladder}/{rung}: no kernel profiled {reps} times")
    return {name: statistics.median(v) / 1e6 for name, v in per_kernel.items()}, \
        {name: len(v) for name, v in per_kernel.items()}


def measure(args, target, ncu, scratch):
    ladder, rung = target.split("/", 1)
    row = {"ladder": ladder, "rung": rung, "write_ms": [], "write_discard_ms": []}
    for _ in range(args.rounds):
        for flush in ("write", "write_discard"):
            row[f"{flush}_ms"].append(app_median(args.kladder, ladder, rung, flush, False, scratch)[0])
    row["warm_ms"] = app_median(args.kladder, ladder, rung, "write_discard", True, scratch)[0]
    kernels, counts = ncu_medians(ncu, args.kladder, ladder, rung, args.reps)
    row["ncu_kernels_ms"], row["ncu_launches"] = kernels, counts
    row["ncu_ms"] = sum(kernels.values())
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kladder", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--reps", type=int, default=20)
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
        json.dump({"rows": rows, "failures": failures}, f, indent=1)
    os.replace(args.out + ".tmp", args.out)
    print(f"{'rung':34} {'write ms':>18} {'write+discard ms':>18} {'warm ms':>9} {'ncu ms':>9} "
          f"{'write/ncu':>9} {'discard/ncu':>11}")
    for r in rows:
        w, d = statistics.median(r["write_ms"]), statistics.median(r["write_discard_ms"])
        spread = lambda v: f"{min(v):.4f}-{max(v):.4f}"
        print(f"{r['ladder'] + '/' + r['rung']:34} {spread(r['write_ms']):>18} {spread(r['write_discard_ms']):>18} "
              f"{r['warm_ms']:9.4f} {r['ncu_ms']:9.4f} {100 * (w / r['ncu_ms'] - 1):+8.2f}% {100 * (d / r['ncu_ms'] - 1):+10.2f}%")
    for line in failures:
        print("FAILED", line)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
