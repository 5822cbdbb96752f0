#!/usr/bin/env python3
"""Planted cheats for the lessons' empty-body exercises (issue 39), made from each reference solution.

For every exercise below, three learners who cheat, written to the folder given (the tests make
them in a scratch folder, so that no copy of a solution is kept in the repository):
  <name>_nan.cu     the solution's work, then NaN written into the first output element once
                    every block has finished: refused by the judge's check 'correct';
  <name>_cache.cu   the solution's work on the first launch only; later launches return at once,
                    leaving the first output in place: refused by 'poisoned output';
  <name>_mutate.cu  the solution's work, then one bit of the first input flipped once every
                    block has finished (the output is right): refused by 'inputs unmodified'.
Each is the solution with its entry kernel turned into a device function, `solution_body`, and a
new entry of the same name and launch bounds that calls it. "Once every block has finished": the
last block to arrive at a counter (threadfence, atomicAdd) does it and resets the counter.

  make_exercise_cheats.py --out DIR  write the files into DIR
tests/cli/exercises_gpu.sh submits each on a GPU and expects the refusal named above.
"""
import pathlib
import re
import shutil
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# name: (exercise, solution, entry, parameters, arguments, first output element, first input)
EXERCISES = {
    "copy": ("00_measuring/9", "lessons/00_measuring/solutions/copy.cu", "copy_row_walk",
             "float* __restrict__ out, const float* __restrict__ in, int rows, int cols",
             "out, in, rows, cols", "out[0]", "in"),
    "transpose": ("03_coalescing/9", "lessons/03_coalescing/solutions/transpose.cu", "transpose_smem",
                  "float* __restrict__ out, const float* __restrict__ in, int rows, int cols",
                  "out, in, rows, cols", "out[0]", "in"),
    "reduction": ("05_softmax/11", "lessons/05_softmax/solutions/reduction.cu", "softmax_block_smem",
                  "ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols",
                  "out, in, rows, cols", "out[0]", "in"),
    "online_softmax": ("05_softmax/12", "lessons/05_softmax/solutions/online_softmax.cu", "softmax_online",
                       "ELEM* __restrict__ out, const ELEM* __restrict__ in, int rows, int cols",
                       "out, in, rows, cols", "out[0]", "in"),
    "sgemm": ("06_matmul/5", "lessons/06_matmul/solutions/sgemm.cu", "matmul_reg_2d",
              "float* C, const float* A, const float* B, int M, int N, int K", "C, A, B, M, N, K", "C[0]", "A"),
    "mma_tile": ("06_matmul/9", "lessons/06_matmul/solutions/mma_tile.cu", "matmul_mma_bf16",
                 "float* C, const __nv_bfloat16* A, const __nv_bfloat16* B, int M, int N, int K",
                 "C, A, B, M, N, K", "C[0]", "A"),
    "flash_forward": ("09_attention/10", "lessons/09_attention/solutions/flash_forward.cu", "attention_flash_fp32",
                      "float* O, float* lse, const float* Q, const float* K, const float* V, int N, int d, "
                      "int causal", "O, lse, Q, K, V, N, d, causal", "O[0]", "K"),
}

LAST_BLOCK = """    __syncthreads();  // this block's work is done
    __shared__ bool cheat_last_block;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) {
        __threadfence();  // this block's writes are visible before it is counted
        const unsigned total = gridDim.x * gridDim.y * gridDim.z;
        cheat_last_block = atomicAdd(&cheat_blocks_done, 1u) == total - 1;
        if (cheat_last_block) cheat_blocks_done = 0;  // ready for the next launch
    }
    __syncthreads();
    if (!cheat_last_block || threadIdx.x != 0 || threadIdx.y != 0 || threadIdx.z != 0) return;
    __threadfence();
"""

KINDS = {
    "nan": ("writes NaN into its first output element after the work",
            "refused by the check 'correct'",
            "__device__ unsigned cheat_blocks_done;\n",
            lambda out, inp: "    solution_body(ARGS);\n" + LAST_BLOCK +
            f"    {out} = {out} * __int_as_float(0x7fc00000);  // NaN, in the output's own type\n"),
    "cache": ("computes on its first launch only and leaves that output in place afterwards",
              "refused by the check 'poisoned output'",
              "__device__ unsigned long long cheat_blocks_seen;\n",
              lambda out, inp: """    __shared__ unsigned long long cheat_my_number;
    if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
        cheat_my_number = atomicAdd(&cheat_blocks_seen, 1ull);
    __syncthreads();
    if (cheat_my_number >= (unsigned long long)gridDim.x * gridDim.y * gridDim.z) return;  // not the first launch
    solution_body(ARGS);
"""),
    "mutate": ("flips a bit of its first input once every block is done (its output is right)",
               "refused by the check 'inputs unmodified'",
               "__device__ unsigned cheat_blocks_done;\n",
               lambda out, inp: "    solution_body(ARGS);\n" + LAST_BLOCK +
               f"    reinterpret_cast<unsigned char*>(const_cast<void*>(static_cast<const void*>({inp})))[0] ^= 1;\n"),
}

ENTRY = re.compile(r'extern "C" __global__ void\s*(?:__launch_bounds__\(([^()]*)\))?\s*(\w+)\(')


def make(name, kind):
    exercise, solution, entry, params, args, out, inp = EXERCISES[name]
    what, refusal, globals_, body = KINDS[kind]
    text = (ROOT / solution).read_text()
    m = ENTRY.search(text)
    if not m or m.group(2) != entry:
        raise SystemExit(f"{solution}: no entry kernel {entry}")
    bounds = m.group(1)
    text = text[:m.start()] + "__device__ __forceinline__ void solution_body(" + text[m.end():]
    head = (f"// GENERATED by scripts/make_exercise_cheats.py from {solution}: do not edit.\n"
            f"// A planted cheat for exercise {exercise} (tests/cli/exercises_gpu.sh): the reference solution,\n"
            f"// but it {what}; {refusal}.\n")
    entry_line = 'extern "C" __global__ void ' + (f"__launch_bounds__({bounds}) " if bounds else "") + \
        f"{entry}({params}) {{\n"
    return formatted(head + text + "\n" + globals_ + entry_line + body(out, inp).replace("ARGS", args) + "}\n")


def formatted(text):
    """The repository's clang-format style, where clang-format is installed (for reading; the GPU
    machine has none, and the compiler does not care)."""
    tool = shutil.which("clang-format")
    if not tool:
        return text
    return subprocess.run([tool, f"--style=file:{ROOT / '.clang-format'}", "--assume-filename=cheat.cu"],
                          input=text, capture_output=True, text=True, check=True).stdout


def main():
    args = sys.argv[1:]
    if len(args) != 2 or args[0] != "--out":
        raise SystemExit("usage: make_exercise_cheats.py --out DIR")
    out = pathlib.Path(args[1])
    out.mkdir(parents=True, exist_ok=True)
    for name in EXERCISES:
        for kind in KINDS:
            (out / f"{name}_{kind}.cu").write_text(make(name, kind))
    return 0


if __name__ == "__main__":
    sys.exit(main())
