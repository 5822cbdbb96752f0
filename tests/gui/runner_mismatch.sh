#!/bin/sh
# runner_mismatch.sh GUI FAKE_RUNNER OUT_DIR: the window started with a runner from another build
# (a test double saying hello in protocol 1) refuses it in one line naming both versions, shown
# in the window and written once on stderr; the run it was asked for fails with that line, and
# the window stays up and exits normally. No GPU needed.
gui=$1
fake=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$3"
export KLADDER_SERVE="$fake --protocol 1 --delay-ms 10"
run_gui "$gui" --no-save --size 1280x800 --lesson first_kernel --step 4 --run rung --exit-when-idle \
    --max-seconds 60 --screenshot "$out/mismatch.png" --report "$out/report.json"
python3 - "$out/report.json" "$out/stderr.txt" <<'PY' || exit 1
import json, sys
r = json.load(open(sys.argv[1]))
# The line the window writes when it refuses the runner (the test report's "error shown:" echoes
# at exit are not it).
stderr = [l for l in open(sys.argv[2]).read().splitlines() if l.startswith("kernel-ladder: the runner speaks protocol")]
problems = []
shown = [e for e in r["errors_shown"] if "speaks protocol 1" in e and "and this program protocol " in e]
if not shown: problems.append("the mismatch was not shown in the window: %s" % r["errors_shown"])
if len(stderr) != 1: problems.append("expected one line about the protocol on stderr, got %s" % stderr)
if r["runner"]["results"] != 0: problems.append("a result came from an incompatible runner")
if r["runner"]["job_active"]: problems.append("the run never ended")
print("shown: %s" % (shown[:1],))
print("stderr: %s" % stderr)
if problems:
    print("FAIL: " + "; ".join(problems))
    sys.exit(1)
PY
sh "$here/check_png.sh" "$out/mismatch.png" 1280 800 || exit 1
echo "ok"
