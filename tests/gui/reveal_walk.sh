#!/bin/sh
# reveal_walk.sh GUI OUT_DIR: predict, then reveal, as a new learner walks the core matmul lesson
# (every step predicts) in the real window (recorded results, nothing predicted). At every step the
# window's report says what each card of the ladder strip printed, what the plot drew, and the
# figures that this step's and every later step's prediction asks for (resolved as the bindings
# resolve them); reveal_check.py fails when a card or the plot shows one of them. The same walk of
# lesson 6 with --plant-reveal-leak (the gate of the current step alone, as the window had it)
# must fail the check: lesson 6 step 2 then showed steps 3-9's rates. Every step of every core
# lesson, for every figure kind and both recorded GPUs, is tests/report/test_reveal_window.cpp's
# walk (no window: seconds, where each window here takes several).
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
# walk NAME LESSON STEP_LINES [ARGS...]: a report at each of the lesson's first 12 steps; STEP_LINES
# are more script lines for each step, after its report (@ stands for NAME_STEP).
walk() {
    name=$1; lesson=$2; more=$3; shift 3
    script="$out/$name.txt"
    : > "$script"
    for k in 1 2 3 4 5 6 7 8 9 10 11 12; do
        printf 'wait 2\nreport %s\n%s\nkey Right\n' "$out/${name}_$k.json" "$(echo "$more" | sed "s/@/${name}_$k/g")" >> "$script"
    done
    run_gui "$gui" --size 1280x720 --no-runner --no-save --lesson "$lesson" --step 1 --script "$script" \
        --max-seconds 120 --report "$out/$name.json" "$@"
}
# Every step of lesson 6 predicts: "Show the measurements without predicting" (under the prompt)
# unfolds that step's figures alone; the later steps' stay hidden (the second report of each step).
revealed="wheel panel:step_text -40
wait 1
click button:reveal
wait 2
report $out/@_revealed.json"
walk matmul matmul "$revealed"
python3 "$here/reveal_check.py" "$out"/matmul_*.json || exit 1
walk planted matmul "" --plant-reveal-leak
if python3 "$here/reveal_check.py" "$out"/planted_*.json > "$out/planted_check.txt"; then
    echo "FAIL: the planted leak (--plant-reveal-leak) passed the check"; cat "$out/planted_check.txt"; exit 1
fi
grep -q "step 2 of matmul" "$out/planted_check.txt" || {
    echo "FAIL: the planted leak was not caught at matmul step 2"; cat "$out/planted_check.txt"; exit 1; }
echo "reveal_walk: the planted leak is caught: $(grep -c LEAK "$out/planted_check.txt") leaks"
