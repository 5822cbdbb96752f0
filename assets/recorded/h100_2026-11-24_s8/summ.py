import json, sys
label, path = sys.argv[1], sys.argv[2]
try:
    d = json.load(open(path))
except Exception as e:
    print(f"{label}: no results ({e})"); sys.exit(0)
for r in d.get("runs", []):
    if r.get("error"):
        print(f"{label}: ERROR {str(r['error'])[:200]}"); continue
    t = r["timing"]; c = r.get("clock") or {}; ok = (r.get("correctness") or {}).get("pass", "")
    s = f"{label}: med {t['median_ms']:.4f} min {t['min_ms']:.4f} ms, {r['rates']['tflops']:.0f} TF, clk {c.get('before_mhz',0):.0f}->{c.get('after_mhz',0):.0f}"
    for res in r.get("resources") or []:
        if "wgmma" in res.get("entry", ""):
            s += f" [regs {res.get('regs_per_thread')}, local {res.get('local_bytes')} B, smem {res.get('dynamic_smem_bytes')}]"
    cn = r.get("counters")
    if cn:
        g = lambda k: cn.get(k) or 0
        s += (f" | dram rd {g('dram__bytes_read.sum')/1e6:.1f} wr {g('dram__bytes_write.sum')/1e6:.1f} MB,"
              f" L2 rd {g('lts__t_sectors_op_read.sum')/1e6:.2f} wr {g('lts__t_sectors_op_write.sum')/1e6:.2f} Msect,"
              f" gpu {g('gpu__time_duration.sum')/1e3:.1f} us")
    tl = r.get("timeline")
    if tl:
        ks = tl.get("kernels", [])
        s += " | tl " + " ".join(f"{k.get('name','?')[:18]}:{(k['end_us']-k['start_us'])/1e3:.3f}" for k in ks[:4])
        s += f" sum {tl.get('kernel_sum_ms')} gap {tl.get('gap_ms')} clk {tl.get('clock_after_mhz',0):.0f}"
    print(s)
