#!/bin/sh
# odd_sizes.sh KLADDER SOURCE_DIR: a run of every rung at sizes some rungs cannot take (issue 34),
# planned for an H100 (sm_90) with `run --plan-on`, which needs no GPU. The rungs that cannot take
# the sizes are listed as skipped with the constraint's message, the others as run, exit 0; a
# rung the device cannot run is skipped for that first; a rung named with --rung at such sizes,
# and sizes no rung takes, are one line on stderr and exit 2.
set -u
kladder=$1
h100=$2/assets/devices/sm_90_h100.json
rtx3090=$2/assets/devices/sm_86_rtx3090.json
out=$(mktemp)
err=$(mktemp)
trap 'rm -f "$out" "$err"' EXIT
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$out"; echo "--- stderr"; cat "$err"; exit 1; }
# plan WANT_CODE ARGS...: runs `kladder run ARGS...`, expects the exit code.
plan() {
    want=$1
    shift
    "$kladder" run "$@" > "$out" 2> "$err"
    got=$?
    [ "$got" -eq "$want" ] || fail "kladder run $*: exit $got, expected $want"
}
has() { grep -Eq -- "$1" "$out" || fail "no line matching: $1"; }
hasnt() { ! grep -Eq -- "$1" "$out" || fail "a line matches: $1"; }

# matmul at M=1537, N=2561, K=769: cuBLASLt fp8 needs K and N multiples of 16; the rest run.
plan 0 matmul --plan-on "$h100" --size M=1537,N=2561,K=769
has '^  skip  cublaslt_fp8 +cuBLASLt.s fp8 GEMM needs K and N multiples of 16 .*K=769, N=2561'
has '^  run   naive$'
has '^  run   cublas_bf16$'
has '^  run   wgmma_bf16$'
has 'at K=769 M=1537 N=2561:$'
hasnt '^  skip  (naive|cublas_fp32|cublas_bf16|wgmma_bf16) '
[ -s "$err" ] && fail "stderr is not empty"
runs=$(grep -c '^  run ' "$out")
skips=$(grep -c '^  skip ' "$out")
has "^$((runs + skips)) rungs: $runs run, $skips skipped$"
echo "matmul at M=1537,N=2561,K=769 on sm_90: $runs run, $skips skipped"

# LayerNorm at cols = 4097: the rungs holding the row in registers cannot take it.
plan 0 layernorm --plan-on "$h100" --size cols=4097
has "^  skip  row_regs_vec +the row must fit in the block's registers: .*cols=4097"
has '^  run   unfused$'
has '^  run   welford$'
echo "layernorm at cols=4097 on sm_90: $(grep -c '^  run ' "$out") run, $(grep -c '^  skip ' "$out") skipped"

# On an sm_86 device the fp8 rung is skipped for the architecture first, as `run all` does.
plan 0 matmul --plan-on "$rtx3090" --size M=1537,N=2561,K=769
has '^  skip  cublaslt_fp8 +needs sm_89'

# At the default sizes nothing is skipped for its size on sm_90.
plan 0 layernorm --plan-on "$h100"
hasnt '^  skip '

# A rung named with --rung at sizes it cannot take stays an error: one line, exit 2.
plan 2 matmul --plan-on "$h100" --rung cublaslt_fp8 --size M=1537,N=2561,K=769
[ "$(grep -c '' "$err")" -eq 1 ] || fail "expected one line on stderr"
grep -q "cublaslt_fp8: cuBLASLt's fp8 GEMM needs K and N multiples of 16" "$err" || fail "stderr does not name the constraint"
# Sizes no rung takes, and a size axis the ladder lacks: one line, exit 2.
plan 2 layernorm --plan-on "$h100" --size cols=0
[ "$(grep -c '' "$err")" -eq 1 ] || fail "expected one line on stderr"
grep -q "no rung of ladder layernorm takes .*cols=0" "$err" || fail "stderr does not say no rung takes cols=0"
plan 2 matmul --plan-on "$h100" --size M=1537,Q=3
[ "$(grep -c '' "$err")" -eq 1 ] || fail "expected one line on stderr"
grep -q "ladder matmul has no size axis 'Q'" "$err" || fail "stderr does not name the axis Q"
echo ok
