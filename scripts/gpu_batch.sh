#!/usr/bin/env bash
# scripts/gpu_batch.sh [--check] [NAME=VALUE...] PLAN...: one device call's work, as plans list it.
#
# A plan (scripts/plans/*.plan) is a text file with one entry a line; '#' lines and blank lines
# are skipped, and a line ending in '\' continues on the next.
#   STEP COMMAND...  a step: COMMAND runs under `bash -o pipefail -c` in a child shell, from the
#                    repository root, stopped after STEP_TIMEOUT seconds (default 300). Its output
#                    is appended to $OUT/batch.log under "== STEP", its exit status and seconds to
#                    $OUT/summary.txt. A failing step does not stop the batch. STEP is letters,
#                    digits, '.', '_' and '-'.
#   export ...       run in the batch's own shell: settings for the steps after it.
# The steps see these variables (exported):
#   C    the folder of programs packed by scripts/pack_for_gpu.sh (default .carry; its
#        carry.tar.xz, when there, is unpacked into it first)
#   K    the kladder program (default $C/kladder; it finds kernels/ and lessons/ by walking up)
#   OUT  what comes back: results files and the two logs (default /tmp/kl-out). The device tool
#        brings back at most 8 files, so a plan merges the parts of a recording into one file
#        (scripts/merge_results.py) and keeps its parts in W
#   W    a scratch folder of this batch, not brought back
#   NAME=VALUE pairs given before the plans (LADDER=softmax), and XDG_CACHE_HOME (the kernel
#   cache; default /tmp/kl-cache)
# Plans are read whole before the first step runs: a plan that cannot be read, or an entry that is
# not a step or an export, is one line on stderr and exit 2, before any GPU time is spent.
# --check only reads the plans, and also fails (exit 2) when a step names a scripts/... or
# tests/... path that does not exist; CTest runs it over scripts/plans/ (lint.gpu_plans).
# Exit status: 0 when every step exited 0, else 1.
set -uo pipefail
cd "$(dirname "$0")/.."

fail() {
    echo "gpu_batch: $*" >&2
    exit 2
}

check_only=0
plans=()
for arg in "$@"; do
    case $arg in
        --check) check_only=1 ;;
        -*) fail "unknown option '$arg' (usage: scripts/gpu_batch.sh [--check] [NAME=VALUE...] PLAN...)" ;;
        *=*)
            [[ ${arg%%=*} =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || fail "'$arg' is not NAME=VALUE"
            export "${arg?}"
            ;;
        *) plans+=("$arg") ;;
    esac
done
[ ${#plans[@]} -gt 0 ] || fail "no plan given (usage: scripts/gpu_batch.sh [--check] [NAME=VALUE...] PLAN...)"

# Every entry of every plan, parsed before anything runs: kinds[i] is "step" or "export".
kinds=() names=() commands=() wheres=()
read_plan() {
    local plan=$1 line entry="" start=0 number=0
    [ -f "$plan" ] && [ -r "$plan" ] || fail "$plan: no such plan file"
    while IFS= read -r line || [ -n "$line" ]; do
        number=$((number + 1))
        [ -z "$entry" ] && start=$number
        if [[ $line == *\\ ]]; then
            entry+="${line%\\} "
            continue
        fi
        entry+=$line
        add_entry "$plan:$start" "$entry"
        entry=""
    done < "$plan"
    [ -z "$entry" ] || fail "$plan:$start: the last line ends in '\\' with nothing after it"
}
add_entry() {
    local where=$1 text=$2 name
    text=${text#"${text%%[![:space:]]*}"}  # leading blanks
    [[ -z $text || $text == \#* ]] && return
    name=${text%%[[:space:]]*}
    if [ "$name" = export ]; then
        kinds+=(export) names+=(export) commands+=("$text") wheres+=("$where")
        return
    fi
    [[ $name =~ ^[A-Za-z0-9._-]+$ ]] || fail "$where: '$name' is not a step name (letters, digits, '.', '_', '-')"
    local command=${text#"$name"}
    command=${command#"${command%%[![:space:]]*}"}
    [ -n "$command" ] || fail "$where: step '$name' has no command"
    kinds+=(step) names+=("$name") commands+=("$command") wheres+=("$where")
}
for plan in "${plans[@]}"; do read_plan "$plan"; done

if [ "$check_only" = 1 ]; then
    missing=0
    for i in "${!commands[@]}"; do
        for path in $(grep -oE '(^|[[:space:]"])(scripts|tests)/[A-Za-z0-9_./-]+' <<< "${commands[i]}" | tr -d ' "'); do
            [ -e "$path" ] || { echo "gpu_batch: ${wheres[i]}: '$path' does not exist" >&2; missing=1; }
        done
    done
    [ "$missing" = 0 ] || exit 2
    echo "gpu_batch: ${#plans[@]} plans, ${#commands[@]} entries, every path they name exists"
    exit 0
fi

export C=${C:-.carry}
export K=${K:-$C/kladder}
export OUT=${OUT:-/tmp/kl-out}
export XDG_CACHE_HOME=${XDG_CACHE_HOME:-/tmp/kl-cache}
mkdir -p "$OUT" || fail "cannot make $OUT"
W=$(mktemp -d) || fail "cannot make a scratch folder"
export W
# pack_for_gpu.sh sends the programs as one xz archive (the tree and the carry share 64 MiB).
if [ -f "$C/carry.tar.xz" ]; then
    tar -xJf "$C/carry.tar.xz" -C "$C" || fail "cannot unpack $C/carry.tar.xz"
fi
log=$OUT/batch.log
summary=$OUT/summary.txt
: > "$log"
: > "$summary"
failed=() begins=() ends=()
steps=0
for i in "${!kinds[@]}"; do
    if [ "${kinds[i]}" = export ]; then
        eval "${commands[i]}" || echo "gpu_batch: ${wheres[i]}: '${commands[i]}' failed" | tee -a "$summary" >&2
        continue
    fi
    steps=$((steps + 1))
    printf '\n== %s (%s): %s\n' "${names[i]}" "${wheres[i]}" "${commands[i]}" >> "$log"
    begins[i]=$(stat -c %s "$log")
    started=$SECONDS
    timeout -k 10 "${STEP_TIMEOUT:-300}" bash -o pipefail -c "${commands[i]}" >> "$log" 2>&1 < /dev/null
    rc=$?
    ends[i]=$(stat -c %s "$log")
    note=""
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then note="  (stopped at STEP_TIMEOUT=${STEP_TIMEOUT:-300} s)"; fi
    printf '%-32s exit %3d %5d s%s\n' "${names[i]}" "$rc" "$((SECONDS - started))" "$note" | tee -a "$summary"
    [ "$rc" = 0 ] || failed+=("$i")
done

for i in "${failed[@]}"; do  # the end of each failed step's own output
    echo "== ${names[i]} (${wheres[i]}) failed; its last lines:"
    tail -c +"$((begins[i] + 1))" "$log" | head -c "$((ends[i] - begins[i]))" | tail -n 15
done
count=$(find "$OUT" -type f | wc -l)
[ "$count" -le 8 ] || echo "gpu_batch: $OUT holds $count files; the device tool brings back 8 at most"
echo "gpu_batch: ${#failed[@]} of $steps steps failed (summary: $summary; output: $log)"
rm -rf "$W"
[ ${#failed[@]} -eq 0 ]
