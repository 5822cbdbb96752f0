#!/usr/bin/env python3
"""scripts/ncu_agreement.py cuts ncu's launches into the rung's repetitions (no GPU needed).

A rung that launches one kernel name more than once a repetition must count every launch in
its repetition's time (a per-name median counted each name once: half of a two-launch rung);
kernels launched once a run (the reference, the inputs) are left out; launches that do not split
evenly into the repetitions are refused, naming the rung.
Usage: ncu_agreement_split.py SOURCE_DIR
"""
import importlib.util
import os
import sys


def load(src):
    spec = importlib.util.spec_from_file_location("ncu_agreement", os.path.join(src, "scripts", "ncu_agreement.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    split = load(sys.argv[1]).rung_repetitions
    failures = []

    def expect(what, got, want):
        if abs(got - want) > 1e-12:
            failures.append(f"{what}: {got} != {want}")

    twice = [("reference", 5.0)] + [("pass", 1000.0), ("pass", 2000.0)] * 3
    per_name, counts, per_rep_ms = split(twice, 3, "twice")
    expect("one name twice a repetition", per_rep_ms, 0.003)
    if counts != {"pass": 6}:
        failures.append(f"the reference kernel counted: {counts}")
    two_names = [("main", 100.0), ("end", 50.0)] * 3 + [("main", 130.0), ("end", 50.0)]
    expect("two names, median of sums", split(two_names, 4, "two")[2], 0.00015)
    try:
        split([("k", 1.0)] * 5, 2, "uneven")
        failures.append("5 launches split into 2 repetitions")
    except RuntimeError as e:
        if "uneven" not in str(e):
            failures.append(f"the refusal does not name the rung: {e}")
    for f in failures:
        print("FAIL", f)
    print("ncu_agreement_split:", "failed" if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
