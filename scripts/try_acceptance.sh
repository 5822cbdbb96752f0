#!/usr/bin/env bash
# The GPU half of issue 16's `kladder try` acceptance, for the lead's device call. Run from the
# repository root on the GPU machine:
#   scripts/try_acceptance.sh CARRY
# CARRY holds the packed `kladder` (scripts/pack_for_gpu.sh) and this branch's kernels/, lessons/
# and assets/ (the program finds them by walking up from its own folder). Cases:
#   broken    a compile error: exit 2 naming broken.cu:LINE:COL
#   copy      a learner's copy of gelu_fused_vec beside the original: exit 0, speed ratio near 1
#   wrong     GeLU with 0.49 for 0.5: exit 1 with the mismatch count
#   trap      __trap() in one block: exit 3, the fault named
#   hang      a kernel that never ends, --timeout 20: exit 3, stopped and said so
#   goal_met  lesson 1's exercise with vector_add's own body as the solution: exit 0, goal met
#   goal_not  lesson 1's exercise with the empty starter: exit 1, goal not met (unwritten output)
#   tests     tests/cli/try_gpu.sh (the CTest gpu.try)
# Everything goes to $OUT/try_acceptance.tar.gz (text and --json of each case); a table last.
set -u
carry=${1:?usage: scripts/try_acceptance.sh CARRY}
carry=$(cd "$carry" && pwd)
kladder="$carry/kladder"
[ -x "$kladder" ] || { echo "try_acceptance: $kladder is not there (scripts/pack_for_gpu.sh)"; exit 2; }
work=$(mktemp -d)
out="$work/try_acceptance"
mkdir -p "$out" "$work/mine"
export XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
# The data the packed kladder finds: the carry's own kernels/ and lessons/ when it has them,
# else the repository's (the program walks up from its folder to the first that has them).
data="$carry"; [ -d "$data/kernels" ] || data=$(pwd)
k="$data/kernels/elementwise"
sed 's/kl_to_float(b\[i\]))/kl_to_float(b[i]) + oops)/' "$k/01_vector_add.cu" > "$work/mine/broken.cu"
cp "$k/04_gelu_fused_vec.cu" "$work/mine/copy.cu"
sed 's/return 0.5f \* x/return 0.49f * x/' "$k/04_gelu_fused_vec.cu" > "$work/mine/wrong.cu"
sed 's/const long long n4 = n \/ 4;/const long long n4 = n \/ 4; if (blockIdx.x == 7) __trap();/' \
  "$k/04_gelu_fused_vec.cu" > "$work/mine/trap.cu"
sed 's/const long long n4 = n \/ 4;/const long long n4 = n \/ 4; if (blockIdx.x == 0) { while (clock64() >= 0) {} }/' \
  "$k/04_gelu_fused_vec.cu" > "$work/mine/hang.cu"
cp "$k/01_vector_add.cu" "$work/mine/solution.cu"
cp "$data/lessons/01_first_kernel/exercise_vector_add.cu" "$work/mine/starter.cu"
{ nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; date -u +%FT%TZ; } > "$out/device.txt" 2>&1

rows=()
run_case() {  # name expected-exit args...
  local name=$1 want=$2; shift 2
  (cd "$work/mine" && "$kladder" try "$@") > "$out/$name.txt" 2>&1
  local got=$?
  (cd "$work/mine" && "$kladder" try "$@" --json) > "$out/$name.json" 2> "$out/$name.json.err"
  local note
  note=$(grep -Eo '[0-9.]+x *$|[0-9]+ mismatches of [0-9]+ elements|goal (not )?met|fault[^|]{0,60}|did not finish within [0-9]+ s|broken\.cu:[0-9]+:[0-9]+: error' \
         "$out/$name.txt" | head -n 1)
  rows+=("$(printf '%-9s %4s %4s  %s' "$name" "$want" "$got" "$note")")
}
run_case broken 2 elementwise broken.cu --like vector_add
run_case copy 0 elementwise copy.cu --like gelu_fused_vec
run_case wrong 1 elementwise wrong.cu --like gelu_fused_vec
run_case trap 3 elementwise trap.cu --like gelu_fused_vec
run_case hang 3 elementwise hang.cu --like gelu_fused_vec --timeout 20
run_case goal_met 0 elementwise solution.cu --exercise 01_first_kernel/8
run_case goal_not 1 elementwise starter.cu --exercise 01_first_kernel/8
sh tests/cli/try_gpu.sh "$kladder" "$data" > "$out/try_gpu.txt" 2>&1
tests=$?
rows+=("$(printf '%-9s %4s %4s  %s' tests 0 "$tests" "$(tail -n 1 "$out/try_gpu.txt")")")
mkdir -p "${OUT:-/tmp}"
tar -czf "${OUT:-/tmp}/try_acceptance.tar.gz" -C "$work" try_acceptance
rm -rf "$work"
echo "case      want  got  what it said"
printf '%s\n' "${rows[@]}"
