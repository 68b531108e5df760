# The calibration table from the files of run.sh (current directory): calNSns-analysis.csv, and
# calNSns-delivered.csv (each injected launch's delivered cost per rank), extracted from calNS.h5
# when that file is there (the committed CSVs redo the table without the HDF5 files).
# Delivered: the injected loop's time per call as each rank measured it on its own, averaged over
# the injected launches: the mean over ranks (what `mpimon bench overhead` compares with), and the
# maximum over ranks (the per-iteration sample is the maximum over ranks, so the slower rank's loop
# can weigh more than the mean). A CI "contains" the delivered cost when it contains the mean; the
# last column also counts the CIs that meet the range from the mean to the maximum.
import csv
import os
import sys

import numpy as np

# The one reader of results files (analysis/scripts/mpimon_results.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../analysis/scripts"))
from mpimon_results import launches  # noqa: E402

CELLS = (("send", "0"), ("send", "64"), ("alltoall", "0"), ("alltoall", "64"))


def extract_delivered(ns):
    with open(f"cal{ns}ns-delivered.csv", "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["launch", "arm", "ranks_ns"])
        for name, attrs, _ in launches(f"cal{ns}.h5"):
            if attrs["arm"] != "off" and attrs["status"] == "ok" and "spin_ranks_ns" in attrs:
                w.writerow([name, attrs["arm"], attrs["spin_ranks_ns"]])


def delivered(ns):
    if os.path.exists(f"cal{ns}.h5"):
        extract_delivered(ns)
    means, maxima = [], []
    for row in csv.DictReader(open(f"cal{ns}ns-delivered.csv")):
        ranks = [float(v) for v in row["ranks_ns"].split(",")]
        means.append(np.mean(ranks))
        maxima.append(max(ranks))
    return np.mean(means), np.mean(maxima), np.std(means)


def fmt(v):
    return f"{v:.1f}" if abs(v) < 1000 else f"{v:.3g}"


print("| requested | delivered: mean of ranks (max of ranks; launch-to-launch SD) | design | "
      + " | ".join(f"{op} {size} B" for op, size in CELLS)
      + " | detected (p_BH < 0.05) | CI contains the mean | CI meets [mean, max] |")
print("|---|---|---|" + "---|" * len(CELLS) + "---|---|---|")
for ns in (2, 5, 10, 20, 50):
    mean, top, sd = delivered(ns)
    cells = list(csv.DictReader(open(f"cal{ns}ns-analysis.csv")))
    for design in ("pairs", "interleaved"):
        text, detected, inside, meets, total = [], 0, 0, 0, 0
        for op, size in CELLS:
            c = [r for r in cells if r["design"] == design and r["op"] == op and r["size"] == size][0]
            total += 1
            if c["difference_ci_low_ns"] == "":
                text.append(f"{float(c['difference_ns']):.1f} (no CI: constant differences)")
                continue
            lo, hi = float(c["difference_ci_low_ns"]), float(c["difference_ci_high_ns"])
            significant = c["p_bh"] != "" and float(c["p_bh"]) < 0.05
            detected += significant
            inside += lo <= mean <= hi
            meets += lo <= top and mean <= hi
            text.append(f"{fmt(float(c['difference_ns']))} [{fmt(lo)}, {fmt(hi)}]{' *' if significant else ''}"
                        f" (n {c['pairs']}, W p {float(c['wilcoxon_p']):.2g})")
        print(f"| {ns} ns | {mean:.2f} ns ({top:.2f}; {sd:.2f}) | {design} | " + " | ".join(text)
              + f" | {detected} of {total} | {inside} of {total} | {meets} of {total} |")
