#!/usr/bin/env python3
"""The layers of app/ hold: no file includes a library above its own, and no modules of one
library include each other round in a circle (a knot).

The layers, lowest first (docs/ARCHITECTURE.md, "Layers"):
    base    errors, paths, size-limited input, JSON and TOML readers, expressions
    model   manifests, results, device facts; no CUDA library
    course  lessons, bindings, predictions, exercises
    gpu     NVRTC, caches, GPU context, runner, counters
and on top: plot (base only: it draws any numbers), report, cli, gui. The window (gui) links no
CUDA library, so it may not include gpu.

A module is a header and its source files: model/results.h, model/results.cpp. A knot is a set of
modules that reach each other through includes; each one must be untied (a types header, a moved
function), since no module of a knot can be understood, tested or moved without the others.

Usage: check_layers.py [--root DIR]   (DIR defaults to the repository this script sits in)
Prints one line per upward include (FILE:LINE: ...) and per knot; exit 1 if any, 0 if none,
2 on bad usage or an unreadable tree.
"""
import os
import re
import sys

LAYERS = ["base", "model", "course", "gpu", "plot", "report", "cli", "gui"]
ALLOWED = {
    "base": {"base"},
    "model": {"base", "model"},
    "course": {"base", "model", "course"},
    "gpu": {"base", "model", "course", "gpu"},
    "plot": {"base", "plot"},
    "report": {"base", "model", "course", "plot", "report"},
    "cli": {"base", "model", "course", "gpu", "plot", "report", "cli"},
    "gui": {"base", "model", "course", "plot", "report", "gui"},
}
# Knots are looked for in the four libraries under the programs. plot and report each split one
# module over several files around a private header (plot/layout_parts.h, report/figures_common.h,
# included only by that module's own files), and the programs (a window split over many
# workbook_*.cpp around one class) are one module each by design.
KNOT_FREE = {"base", "model", "course", "gpu"}
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def sources(app):
    for layer in LAYERS:
        top = os.path.join(app, layer)
        if not os.path.isdir(top):
            continue
        for folder, _, names in os.walk(top):
            for name in sorted(names):
                if name.endswith((".h", ".cpp")):
                    yield layer, os.path.join(folder, name)


def target_of(app, including_file, written):
    """The file an include names, as a path relative to app/, or None (a generated or system
    header, found on no path of app/)."""
    beside = os.path.normpath(os.path.join(os.path.dirname(including_file), written))
    if os.path.isfile(beside):
        return os.path.relpath(beside, app)
    if os.path.isfile(os.path.join(app, written)):
        return os.path.normpath(written)
    return None


def module_of(rel):
    return os.path.splitext(rel)[0]


def find_knots(graph):
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, knots = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                knot = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    knot.append(member)
                    if member == node:
                        break
                if len(knot) > 1:
                    knots.append(sorted(knot))
    return knots


def check(app):
    problems, graph, files = [], {}, 0
    for layer, path in sources(app):
        files += 1
        rel = os.path.relpath(path, app)
        me = module_of(rel)
        graph.setdefault(me, set())
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                match = INCLUDE.match(line)
                if not match:
                    continue
                target = target_of(app, path, match.group(1))
                if target is None:
                    continue
                their_layer = target.split(os.sep)[0]
                if their_layer in ALLOWED and their_layer not in ALLOWED[layer]:
                    problems.append(f'app/{rel}:{number}: includes "{match.group(1)}" ({their_layer}), but '
                                    f'{layer} may include only {", ".join(l for l in LAYERS if l in ALLOWED[layer])}')
                other = module_of(target)
                if other != me and layer in KNOT_FREE and their_layer == layer:
                    graph[me].add(other)
    for knot in find_knots(graph):
        arrows = sorted(f"{a} -> {b}" for a in knot for b in graph[a] if b in knot)
        problems.append(f"knot of {len(knot)} modules that include each other: {', '.join(knot)} ({'; '.join(arrows)})")
    return files, problems


def main(argv):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if len(argv) == 2 and argv[0] == "--root":
        root = argv[1]
    elif argv:
        print("usage: check_layers.py [--root DIR]", file=sys.stderr)
        return 2
    app = os.path.join(root, "app")
    if not os.path.isdir(app):
        print(f"check_layers.py: no app/ folder in {root}", file=sys.stderr)
        return 2
    files, problems = check(app)
    if files == 0:
        print(f"check_layers.py: no sources under {app}", file=sys.stderr)
        return 2
    for line in problems:
        print(line)
    if problems:
        return 1
    print(f"layers hold: {files} files of app/, no upward include, no knot")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
