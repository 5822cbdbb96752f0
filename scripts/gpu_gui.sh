#!/usr/bin/env bash
# The workbook on the GPU machine, headless: unpack the GL/EGL loaders (.gl/*.deb), then run the
# GPU-labelled window tests (tests/gui/gui_trap.sh, tests/gui/frame_time.sh) with the carried
# kernel-ladder and its libraries. Run from the repo root there, after scripts/pack_for_gpu.sh --gui
# here, with carry [".carry", ".gl"]. Results under $OUT; a short summary last.
set -uo pipefail
OUT=${OUT:-/tmp/kl-out}; mkdir -p "$OUT"
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json ] && [ ! -e /usr/share/glvnd/egl_vendor.d/10_nvidia.json ] &&
  export __EGL_VENDOR_LIBRARY_FILENAMES=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
# The workbook looks for DejaVu where Debian puts it.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || { mkdir -p /usr/share/fonts/truetype/dejavu && cp .carry/fonts/*.ttf /usr/share/fonts/truetype/dejavu/; }
export LD_LIBRARY_PATH=$PWD/.carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} XDG_CACHE_HOME=/tmp/kl-cache
gui=$PWD/.carry/kernel-ladder
ldd "$gui" | grep "not found"
names=()
run() {  # name, script in tests/gui, arguments after its output folder /tmp/kl-gui/<name>
  local name=$1 script=$2; shift 2
  names+=("$name")
  sh "tests/gui/$script" "$gui" "/tmp/kl-gui/$name" "$@" > "$OUT/$name.txt" 2>&1; local rc=$?
  echo "$name: exit $rc" | tee -a "$OUT/summary.txt"
  for f in "/tmp/kl-gui/$name/report.json" "/tmp/kl-gui/$name"/*.png; do [ -f "$f" ] && cp "$f" "$OUT/${name}_$(basename "$f")"; done
}
run gui_trap gui_trap.sh
run frame_time_matmul frame_time.sh matmul 6
run frame_time_attention frame_time.sh attention 3
run frame_time_elementwise frame_time.sh first_kernel 4
# At most 8 files come back: the texts and reports go in one archive, beside the trap screenshot.
(cd "$OUT" && tar czf gui-results.tgz --exclude=gui-results.tgz ./*.txt ./*.json 2>/dev/null && rm -f ./*.json)
for n in "${names[@]}"; do echo "== $n"; tail -5 "$OUT/$n.txt"; done
cat "$OUT/summary.txt"
