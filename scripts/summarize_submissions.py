#!/usr/bin/env python3
"""Summarize signed exercise submissions (kladder submit's JSON) into one small recording.

Usage: summarize_submissions.py --plan PLAN --out FILE SUBMISSION.json...

A submission carries the whole results file of its judging (every rung's samples), about 0.5-1 MB
each. The recording keeps what issue 39's acceptance reads: the device, when, the exercise, its
source hash, every hidden check with its verdict, the goal and whether it was met, and the median of
the learner's kernel beside the goal's rung. The signatures stay with the full submissions.
"""
import argparse
import json
import os
import re
import sys


def figures(runs, rung):
    for run in runs:
        if run.get("rung") == rung and run.get("timing"):
            return {"rung": rung, "median_ms": run["timing"].get("median_ms"),
                    "gbps": run.get("values", {}).get("gbps")}
    return {"rung": rung, "median_ms": None, "gbps": None}


def summarize(path):
    with open(path) as f:
        sub = json.load(f)
    results = sub["results"]
    runs = results["runs"]
    goal_text = sub["goal"]["text"]
    named = re.search(r"rung\.([A-Za-z0-9_]+)\.", goal_text)
    goal_rung = named.group(1) if named else None
    mine = runs[sub["mine"]]["rung"] if isinstance(sub["mine"], int) else sub["mine"]
    return {
        "exercise": sub["exercise"],
        "ladder": sub["ladder"],
        "created": sub["created"],
        "source": {"name": sub["source"]["name"], "sha256": sub["source"]["sha256"]},
        "checks": sub["checks"],
        "goal": sub["goal"],
        "mine": figures(runs, mine),
        "goal_rung": figures(runs, goal_rung) if goal_rung else None,
        "device": {
            "name": results["device"]["name"],
            "arch": results["device"]["arch"],
            "sm_count": results["device"]["sm_count"],
            "driver_version": results["device"]["driver_version"],
            "copy_gbps": results.get("calibration", {}).get("copy_gbps"),
        },
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--plan", required=True, help="the device plan that made the submissions")
    ap.add_argument("--out", required=True)
    ap.add_argument("submissions", nargs="+")
    args = ap.parse_args()
    entries = [summarize(p) for p in args.submissions]
    devices = {(e["device"]["name"], e["device"]["arch"]) for e in entries}
    if len(devices) != 1:
        sys.exit(f"summarize_submissions: submissions from several devices: {sorted(devices)}")
    record = {
        "schema": "kernel-ladder/exercise-solutions",
        "device": entries[0]["device"]["name"],
        "plan": args.plan,
        "first": min(e["created"] for e in entries),
        "last": max(e["created"] for e in entries),
        "all_accepted": all(e["goal"]["met"] and all(c["passed"] for c in e["checks"]) for e in entries),
        "exercises": entries,
    }
    tmp = args.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(record, f, indent=1)
        f.write("\n")
    os.replace(tmp, args.out)


if __name__ == "__main__":
    main()
