#!/usr/bin/env bash
# The layer check can fail: on a copy of app/, it passes as the tree is, then fails naming the
# file and line for each planted fault (an include that goes up a layer, the window reaching the
# GPU library, a knot of two modules), and passes again once the fault is taken out.
# Usage: layers_planted.sh SOURCE_DIR
set -uo pipefail
src=$1
check="python3 $src/scripts/check_layers.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$src/app" "$tmp/app"
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

expect_clean() {
    if ! out=$($check --root "$tmp" 2>&1); then fail "$1: the check fails on a clean tree: $out"; fi
}
# expect_caught WHAT FILE LINE-TO-PLANT REGEX: plant LINE-TO-PLANT at the top of FILE, expect exit 1
# and a line matching REGEX, then put FILE back.
expect_caught() {
    local what=$1 file=$tmp/app/$2 line=$3 regex=$4
    cp "$file" "$file.orig"
    { echo "$line"; cat "$file.orig"; } >"$file"
    out=$($check --root "$tmp" 2>&1)
    rc=$?
    [[ $rc == 1 ]] || fail "$what: exit $rc, expected 1 ($out)"
    grep -Eq "$regex" <<<"$out" || fail "$what: no line matching '$regex' in: $out"
    mv "$file.orig" "$file"
}

expect_clean "before planting"
expect_caught "base includes the window" base/errors.h '#include "gui/workbook.h"' \
    '^app/base/errors.h:1: includes "gui/workbook.h" \(gui\), but base may include only base$'
expect_caught "model includes the GPU library" model/op_context.h '#include "gpu/device_buffer.h"' \
    '^app/model/op_context.h:1: includes "gpu/device_buffer.h" \(gpu\)'
expect_caught "the window includes the GPU library" gui/workbook.h '#include "gpu/runner.h"' \
    '^app/gui/workbook.h:1: includes "gpu/runner.h" \(gpu\), but gui may include only'
expect_caught "the plot library includes results" plot/scene.h '#include "model/results.h"' \
    '^app/plot/scene.h:1: includes "model/results.h" \(model\)'
expect_caught "a knot of two modules" model/results.h '#include "model/run_metrics.h"' \
    '^knot of 2 modules that include each other: model/results, model/run_metrics'
expect_clean "after taking the faults out"

if [[ $failures -gt 0 ]]; then
    echo "$failures failure(s)"
    exit 1
fi
echo "layers_planted: 5 planted faults caught, clean tree passes"
