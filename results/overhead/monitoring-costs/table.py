# The table of the monitoring's own costs from the CSV of `mpimon show costs.h5 --csv` (run.sh):
# costs-analysis.csv here.
# One row per operation and size; a column per (design, arm): the difference in ns per call
# [95 % CI], `*` when significant after Benjamini-Hochberg, and the same per process (Fig. 2's unit).
import csv, sys

cells = list(csv.DictReader(open(sys.argv[1] if len(sys.argv) > 1 else "costs-analysis.csv")))
# The comparisons and their titles come from the CSV (mpimon's one table of arms): the launch-pair
# design's first, each design's in the order the CSV lists them.
columns = sorted(dict.fromkeys((r["design"], r["arm"], r["comparison"]) for r in cells if r.get("comparison")),
                 key=lambda c: c[0] != "pairs")


def cell(design, arm, op, size):
    rows = [r for r in cells if r["design"] == design and r["arm"] == arm and r["op"] == op and r["size"] == size]
    if not rows:
        return "not measured"
    r = rows[0]
    if r["difference_ci_low_ns"] == "":
        return f"{float(r['difference_ns']):.1f} (no CI)"
    sig = r["p_bh"] != "" and float(r["p_bh"]) < 0.05
    return (f"{float(r['difference_ns']):.1f} [{float(r['difference_ci_low_ns']):.1f}, "
            f"{float(r['difference_ci_high_ns']):.1f}]{' *' if sig else ''}; "
            f"{float(r['per_process_ns']):.1f} per process (n {r['pairs']})")


print("| operation | size (B) | " + " | ".join(c[2] for c in columns) + " |")
print("|---|---:|" + "---|" * len(columns))
ops = list(dict.fromkeys(r["op"] for r in cells))
sizes = sorted({int(r["size"]) for r in cells})
for op in ops:
    for size in sizes:
        print(f"| {op} | {size} | " + " | ".join(cell(d, a, op, str(size)) for d, a, _ in columns) + " |")
