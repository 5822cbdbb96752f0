#!/bin/sh
# serve_skip.sh KLADDER SOURCE_DIR: the window's runner protocol at sizes some rungs cannot take
# (issue 34). A request that is one rung of a whole-ladder run (options.skip_unfit) for a rung
# that cannot take its sizes is answered with a result whose record is skipped, with the
# constraint's message, and needs no GPU; the same request without skip_unfit (a rung asked for
# by name) stays an "input" error; a rung that takes the sizes goes on to the run (here the "no
# GPU" reply); a size axis the ladder lacks is an error either way. No GPU needed.
set -u
kladder=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
fifo=$root/requests
mkfifo "$fifo"
KLADDER_ROOT="$2" CUDA_VISIBLE_DEVICES= "$kladder" serve < "$fifo" > "$root/out.txt" 2> "$root/err.txt" &
pid=$!
exec 3> "$fifo"
ask() { echo "$1" >&3; }
odd='"sizes":{"M":1537,"N":2561,"K":769}'
skip='"options":{"skip_unfit":true}'
ask '{"type":"run","id":1,"ladder":"matmul","rung":"cublaslt_fp8",'"$odd"','"$skip"'}'
ask '{"type":"run","id":2,"ladder":"matmul","rung":"cublaslt_fp8",'"$odd"'}'
ask '{"type":"run","id":3,"ladder":"matmul","rung":"naive",'"$odd"','"$skip"'}'
ask '{"type":"run","id":4,"ladder":"layernorm","rung":"row_regs_vec","sizes":{"cols":4097},'"$skip"'}'
ask '{"type":"run","id":5,"ladder":"matmul","rung":"naive","sizes":{"Q":3},'"$skip"'}'
ask '{"type":"quit"}'
exec 3>&-
wait $pid || { echo "FAIL: serve exited with $?"; cat "$root/err.txt"; exit 1; }
python3 - "$root/out.txt" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
assert lines[0]["type"] == "hello" and not lines[0]["gpu"], lines[0]
replies = {r["id"]: r for r in lines[1:] if r["type"] != "progress"}
def skipped(i, text, sizes):
    r = replies[i]
    assert r["type"] == "result", (i, r)
    rec = r["record"]
    assert rec["error"]["kind"] == "skipped" and text in rec["error"]["message"], (i, rec["error"])
    assert not rec["error"]["message"].startswith("rung "), (i, rec["error"])  # the record names the rung
    assert all(rec["sizes"][k] == v for k, v in sizes.items()), (i, rec["sizes"])
    print(f"   {i}: skipped {rec['rung']} at {rec['sizes']}: {rec['error']['message'][:100]}")
def says(i, kind, text):
    r = replies[i]
    assert r["type"] == "error" and r["kind"] == kind and text in r["message"], (i, r)
    print(f"   {i}: {r['kind']}: {r['message'][:100]}")
skipped(1, "cuBLASLt's fp8 GEMM needs K and N multiples of 16", {"M": 1537, "N": 2561, "K": 769})
says(2, "input", "rung cublaslt_fp8: cuBLASLt's fp8 GEMM needs K and N multiples of 16")
says(3, "gpu", "no GPU")
skipped(4, "the row must fit in the block's registers", {"cols": 4097})
says(5, "input", "ladder matmul has no size axis 'Q'")
PY
