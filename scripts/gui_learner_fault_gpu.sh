#!/usr/bin/env bash
# scripts/gui_learner_fault_gpu.sh CARRY: issue 16's acceptance "a learner kernel that traps or
# loops forever leaves the window running and says what happened", on the GPU machine, headless.
# Run from the repo root there, with carry [CARRY, ".gl"] where CARRY was filled here by
# `scripts/pack_for_gpu.sh --gui` (kernel-ladder, kladder, .carry/lib, .carry/fonts; CARRY may be
# another folder name than .carry: pass it). Runs tests/gui/learner_fault_gpu.sh; results under
# $OUT (report JSONs in one archive, the two screenshots); a short summary last.
set -uo pipefail
carry=${1:?usage: scripts/gui_learner_fault_gpu.sh CARRY}
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ] && [ ! -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] &&
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || { mkdir -p /usr/share/fonts/truetype/dejavu && cp "$carry"/fonts/*.ttf /usr/share/fonts/truetype/dejavu/; }
export LD_LIBRARY_PATH=$PWD/$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} XDG_CACHE_HOME=/tmp/kl-cache
gui=$PWD/$carry/kernel-ladder
ldd "$gui" | grep "not found"
sh tests/gui/learner_fault_gpu.sh "$gui" /tmp/kl-gui/learner_fault > "$OUT/learner_fault.txt" 2>&1; rc=$?
d=/tmp/kl-gui/learner_fault
for f in trap hang; do [ -f "$d/$f.png" ] && cp "$d/$f.png" "$OUT/learner_fault_$f.png"; done
(cd "$d" 2>/dev/null && tar czf "$OUT/learner_fault.tgz" ./*.json ./*.txt 2>/dev/null)
tail -8 "$OUT/learner_fault.txt"
echo "learner_fault: exit $rc" | tee -a "$OUT/summary.txt"
exit $rc
