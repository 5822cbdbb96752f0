#!/bin/bash
# host_code_cases.sh KLADDER WORK: what a shared tree can make the program run on the host
# (docs/security.md, "What a shared tree can and cannot make the program do"). A tree brings GPU
# code, and Triton rungs, whose source is checked in C++ before any Python runs; the Triton
# helper is the program's own, never the tree's, and Python starts only for a Triton rung. A
# fake python3 first on PATH records every start in $work/python-ran. See lib.sh for what each
# case asserts besides.
set -u
kladder=$(realpath "$1") work=$(realpath -m "$2")
export kladder work
src=$(cd "$(dirname "$0")/../.." && pwd)
. "$src/tests/hostile/lib.sh"
rm -rf "$work" && mkdir -p "$work/exports" "$work/fakebin"
export XDG_CACHE_HOME="$work/cache" XDG_CONFIG_HOME="$work/config"
unset KL_PYTHON
ran=$work/python-ran
cat >"$work/fakebin/python3" <<EOF
#!/bin/sh
echo "\$*" >> "$ran"
env > "$work/python-env"
echo "ModuleNotFoundError: No module named 'triton'" >&2
exit 3
EOF
chmod +x "$work/fakebin/python3"
fake_path="$work/fakebin:$PATH"

# tri_ladder: $root/kernels/tri, a ladder of the softmax ladder's Triton rung alone (so that
# check-kernels compiles no CUDA rung around it); its source is tri/07_triton_softmax.py.
tri_ladder() {
    mkdir -p "$root/kernels/tri"
    cp "$root/kernels/softmax/07_triton_softmax.py" "$root/kernels/tri/"
    python3 - "$root/kernels/softmax/ladder.toml" "$root/kernels/tri/ladder.toml" <<'PY'
import sys
text = open(sys.argv[1]).read()
head = text[text.index("[ladder]"):text.index("[[rung]]")].replace('"softmax"\n', '"tri"\n', 1)
start = text.rindex("[[rung]]", 0, text.index('id    = "triton_softmax"'))
end = text.find("\n# ---", start)
open(sys.argv[2], "w").write(head + text[start:end if end >= 0 else len(text)] + "\n")
PY
}
# plant LINE TEXT: replaces line LINE of the tri ladder's rung source by TEXT.
plant() {
    python3 - "$root/kernels/tri/07_triton_softmax.py" "$1" "$2" <<'PY'
import sys
p, line, text = sys.argv[1], int(sys.argv[2]), sys.argv[3]
lines = open(p).read().split("\n")
lines[line - 1] = text
open(p, "w").write("\n".join(lines))
PY
}
# no_python: the case failed if any python3 of ours started.
no_python() {
    if [ -e "$ran" ]; then fail "python3 was started: $(head -c 300 "$ran")"; fi
    rm -f "$ran" "$work/python-env"
}
with_fake_python() { PATH="$fake_path" "$@"; }
export -f with_fake_python
export fake_path

# [SECTION] Ladders without a Triton rung start no Python
fresh_root
expect host.no_python_without_triton_rungs 0 "" with_fake_python "$kladder" check-kernels --ladder launch
no_python
expect host.no_python_for_list 0 "" with_fake_python "$kladder" list
no_python

# [SECTION] A Triton rung outside the rules is refused, FILE:LINE, before any Python starts
fresh_root; tri_ladder
expect host.rung_passes_its_check 0 "" with_fake_python "$kladder" check-kernels --ladder tri
grep -q "^skip  tri/triton_softmax on sm_90: a Triton rung, and this machine has no Triton" "$work/out.txt" ||
    fail "a good rung without Triton is not listed as skipped"
rm -f "$ran" "$work/python-env"
src_rung="$src/kernels/softmax/07_triton_softmax.py"
# Found by their text: the rung's header may grow.
line=$(( $(grep -n '^import triton.language as tl' "$src_rung" | cut -d: -f1) + 1 ))  # after the imports
body=$(grep -n 'row = tl.program_id(0)' "$src_rung" | cut -d: -f1)  # a line of the kernel's body
[ "$line" -gt 1 ] && [ -n "$body" ] || fail "cannot find the import and the kernel body in $src_rung"
for planted in "import_os|import os|'import os': a Triton rung imports only triton" \
    "top_level_open|open('$work/written', 'w').write('x')|a call \\(open\\(\\.\\.\\.\\)\\) at the top level" \
    "dunder_import|X = __import__('os').system('touch $work/written')|'__import__' is not allowed" \
    "from_import|from os import system|'from \\.\\.\\.' at the top level" \
    "class|class Hook:|'class \\.\\.\\.' at the top level" \
    "main_block|if __name__ == '__main__':|'if \\.\\.\\.' at the top level" \
    "f_string|X = f'{__import__(\"os\")}'|a string right after 'f' .*f- and t-strings run the code"; do
    tag=${planted%%|*} rest=${planted#*|}
    text=${rest%%|*} want=${rest#*|}
    fresh_root; tri_ladder; plant $line "$text"
    expect "host.ptx_refuses.$tag" 2 "tri/07_triton_softmax\\.py:$line: $want" \
        with_fake_python "$kladder" ptx tri --rung triton_softmax
    no_python
done
[ -e "$work/written" ] && fail "the planted rung wrote $work/written"

fresh_root; tri_ladder; plant "$body" "    row = eval('tl.program_id(0)')"
expect host.ptx_refuses_eval_in_kernel 2 "tri/07_triton_softmax\\.py:$body: 'eval' is not allowed" \
    with_fake_python "$kladder" ptx tri --rung triton_softmax
no_python
fresh_root; tri_ladder; plant $line "import os"
expect host.check_kernels_fails_bad_rung 2 "" with_fake_python "$kladder" check-kernels --ladder tri
grep -q "^FAIL  tri/triton_softmax on sm_90: .*tri/07_triton_softmax\\.py:$line: 'import os'" "$work/out.txt" ||
    fail "no FAIL line naming the rung's file and line"
no_python

# [SECTION] The tree's old helper path is never run
fresh_root; tri_ladder
cat >"$root/kernels/common/kl_triton_compile.py" <<EOF
open("$work/planted-helper-ran", "w").write("the tree's helper ran")
print('{"ok": true, "triton_version": "9.9.9"}')
EOF
expect host.planted_helper_not_run_by_check 0 "" "$kladder" check-kernels --ladder tri
expect host.planted_helper_not_run_by_ptx 2 "Triton rungs need Triton: .*cannot import triton" \
    "$kladder" ptx tri --rung triton_softmax
[ -e "$work/planted-helper-ran" ] && fail "the tree's kernels/common/kl_triton_compile.py ran"

# [SECTION] The helper's child gets no variable of ours
fresh_root; tri_ladder
expect host.helper_environment 2 "Triton rungs need Triton: .*cannot import triton" \
    env PYTHONPATH="$root" PYTHONSTARTUP="$root/x.py" TRITON_CACHE_MANAGER=evil:Manager \
    KL_PYTHON="$work/fakebin/python3" "$kladder" ptx tri --rung triton_softmax
grep -Eq '^(PYTHON|TRITON_CACHE_MANAGER|XDG_)' "$work/python-env" 2>/dev/null &&
    fail "the helper inherited: $(grep -E '^(PYTHON|TRITON_CACHE_MANAGER|XDG_)' "$work/python-env" | head -3)"
grep -q '^HOME=.*kladder-triton-' "$work/python-env" 2>/dev/null || fail "HOME is not the helper's private folder"
grep -q '^-I -B -c ' "$ran" 2>/dev/null || fail "python3 was not started isolated (-I -B -c): $(head -c 200 "$ran")"
rm -f "$ran" "$work/python-env"

finish
