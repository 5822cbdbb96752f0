#!/bin/sh
# `kladder run LADDER` on a ladder whose every rung is a lab rung (they run only when named) says
# so in one line and exits 2, instead of naming a dtype nobody asked for. Needs no GPU: the
# refusal comes before the device is opened. And `kladder check-kernels` compiles a lab rung's
# file as the rung it is (with its parameters), not as a helper without them.
set -u
kladder=$1
root=$(mktemp -d); cache=$(mktemp -d)  # the kernel cache lives outside the tree it compiles
trap 'rm -rf "$root" "$cache"' EXIT
mkdir -p "$root/kernels/labonly" "$root/lessons"
cat > "$root/kernels/labonly/ladder.toml" <<'TOML'
[ladder]
id = "labonly"
title = "Lab only"
operation = "gelu"
sizes = { n = 1024 }

[[rung]]
id = "switches"
title = "A lab rung"
file = "switches.cu"
idea = "measuring switches"
lab = true
  [rung.params.TPB]
  default = 256
  values  = [128, 256]
  help    = "threads per block"
  [[rung.launch]]
  entry = "switches"
  grid  = ["cdiv(n, 256)"]
  block = ["TPB"]
  args  = ["y", "x", "n"]
TOML
printf '#ifndef TPB\n#error "TPB must be defined"\n#endif\nextern "C" __global__ void switches(float* out, const float* in, int n) {}\n' > "$root/kernels/labonly/switches.cu"
out=$(KLADDER_ROOT="$root" "$kladder" run labonly 2>&1 >/dev/null); code=$?
echo "$out"
[ "$code" -eq 2 ] || { echo "expected exit 2, got $code"; exit 1; }
echo "$out" | grep -q "ladder labonly has only lab rungs: name one with --rung" || { echo "message does not say the rungs are lab rungs"; exit 1; }
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || { echo "more than one line"; exit 1; }
checked=$(KLADDER_ROOT="$root" XDG_CACHE_HOME="$cache" "$kladder" check-kernels 2>&1); code=$?
[ "$code" -eq 0 ] || { echo "$checked"; echo "check-kernels on a lab rung's file: expected exit 0, got $code"; exit 1; }
echo "$checked" | grep -q "(helper)" && { echo "$checked"; echo "a lab rung's file was compiled as a helper"; exit 1; }
echo "lab-only ladder: refused by run, checked by check-kernels"
