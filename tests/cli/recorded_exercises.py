#!/usr/bin/env python3
"""The recorded reference solutions are the solutions in the tree (issue 39's acceptance).

Usage: recorded_exercises.py KLADDER SOURCE_DIR RECORDING

Every exercise `kladder exercises` lists with a reference solution must stand in RECORDING (a
device call's judging of every solution, scripts/summarize_submissions.py) with the sha256 of
that solution file as it is now, every hidden check passed and its goal met. A solution edited
after the recording, or an exercise added without one, fails here until it is judged again on a
GPU (scripts/plans/exercises_solutions.plan).
"""
import hashlib
import json
import os
import subprocess
import sys


def main():
    kladder, src, recording = sys.argv[1:4]
    listing = subprocess.run([kladder, "exercises"], check=True, capture_output=True, text=True).stdout
    wanted = {}
    for line in listing.splitlines():
        fields = line.split()
        if not fields or "/" not in fields[0]:
            continue
        solution = dict(f.split("=", 1) for f in fields[1:] if "=" in f).get("solution", "-")
        if solution != "-":
            lesson = fields[0].split("/")[0]
            wanted[fields[0]] = os.path.join(src, "lessons", lesson, solution)
    with open(recording) as f:
        record = json.load(f)
    judged = {e["exercise"]: e for e in record["exercises"]}
    problems = []
    if not wanted:
        problems.append("`kladder exercises` listed no exercise with a solution")
    for exercise, path in sorted(wanted.items()):
        entry = judged.get(exercise)
        if entry is None:
            problems.append(f"{exercise}: no recorded judging of its solution")
            continue
        with open(path, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        if entry["source"]["sha256"] != digest:
            problems.append(f"{exercise}: {path} changed since it was judged on {record['device']}")
        failed = [c["name"] for c in entry["checks"] if not c["passed"]]
        if failed or not entry["goal"]["met"]:
            problems.append(f"{exercise}: recorded failing ({', '.join(failed) or 'goal not met'})")
    for p in problems:
        print(f"FAIL: {p}")
    if problems:
        return 1
    print(f"{len(wanted)} reference solutions, each judged on {record['device']} "
          f"({record['first']} to {record['last']}) as it is in the tree")
    return 0


if __name__ == "__main__":
    sys.exit(main())
