#!/usr/bin/env python3
"""Merge results files of one device call into one: the first file's header (device, calibration,
date), every file's runs in order, and the commands joined; written as the engine writes results
(docs/results-schema.md: one header field per line, one run per line).  merge_results.py OUT IN..."""
import json, sys

out, inputs = sys.argv[1], sys.argv[2:]
merged, commands = None, []
for path in inputs:
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        print(f"merge_results: {path}: {e}", file=sys.stderr)
        continue
    commands.append(d.get("command", ""))
    if merged is None:
        merged = d
    else:
        merged["runs"].extend(d["runs"])
if merged is None:
    sys.exit(f"merge_results: nothing to merge into {out}")
def short(c):  # "<carry>/kladder run ..." -> "kladder run ..."
    first, _, rest = c.partition(" ")
    return first.rsplit("/", 1)[-1] + " " + rest


merged["command"] = " ; ".join(short(c) for c in commands)
runs = merged.pop("runs")
lines = [f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}" for k, v in merged.items()]
lines.append('"runs": [\n' + ",\n".join(json.dumps(r, separators=(",", ":")) for r in runs) + "\n]")
with open(out, "w") as f:
    f.write("{\n" + ",\n".join(lines) + "\n}\n")
