#!/bin/sh
# library_share.sh GUI OUT_DIR: the matmul strip on a laptop's window (1280 x 720), lesson 6 step 2,
# recorded H100 results. cuBLAS TF32's card reads its rate as a multiple of cuBLAS fp32, the
# reference it is compared with ("7.5x cuBLAS fp32"), never as a share of it ("748% cuBLAS" read
# as a bug); the same-precision rungs keep their "% cuBLAS" (report::library_share). Then the
# attention strip on the recorded H200: its cards read "% cuDNN", the library they are compared with.
gui=$1
here=$(cd "$(dirname "$0")" && pwd)
. "$here/window_test.sh"
fresh_out "$2"
cat > "$out/script.txt" <<SCRIPT
wait 5
shot $out/strip.png
SCRIPT
run_gui "$gui" --size 1280x720 --no-save --no-runner --lesson matmul --step 2 --script "$out/script.txt" \
    --max-seconds 60 --report "$out/report.json"
verdict "$out/report.json" "library_share" '[
    ("x cuBLAS fp32" in text("cublas_tf32") and "%" not in text("cublas_tf32").split("|")[1],
     "cuBLAS TF32 card: " + text("cublas_tf32")),
    ("% cuBLAS" in text("cublas_fp32"), "cuBLAS fp32 card: " + text("cublas_fp32")),
    (cards.get("naive", {}).get("shows") == "withheld", "naive card (predicted at this step): " + str(cards.get("naive"))),
]' || exit 1
sh "$here/check_png.sh" "$out/strip.png" 1280 720 || exit 1

# Attention's library is cuDNN (SDPA's cuDNN backend, the ladder's bf16 reference), not cuBLAS:
# lesson 14 step 3 on the recorded H200, where SDPA ran at the step's sizes.
att="$out/attention"
mkdir -p "$att"
cat > "$att/script.txt" <<SCRIPT
wait 5
SCRIPT
run_gui "$gui" --size 1280x720 --no-save --no-runner --no-recorded --results "$here/../../assets/recorded/h200_attention.json" \
    --lesson attention_hopper --step 3 --script "$att/script.txt" --max-seconds 60 --report "$att/report.json"
verdict "$att/report.json" "library_share (attention)" '[
    ("% cuDNN" in text("flash_pingpong"), "flash_pingpong card: " + text("flash_pingpong")),
    ("% cuDNN" in text("torch_sdpa_cudnn"), "SDPA cuDNN card: " + text("torch_sdpa_cudnn")),
    (not any("cuBLAS" in text(c) for c in cards), "a card names cuBLAS: " + "; ".join(text(c) for c in cards)),
]' || exit 1
echo ok
