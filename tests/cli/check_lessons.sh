#!/bin/sh
# `kladder check-lessons` on temporary lesson trees (the real kernels and recordings):
# 1. a measured number typed into the text fails (exit 2, one line naming file, line, number);
# 2. a binding that matches no recorded run fails (exit 2, one line saying what was looked for);
# 3. a typed percentage, a typed ratio and a device fact typed (an SM count) fail, and so do a
#    conditional without its other version and a percentage of the roof above 100 under a profile,
#    and a computation over two GPUs' runs and the profile's SM count (a figure of no GPU);
# 4. a core lesson over 4,400 words fails, naming the lesson and its count;
# 5. the same lesson with a binding that resolves and an allow-listed datasheet figure passes,
#    with computed bindings and conditional prose over device facts (a T4 has no bf16 peak: the
#    branch it does not show is not read under its profile);
# 6. allow-list kinds: an entry without `kind` is refused in one line; a citation typed in a
#    paragraph that does not name whose figure it is fails, and passes once the text names it.
set -u
kladder=$1
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT

lesson() {  # lesson FOLDER STEP-TEXT
    mkdir -p "$root/$1/01_l"
    cat > "$root/$1/01_l/lesson.toml" <<'TOML'
[lesson]
id = "l"
number = 1
title = "L"

[[step]]
title = "S"
text = "s.md"
ladder = "elementwise"
rung = "vector_add"
no_predict = "a test lesson"
TOML
    printf '%s\n' "# S" "" "$2" > "$root/$1/01_l/s.md"
}

expect_fail() {  # expect_fail FOLDER PATTERN
    out=$("$kladder" check-lessons --lessons "$root/$1" 2>/dev/null); code=$?
    echo "$out"
    [ "$code" -eq 2 ] || { echo "$1: expected exit 2, got $code"; exit 1; }
    [ "$(echo "$out" | grep -c '')" -eq 1 ] || { echo "$1: expected one line"; exit 1; }
    echo "$out" | grep -Eq -- "$2" || { echo "$1: output does not match: $2"; exit 1; }
}

lesson unbound "Vector add ran at 2,777 GB/s."
expect_fail unbound "01_l/s.md:3: unbound measured number '2,777 GB/s'"

# "# S" and 4,399 more words: one past the core track's limit.
lesson long "$(yes word | head -n 4399 | tr '\n' ' ')"
expect_fail long "01_l: 4,401 words, over the core track's 4,400"

lesson nothing "Vector add ran at {{ elementwise/vector_add gbps TPB=64 EPT=16 n=2^10 }}."
expect_fail nothing "01_l/s.md:3: .*resolves to nothing: no successful run of elementwise/vector_add with .*EPT=16 TPB=64 n=1024"

# One run for the new kinds (each run costs a second): every planted figure has its line.
lesson planted "Vector add reached 89% of the copy line; the tuned rung ran 0.84x as fast; the GPU has 132 SMs. {{ if device l2_mib >= 40 }}It fits.{{ end }} {{ = device copy_gbps * 1000 / device datasheet_gbps | pct }} of the datasheet. Its bf16 peak: {{ device datasheet_bf16_tflops }}. {{ = elementwise/vector_add ms from=h100_elementwise / elementwise/vector_add ms from=h200_elementwise * device sm_count | bare .0 }} SM-times."
out=$("$kladder" check-lessons --lessons "$root/planted" 2>/dev/null); code=$?
echo "$out"
[ "$code" -eq 2 ] || { echo "planted: expected exit 2, got $code"; exit 1; }
for want in "unbound measured number '89%'" "unbound measured number '0.84x'" "unbound measured number '132 SMs'" \
    "has no .*else" "above 100%, the text contradicts itself" \
    "datasheet_bf16_tflops .*resolves to nothing \(under sm_75_t4.json\)" \
    "computes from the 3090 and the H100 and the H200 at once \(under sm_86_rtx3090.json\)"; do
    echo "$out" | grep -Eq -- "01_l/s.md:3: .*$want" || { echo "planted: no line matches: $want"; exit 1; }
done

allow_h100() {  # allow_h100 FOLDER [KIND-LINES]: the H100's datasheet bandwidth on the allow-list
    printf '%s\n' '[[allow]]' 'lesson = "01_l"' 'text = "3.35 TB/s"' \
        'source = "NVIDIA H100 SXM5 datasheet, HBM3 bandwidth"' "$2" > "$root/$1/numbers_allowed.toml"
}
lesson clean "Vector add ran at {{ elementwise/vector_add gbps TPB=32 EPT=1 }}, {{ = elementwise/vector_add gbps TPB=32 EPT=1 / device copy_gbps | pct }} of the copy line of the {{ device name }} ({{ = device copy_gbps / device sm_count }} per SM); {{ if device l2_mib >= 40 }}its L2 is large{{ else }}its L2 is small{{ end }}. {{ if device cc >= 8 }}Its bf16 peak: {{ device datasheet_bf16_tflops }}.{{ else }}No bf16.{{ end }} The H100 datasheet says 3.35 TB/s."
allow_h100 clean 'kind = "citation"
names = "H100"'
"$kladder" check-lessons --lessons "$root/clean" || { echo "clean: expected exit 0"; exit 1; }

# 6. Kinds: no kind at all is refused when the list loads (stderr, exit 2, naming the field).
lesson nokind "The H100 datasheet says 3.35 TB/s."
allow_h100 nokind ""
err=$("$kladder" check-lessons --lessons "$root/nokind" 2>&1 >/dev/null); code=$?
echo "$err"
[ "$code" -eq 2 ] || { echo "nokind: expected exit 2, got $code"; exit 1; }
echo "$err" | grep -q 'allow\[0\].kind: .*expected "algorithm"' || { echo "nokind: no line names the kind"; exit 1; }
# A citation in a paragraph that does not say whose figure it is reads as the shown GPU's.
lesson unnamed "The datasheet says 3.35 TB/s."
allow_h100 unnamed 'kind = "citation"
names = "H100"'
expect_fail unnamed "01_l/s.md:3: '3.35 TB/s' is allow-listed as a citation of H100, but its paragraph names none of them"
exit 0
