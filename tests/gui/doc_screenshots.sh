#!/bin/sh
# doc_screenshots.sh GUI FAKE_RUNNER OUT_DIR [RESULTS.json ...]: the screenshots of the main views
# in docs/screenshots/, made the same way as the tests make theirs (Xvfb, recorded results, no
# GPU). Extra results files (e.g. sweeps measured on a GPU) are shown besides assets/recorded.
# Run under xvfb-run:  xvfb-run -a -s "-screen 0 1920x1200x24" sh tests/gui/doc_screenshots.sh \
#   build/app/gui/kernel-ladder build/tests/gui/fake_runner docs/screenshots [results.json ...]
set -e
gui=$1
fake=$2
out=$3
shift 3
extra=""
for r in "$@"; do extra="$extra --results $r"; done
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
mkdir -p "$out"
tmp=$(mktemp -d)
export XDG_CONFIG_HOME="$tmp/config" XDG_CACHE_HOME="$tmp/cache"
shot() {  # shot NAME ARGS...
    name=$1
    shift
    "$gui" --no-save --size 1440x900 "$@" --screenshot "$tmp/$name.png" > /dev/null
    # 256 colours keep the files small; text stays sharp at this size.
    convert "$tmp/$name.png" -colors 256 -define png:compression-level=9 "PNG8:$out/$name.png"
    echo "$out/$name.png"
}
shot rungs          --no-runner $extra --lesson first_kernel --step 3
shot sweep_tpb      --no-runner $extra --lesson first_kernel --step 4
shot sweep_size     --no-runner $extra --lesson first_kernel --step 7
shot traffic        --no-runner $extra --lesson coalescing --step 5 --view traffic
shot sectors        --no-runner $extra --lesson coalescing --step 3
shot bank_conflicts --no-runner $extra --lesson coalescing --step 6
shot attention_memory --no-runner $extra --lesson attention --step 3
# The wgmma step predicts its rate: a kept prediction (seeded) lets the bars show.
mkdir -p "$tmp/seeded/kernel-ladder"
echo '{"version": 1, "predictions": {"matmul_hopper": {"0": 600}}}' > "$tmp/seeded/kernel-ladder/progress.json"
XDG_DATA_HOME="$tmp/seeded" shot matmul_light   --no-runner $extra --lesson matmul_hopper --step 1 --view bars --theme light --hover 960,640
shot diff_light     --no-runner $extra --lesson fusion --step 4 --view diff --theme light
shot ptx            --no-runner $extra --lesson fusion --step 5 --view ptx
# Issue 18: a Triton rung's Python source (its PTX needs python3 with Triton where this runs).
shot triton_source  --no-runner $extra --lesson softmax --step 10 --view source
shot questions      --no-runner $extra --lesson first_kernel --step 1 --view questions
shot flashcards     --no-runner $extra --lesson softmax --step 2 --view cards --theme light
# Issue 15: two recorded devices side by side, and the occupancy view.
XDG_DATA_HOME="$tmp/seeded" shot two_devices    --no-runner $extra --lesson matmul_hopper --step 1 --view bars --compare-device H200
shot two_devices_elementwise --no-runner $extra --lesson first_kernel --step 3 --view bars --compare-device H200
shot occupancy      --no-runner $extra --lesson first_kernel --step 6
shot occupancy_reg_2d --no-runner $extra --lesson matmul --step 6
# The TPB slider marks 1024 as unable to launch at VPT = 8 (70 registers per thread, measured on the H100).
shot launch_marks   --no-runner $extra --results "$here/../../assets/recorded/h100_2026-11-23_resources/h100_gelu_fused_vec_vpt8_sweep_tpb.json" \
    --lesson fusion --step 5 --param VPT=8 --view occupancy
# Issue 37: predict, then reveal, at 1280 x 720, the step text scrolled to the prompt (WHEEL):
# before a prediction (the figure withheld in text, plot and strip) and after one is kept.
predict_shot() {  # predict_shot NAME WHEEL ARGS...
    name=$1; wheel=$2; shift 2
    printf 'wait 3\nwheel panel:step_text %s\nwait 3\nshot %s\n' "$wheel" "$tmp/$name.png" > "$tmp/$name.txt"
    XDG_DATA_HOME="$tmp/data" "$gui" --no-save --size 1280x720 --no-runner $extra "$@" --script "$tmp/$name.txt" \
        --max-seconds 60 > /dev/null
    convert "$tmp/$name.png" -colors 256 -define png:compression-level=9 "PNG8:$out/$name.png"
    echo "$out/$name.png"
}
predict_shot prediction_fusion_before -6 --lesson fusion --step 3
predict_shot prediction_attention_before -8 --lesson attention --step 3
# Issue 37's acceptance: lessons 0-3 and the core matmul lesson as a new learner opens them (no
# prediction kept yet, recorded results, 1280 x 720): each lesson's first predict step, the text at
# the top and then scrolled to the prompt. No predicted figure may show above its question.
predict_shot learner_l0_measuring_top 0 --lesson measuring --step 1
predict_shot learner_l0_measuring_prompt -11 --lesson measuring --step 1
predict_shot learner_l1_first_kernel_top 0 --lesson first_kernel --step 3
predict_shot learner_l1_first_kernel_prompt -12 --lesson first_kernel --step 3
predict_shot learner_l2_roofline_top 0 --lesson roofline --step 2
predict_shot learner_l2_roofline_prompt -12 --lesson roofline --step 2
predict_shot learner_l3_coalescing_top 0 --lesson coalescing --step 2
predict_shot learner_l3_coalescing_prompt -12 --lesson coalescing --step 2
predict_shot learner_l6_matmul_top 0 --lesson matmul --step 2
predict_shot learner_l6_matmul_prompt -12 --lesson matmul --step 2
# Issue 40: the backward-pass lesson's naive step, scrolled to its prompt.
predict_shot learner_l10_backward_prompt -9 --lesson backward --step 3
# The lesson list scrolled to its end: the appendix apart, each lesson marked with the GPU it needs.
printf 'wait 3\nwheel panel:navigator -40\nwait 3\nshot %s\n' "$tmp/learner_appendix_list.png" > "$tmp/appendix.txt"
XDG_DATA_HOME="$tmp/data" "$gui" --no-save --size 1280x720 --no-runner $extra --lesson matmul_hopper --step 1 \
    --script "$tmp/appendix.txt" --max-seconds 60 > /dev/null
convert "$tmp/learner_appendix_list.png" -colors 256 -define png:compression-level=9 "PNG8:$out/learner_appendix_list.png"
mkdir -p "$tmp/data/kernel-ladder"
echo '{"version": 1, "predictions": {"fusion": {"2": 2500}, "attention": {"2": 20}, "backward": {"2": 350}}}' > "$tmp/data/kernel-ladder/progress.json"
predict_shot prediction_fusion_after -40 --lesson fusion --step 3
predict_shot prediction_attention_after -40 --lesson attention --step 3
predict_shot learner_l10_backward_reveal -4 --lesson backward --step 3
# The runner killed mid-sweep (a test double of the runner: no GPU needed), and the window after.
KLADDER_SERVE="$fake --delay-ms 150" shot runner_recovery --lesson first_kernel --step 4 --run sweep --kill-runner-after 2 --exit-when-idle
# A lesson whose manifest is broken is listed with the loader's message.
trap_data_root "$tmp/root"
KLADDER_ROOT="$tmp/root" shot broken_lesson --no-runner --lesson trap_demo --step 1
# Issue 38: a laptop's window as it opens (the step text keeps 40% of the height, the banner
# folded to a line), the matmul prompt that showed no step text at all before, and the light
# theme's selected tab. HiDPI (hidpi_2560x1440.png) needs a larger screen: docs/screenshots/README.md.
# 256 colours: pngquant where installed (ImageMagick's convert otherwise).
reduce_png() {  # reduce_png FROM TO
    if command -v pngquant > /dev/null; then pngquant --force --speed 1 256 --output "$2" "$1"
    else convert "$1" -colors 256 -define png:compression-level=9 "PNG8:$2"; fi
}
laptop_shot() {  # laptop_shot NAME ARGS...
    name=$1; shift
    "$gui" --no-save --no-runner $extra "$@" --screenshot "$tmp/$name.png" > /dev/null
    reduce_png "$tmp/$name.png" "$out/$name.png"
    echo "$out/$name.png"
}
laptop_shot laptop_1280x720 --size 1280x720 --lesson first_kernel --step 4
laptop_shot laptop_matmul_1280x720 --size 1280x720 --lesson matmul --step 2
laptop_shot laptop_1366x768 --size 1366x768 --lesson matmul --step 6
laptop_shot laptop_light_tabs --size 1280x720 --lesson fusion --step 4 --view source --theme light
# HiDPI: every size doubled through the settings' zoom (content scale x zoom, one code path; Xvfb
# gives GLFW no content scale). Read from a settings file, so without --no-save, in a config folder
# of its own. Needs a screen of 2560 x 1440 or more (xvfb-run -s "-screen 0 2600x1500x24"); skipped
# on a smaller one.
if [ "$(xdpyinfo 2> /dev/null | sed -n 's/.*dimensions: *\([0-9]*\)x.*/\1/p')" -ge 2560 ] 2> /dev/null; then
    for view in sweep occupancy; do
        mkdir -p "$tmp/hidpi/kernel-ladder"
        echo '{"version": 1, "zoom": 2.0}' > "$tmp/hidpi/kernel-ladder/workbook.json"
        name=hidpi_2560x1440$([ $view = sweep ] || echo _$view)
        XDG_CONFIG_HOME="$tmp/hidpi" "$gui" --no-runner $extra --size 2560x1440 --lesson first_kernel --step 4 \
            --view $view --screenshot "$tmp/$name.png" > /dev/null
        reduce_png "$tmp/$name.png" "$out/$name.png"
        echo "$out/$name.png"
    done
fi
rm -rf "$tmp"
