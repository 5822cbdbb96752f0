#!/usr/bin/env bash
# Issue 17's LayerNorm line, for the lead's acceptance call on the merged tree (not yet run): rung 7
# (row_regs_l2) at its defaults (normal-priority loads) beside rung 4, both norms, at the recorded
# shapes, in the same call as the copy line and torch's layer_norm / rms_norm; the layernorm GPU tests
# (rung 7 at its new defaults in the odd-size loop); compute-sanitizer of rung 7 at its defaults.
#   scripts/ln_diag/acceptance.sh <carry folder> <device tag>
# /work/shared/tools/peers.py (peers_precision.py imports it). About 90 s on a warm H100.
# Under $OUT: <tag>_layernorm_l2_accept.json, <tag>_peers_norms_l2.json, logs.tgz; a table last.
set -uo pipefail
C=$(cd "${1:?carry folder}" && pwd); TAG=${2:?device tag}
OUT=${OUT:-/tmp/kl-out}; P=$OUT/p_ln; mkdir -p "$P"
K=$C/kladder
export XDG_CACHE_HOME=/tmp/kl-cache; mkdir -p $XDG_CACHE_HOME
say() { echo "$*" | tee -a "$P/summary.txt"; }
[ -f "$C/peers.py" ] || say "acceptance: $C/peers.py is missing: the torch step will fail"
$K calibrate --force > "$P/calibrate.txt" 2>&1; say "calibrate: exit $? $(grep -i copy "$P/calibrate.txt" | head -1)"
rec() { local name=$1; shift; $K "$@" --json "$P/rec_$name.json" > "$P/rec_$name.txt" 2>&1; say "$name: exit $?"; }
for v in "" rms_; do
  for g in row_regs_vec row_regs_l2; do
    rec ${g}_${v}4096_fp32 run layernorm --rung ${v}$g --size rows=4096,cols=4096 --dtype fp32
    for dt in bf16 fp16; do
      rec ${g}_${v}4096_$dt run layernorm --rung ${v}$g --size rows=4096,cols=4096 --dtype $dt -p TPB=256 -p MAXV=2
    done
    rec ${g}_${v}32768_fp32 run layernorm --rung ${v}$g --size rows=32768,cols=1024 --dtype fp32 -p TPB=256 -p MAXV=1
    rec ${g}_${v}32768_bf16 run layernorm --rung ${v}$g --size rows=32768,cols=1024 --dtype bf16 -p TPB=128 -p MAXV=1
  done
done
python3 "$C/merge_results.py" "$OUT/${TAG}_layernorm_l2_accept.json" "$P"/rec_*.json
timeout 100 python3 "$C/peers_precision.py" --norms-only --out "$OUT/${TAG}_peers_norms_l2.json" > "$P/peers.log" 2>&1; say "peers: exit $?"
for tool in memcheck racecheck; do
  for a in "bf16 5 1001" "fp16 7 1024" "fp32 3 1028"; do
    set -- $a
    timeout 40 compute-sanitizer --tool $tool --error-exitcode 9 $K run layernorm --rung row_regs_l2 --size rows=$2,cols=$3 \
      --dtype $1 -p MAXV=2 --warmup 0 --reps 1 --warm-l2 > "$P/san_${tool}_$1.txt" 2>&1
    say "sanitizer $tool row_regs_l2 $1 $2 x $3: exit $? ($(tail -1 "$P/san_${tool}_$1.txt"))"
  done
done
python3 "$C/precision_table.py" "$OUT/${TAG}_peers_norms_l2.json" "$OUT/${TAG}_layernorm_l2_accept.json" 2>&1 | tail -30
cat "$P/summary.txt"
