#!/usr/bin/env python3
"""Merge peer-figure files of one device call into one peer file (assets/recorded/peers/README.md):
every entry of every file in order, one {"what": "device"} entry first. The workbook refuses a
peer file without that entry; sdpa_peers.py writes the device into each row instead, so when no
input has the entry it is made from the first row's "device" and "torch".
    merge_peers.py OUT IN..."""
import json
import sys

if len(sys.argv) < 3:
    sys.exit(__doc__)
out, inputs = sys.argv[1], sys.argv[2:]
device, rows = None, []
for path in inputs:
    try:
        entries = json.load(open(path))
    except (OSError, ValueError) as e:
        sys.exit(f"merge_peers: {path}: {e}")
    if not isinstance(entries, list):
        sys.exit(f"merge_peers: {path}: expected a list of peer figures")
    for e in entries:
        if isinstance(e, dict) and e.get("what") == "device":
            device = device or e
        else:
            rows.append(e)
if device is None:
    first = next((r for r in rows if isinstance(r, dict) and r.get("device")), None)
    if first is None:
        sys.exit(f"merge_peers: no device named in {', '.join(inputs)}")
    device = {"what": "device", "name": first["device"], "torch": first.get("torch", "")}
with open(out, "w") as f:
    json.dump([device] + rows, f, indent=1)
    f.write("\n")
