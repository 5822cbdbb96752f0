#!/bin/sh
# `kladder serve` reads the one ladder a request names, again for every request: a broken
# manifest beside it does not stop it; a request for the broken one gets that manifest's line;
# a ladder whose folder has another name is still found; a manifest edited while the runner
# runs is seen by the next request. Without a GPU a resolved run ends in the "no GPU" reply, so
# each reply says how far the request got. No GPU needed.
set -u
kladder=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/kernels/bad" "$root/kernels/folder" "$root/kernels/tiny" "$root/lessons"
printf '[ladder]\nid = "bad"\ntitle = "Bad"\noperation = "gelu"\nsizes = { n = 10 }\nspeed = "fast"\n' \
    > "$root/kernels/bad/ladder.toml"
ladder() {  # ladder ID FOLDER TPB_VALUES
    echo 'extern "C" __global__ void one() {}' > "$root/kernels/$2/01_one.cu"
    cat > "$root/kernels/$2/ladder.toml" <<TOML
[ladder]
id = "$1"
title = "T"
operation = "gelu"
sizes = { n = 1000 }

[[rung]]
id = "one"
title = "One"
file = "01_one.cu"
  [rung.params.TPB]
  default = 64
  values = [$3]
  [[rung.launch]]
  entry = "one"
  grid = ["1"]
  block = ["TPB"]
  args = []
TOML
}
ladder tiny tiny "64"
ladder renamed folder "64"
fifo=$root/requests
mkfifo "$fifo"
KLADDER_ROOT="$root" CUDA_VISIBLE_DEVICES= "$kladder" serve < "$fifo" > "$root/out.txt" 2> "$root/err.txt" &
pid=$!
exec 3> "$fifo"
ask() { echo "$1" >&3; }
# await ID: until the runner has answered request ID (at most 60 s on a busy machine).
await() {
    i=0
    until grep -q "\"id\":$1[,}]" "$root/out.txt" 2>/dev/null; do
        i=$((i + 1))
        [ $i -lt 600 ] || { echo "FAIL: no reply to request $1"; cat "$root/err.txt"; exit 1; }
        sleep 0.1
    done
}
ask '{"type":"run","id":1,"ladder":"tiny","rung":"one","params":{"TPB":128}}'
ask '{"type":"run","id":2,"ladder":"bad","rung":"one"}'
ask '{"type":"run","id":3,"ladder":"renamed","rung":"one"}'
await 3
ladder tiny tiny "64, 128"  # the teacher allows TPB = 128 while the runner runs
ask '{"type":"run","id":4,"ladder":"tiny","rung":"one","params":{"TPB":128}}'
ask '{"type":"run","id":5,"ladder":"../kernels/tiny","rung":"one"}'
exec 3>&-
wait $pid || { echo "FAIL: serve exited with $?"; cat "$root/err.txt"; exit 1; }
python3 - "$root/out.txt" <<'PY'
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1])]
hello, replies = lines[0], {r["id"]: r for r in lines[1:]}
assert hello["type"] == "hello" and hello["protocol"] == 4, hello
assert "ladder_errors" not in hello, hello
def says(i, kind, text):
    r = replies[i]
    assert r["type"] == "error" and r["kind"] == kind and text in r["message"], (i, r)
    print(f"   {i}: {r['kind']}: {r['message'][:120]}")
says(1, "input", "TPB=128 is out of range for rung one")
says(2, "input", "kernels/bad/ladder.toml:6: ladder.speed: unknown field")
says(3, "gpu", "no GPU")
says(4, "gpu", "no GPU")
says(5, "input", "unknown ladder '../kernels/tiny'")
PY
