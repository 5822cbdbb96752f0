#!/usr/bin/env python3
"""Instruction mix and FFMA register-bank statistics of a kernel's main loop, without a GPU.

This machine has ptxas but no cuobjdump or nvdisasm, so the fp32 matmul rungs' loops could only
be read on the device. This reads the instruction words of an sm_90 cubin directly:
    kladder ptx matmul --rung R [-p P=V ...] > r.ptx && ptxas -arch=sm_90 r.ptx -o r.cubin
    scripts/sass_loop_stats.py r.cubin
or the text of `cuobjdump -sass` made on the device (`--text FILE`).

Encoding read from the cubin (Volta and later, 128-bit instructions): opcode in bits 0-11 (FFMA
with three register sources is 0x223), destination register bits 16-23, sources a 24-31, b
32-39, c 64-71, operand reuse flags bits 122-124. Checked against the device's cuobjdump of the
same NVRTC builds (2026-11-24): rung 16's interior loop, 1,024 FFMA per K-tile both ways.
"Same bank" counts, per FFMA, the non-reused source registers that share a bank under
register % 2 (and % 4): a model, not a measurement; ptxas's placement moves it (tuning log).
"""
import collections
import re
import struct
import sys

NAMES = {0x223: "FFMA", 0x984: "LDS", 0xFAE: "LDGSTS", 0xB1D: "BAR", 0x947: "BRA", 0x224: "IMAD", 0x202: "MOV",
         0x210: "IADD3", 0x211: "LEA", 0xB82: "LDC"}


def sections(data):
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    hdrs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = hdrs[shstrndx][4]
    for h in hdrs:
        yield data[names + h[0]: data.index(b"\0", names + h[0])].decode(), data[h[4]: h[4] + h[5]]


def bank_stats(ffmas):
    """ffmas: (sources, reused flags) per FFMA -> counts of same-bank non-reused reads."""
    st = collections.Counter()
    for srcs, reused in ffmas:
        live = [r for r, ru in zip(srcs, reused) if not ru and r != 255]
        for m in (2, 4):
            st[f"same_bank_mod{m}"] += len(live) - len({r % m for r in live})
        st["reuse_flags"] += sum(reused)
    return dict(st)


def from_cubin(path):
    for name, body in sections(open(path, "rb").read()):
        if not name.startswith(".text."):
            continue
        words = [struct.unpack_from("<QQ", body, i) for i in range(0, len(body), 16)]
        ops = [lo & 0xFFF for lo, _ in words]
        cuts = [0] + [i + 1 for i, o in enumerate(ops) if o == 0x947] + [len(ops)]
        # the stretch between branches with the most FFMA (the unrolled K-loop body); of equals,
        # the shortest (the interior path, not the guarded edge path)
        a, b = max(zip(cuts, cuts[1:]), key=lambda s: (sum(o == 0x223 for o in ops[s[0]: s[1]]), s[0] - s[1]))
        ffmas = [(((lo >> 24) & 255, (lo >> 32) & 255, hi & 255), [bool((hi >> (58 + k)) & 1) for k in range(3)])
                 for lo, hi in words[a:b] if lo & 0xFFF == 0x223]
        mix = collections.Counter(NAMES.get(o, hex(o)) for o in ops[a:b])
        report(name[6:], b - a, mix, bank_stats(ffmas))


def from_text(path):
    text = open(path).read()
    for fn, body in re.findall(r"Function : (\S+)\n(.*?)(?=\n\t\tFunction :|\Z)", text, re.S):
        ins = [(int(m.group(1), 16), m.group(2).strip()) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+([^;]*);", body)]
        at = {a: i for i, (a, _) in enumerate(ins)}
        best = None
        for i, (a, t) in enumerate(ins):  # loops: backward branches; the most FFMA, then the shortest
            m = re.search(r"0x([0-9a-f]+)", t.split("BRA")[1]) if "BRA" in t else None
            if m and int(m.group(1), 16) < a and int(m.group(1), 16) in at:
                seg = [x for _, x in ins[at[int(m.group(1), 16)]: i + 1]]
                key = (sum(x.startswith("FFMA") for x in seg), -len(seg))
                best = max(best, (key, seg)) if best else (key, seg)
        if not best:
            continue
        seg = best[1]
        ffmas = []
        for x in seg:
            if x.startswith("FFMA"):
                regs = re.findall(r"-?R(\d+)(\.reuse)?", x)[1:]
                ffmas.append(([int(r) for r, _ in regs], [bool(u) for _, u in regs]))
        mix = collections.Counter(re.sub(r"^@!?U?P\w+\s+", "", x).split(" ")[0] for x in seg)
        report(fn, len(seg), mix, bank_stats(ffmas))


def report(fn, n, mix, st):
    f = mix.get("FFMA", 0)
    print(f"{fn}: loop {n} instructions, FFMA {f} ({100 * f / max(n, 1):.1f}%), {st}")
    print("   ", mix.most_common(12))


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--text":
        from_text(sys.argv[2])
    elif len(sys.argv) == 2:
        from_cubin(sys.argv[1])
    else:
        sys.exit("usage: sass_loop_stats.py KERNEL.cubin | --text CUOBJDUMP_SASS.txt")
