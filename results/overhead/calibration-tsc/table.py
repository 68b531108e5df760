# The calibration table from calNS.out and calNS.csv of run.sh (current directory).
import csv, re, sys
rows = []
print("| requested | delivered (measured on its own, mean of 2 ranks) | design | send 0 B | send 64 B | alltoall 0 B | alltoall 64 B | detected (p_BH < 0.05) | CI contains delivered |")
print("|---|---|---|---|---|---|---|---|---|")
for ns in (2, 5, 10, 20, 50):
    out = open(f"cal{ns}.out").read()
    m = re.search(r"the library measured ([0-9.]+) ns", out)
    delivered = float(m.group(1))
    cells = list(csv.DictReader(open(f"cal{ns}.csv")))
    for design in ("pairs", "interleaved"):
        txt, det, inside, total = [], 0, 0, 0
        for op, size in (("send", "0"), ("send", "64"), ("alltoall", "0"), ("alltoall", "64")):
            c = [r for r in cells if r["design"] == design and r["op"] == op and r["size"] == size][0]
            d, lo, hi, pbh = c["difference_ns"], c["difference_ci_low_ns"], c["difference_ci_high_ns"], c["p_bh"]
            if lo == "":
                txt.append(f"{float(d):.1f} (no CI: constant differences)")
                total += 1
                continue
            total += 1
            lo, hi = float(lo), float(hi)
            sig = pbh != "" and float(pbh) < 0.05
            det += sig
            inside += lo <= delivered <= hi
            fmt = (lambda v: f"{v:.1f}") if abs(float(d)) < 1000 else (lambda v: f"{v:.3g}")
            txt.append(f"{fmt(float(d))} [{fmt(lo)}, {fmt(hi)}]{' *' if sig else ''} (n {c['pairs']}, W p {float(c['wilcoxon_p']):.2g})")
        print(f"| {ns} ns | {delivered:.2f} ns | {design} | " + " | ".join(txt) + f" | {det} of 4 | {inside} of {total} |")
