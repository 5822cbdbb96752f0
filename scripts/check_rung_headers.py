#!/usr/bin/env python3
"""Every rung file opens with the same four parts (issue 37): the comment block at its top has,
in this order, lines that begin

    What changes:       what this rung changes from the one before it
    Why it is faster:   the mechanism, in a sentence or a few ("Why it should be faster:" for a
                        prediction, "Why it is fast:" or "Why it is slow:" for a first rung, "Why it is slower:" for a rung
                        that measures slower)
    What to see:        what the learner should look for in the measurements
    What it needs:      the architecture, the sizes and the dtypes it needs

(after "// " in a .cu file, "# " in a .py file), and stays under MAX_HEADER_LINES lines: how a rung
was tuned, with its measurements, belongs in docs/tuning/<ladder>.md, not in the rung's file.

A rung file is a `file = "..."` of a kernels/<ladder>/ladder.toml. Fails (exit 1) naming each file
and what it lacks. CTest runs it as lint.rung_headers.

Usage: check_rung_headers.py [REPO_ROOT]
"""
import pathlib
import re
import sys

PARTS = ["What changes", "Why it is faster", "What to see", "What it needs"]
# How each part may open: "What changes from rung 2:", "Why it should be faster:", and for a
# rung that measures slower, "Why it is slower:" (the why of its speed either way).
OPENINGS = [r"What changes\b[^:]{0,30}:", r"Why it (is|should be) (no |not )?(faster|slower|fast|slow)\b[^:]{0,30}:",
            r"What to see\b[^:]{0,30}:", r"What it needs\b[^:]{0,30}:"]
MAX_HEADER_LINES = 45


def rung_files(root):
    files = set()
    for manifest in sorted((root / "kernels").glob("*/ladder.toml")):
        for m in re.finditer(r'^\s*file\s*=\s*"([^"]+)"', manifest.read_text(encoding="utf-8"), re.M):
            files.add(manifest.parent / m.group(1))
    return sorted(files)


def header(path):
    """The comment lines the file opens with, their markers stripped."""
    marker = "#" if path.suffix == ".py" else "//"
    out = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.startswith(marker):
            break
        out.append(line[len(marker):].strip())
    return out


def problems(path):
    lines = header(path)
    found = []
    for opening in OPENINGS:
        hits = [i for i, line in enumerate(lines) if re.match(opening, line)]
        found.append(hits[0] if hits else None)
    out = []
    missing = [p for p, at in zip(PARTS, found) if at is None]
    if missing:
        out.append("missing " + ", ".join('"' + m + ':"' for m in missing))
    present = [at for at in found if at is not None]
    if present != sorted(present):
        out.append("the parts are out of order (" + " / ".join(PARTS) + ")")
    if len(lines) > MAX_HEADER_LINES:
        out.append(f"a {len(lines)}-line header (at most {MAX_HEADER_LINES}): tuning history goes to docs/tuning/")
    return out


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    files = rung_files(root)
    if not files:
        print(f"check_rung_headers: no rung files under {root}/kernels", file=sys.stderr)
        return 2
    bad = 0
    for path in files:
        if not path.is_file():
            continue  # check-kernels reports a missing rung file
        for p in problems(path):
            print(f"check_rung_headers: {path.relative_to(root)}: {p}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
