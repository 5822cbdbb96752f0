#!/usr/bin/env python3
"""ab_table.py DIR: the table of a before/after device plan (scripts/plans/uniform_desc.plan). DIR
holds kladder results files named PREFIX<round>_<case>_<side>.json, side one of before, after or
a peer's name; each file's first run gives the median time (ms, the runner's protocol) and the
clock (the median MHz during timing). Prints one line per case and round: each side's time and
clock, and before/peer, after/peer and after/before ratios (peer time over rung time: above 1 is
faster than the peer)."""
import collections
import glob
import json
import os
import re
import sys


def main():
    cases = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.json"))):
        m = re.match(r"([a-z]+)(\d+)_(.+)_([a-z]+)\.json$", os.path.basename(path))
        if not m:
            continue
        try:
            run = json.load(open(path))["runs"][0]
            ms = run["timing"]["median_ms"]
            mhz = run["clock"]["during"]["median_mhz"]
        except (OSError, ValueError, KeyError, IndexError, TypeError) as e:
            print(f"{path}: no time ({e})")
            continue
        cases[(m.group(3), int(m.group(2)))][m.group(4)] = (ms, mhz)
    print(f"{'case':<14}{'round':>6}{'peer ms':>10}{'before ms':>11}{'after ms':>10}{'before/peer':>13}"
          f"{'after/peer':>12}{'after/before':>14}  clocks MHz (peer, before, after)")
    for (case, rnd), sides in sorted(cases.items()):
        peer = next((v for k, v in sides.items() if k not in ("before", "after")), None)
        b, a = sides.get("before"), sides.get("after")
        if not (peer and b and a):
            print(f"{case:<14}{rnd:>6}  incomplete: {sorted(sides)}")
            continue
        print(f"{case:<14}{rnd:>6}{peer[0]:>10.4f}{b[0]:>11.4f}{a[0]:>10.4f}{peer[0] / b[0]:>13.3f}"
              f"{peer[0] / a[0]:>12.3f}{b[0] / a[0]:>14.3f}  {peer[1]:.0f}, {b[1]:.0f}, {a[1]:.0f}")


if __name__ == "__main__":
    main()
