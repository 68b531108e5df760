#!/usr/bin/env python3
"""The figure of results/reorder (run.sh): left, each measured comparison as B's mean time over A's
with the 95 % CI of B - A (paired, launch pairs), beside the library's modelled cost of B over A's;
right, what one reordering costs: the real calls' time split into gathering (source), mapping and
communicator (median over the launches) at each process count, and rank 0's mapping alone on
synthetic gathers up to 10^4 processes. Writes reorder.png, reorder.svg and cost.csv next to it.
Usage: plot.py RESULTS_DIR"""
import csv
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def measured(path):
    rows = list(csv.DictReader(open(path))) if path.exists() else []
    out = []
    for r in rows:
        a = float(r["mean_a_s"])
        ratio = float(r["mean_b_s"]) / a
        # One pair has no interval: the point alone.
        low = 1 + float(r["ci95_low_s"]) / a if r["ci95_low_s"] else ratio
        high = 1 + float(r["ci95_high_s"]) / a if r["ci95_high_s"] else ratio
        out.append({
            "label": f"{r['case']}\n{r['arm_b']} vs {r['arm_a']}",
            "ratio": ratio,
            "low": low,
            "high": high,
            "modelled": float(r["modelled_b"]) / float(r["modelled_a"]) if r["modelled_a"] and r["modelled_b"] else None,
        })
    return out


def cost_rows(results):
    by_np = defaultdict(list)
    stats = results / "stats" / "cost-constructor.json"
    for line in open(stats) if stats.exists() else []:
        r = json.loads(line)
        by_np[("MPI_Cart_create, Open MPI 4.1", r["processes"])].append(
            (r["seconds"], r["seconds_source"], r["seconds_mapping"], r["seconds_communicator"]))
    ompi5 = results / "stats" / "cost-monitoring-ompi5.txt"
    for line in open(ompi5) if ompi5.exists() else []:
        m = re.match(r"np=(\d+) REORDER .* seconds=([0-9.]+) mapping=([0-9.]+)", line)
        if m:
            total, mapping = float(m.group(2)), float(m.group(3))
            by_np[("mpimon_reorder \"monitoring\", Open MPI 5.0", int(m.group(1)))].append(
                (total, float("nan"), mapping, float("nan")))
    rows = []
    for (call, n), runs in sorted(by_np.items()):
        med = [statistics.median(x) for x in zip(*runs)]
        rows.append({"call": call, "processes": n, "launches": len(runs), "seconds": med[0], "source": med[1],
                     "mapping": med[2], "communicator": med[3]})
    return rows


def main():
    results = Path(sys.argv[1])
    comparisons = measured(results / "measured.csv")
    costs = cost_rows(results)
    decide = list(csv.DictReader(open(results / "decide.csv"))) if (results / "decide.csv").exists() else []
    with open(results / "cost.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["call", "processes", "launches", "median_seconds", "median_source_s", "median_mapping_s",
                    "median_communicator_s"])
        for r in costs:
            w.writerow([r["call"], r["processes"], r["launches"]] +
                       [f"{r[k]:.4f}" for k in ("seconds", "source", "mapping", "communicator")])
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 6.2), gridspec_kw={"width_ratios": [1.3, 1]})
    for i, c in enumerate(comparisons):
        left.errorbar([i], [c["ratio"]], yerr=[[c["ratio"] - c["low"]], [c["high"] - c["ratio"]]], fmt="o",
                      color="tab:blue", capsize=4, label="measured B / A (95 % CI)" if i == 0 else None)
        if c["modelled"] is not None:
            left.plot([i + 0.15], [c["modelled"]], "s", color="tab:orange",
                      label="modelled cost B / A" if not any(x["modelled"] for x in comparisons[:i]) else None)
    left.axhline(1, color="grey", lw=0.8)
    left.set_xticks(range(len(comparisons)), [c["label"] for c in comparisons], fontsize=7, rotation=30, ha="right")
    left.set_ylabel("B relative to A (time; modelled cost)")
    left.set_title("Measured on 4 emulated nodes (launch pairs)", fontsize=10)
    left.legend(fontsize=8)
    for placed_by, marker in (("node", "o"), ("core", "^")):
        rows = [r for r in decide if r["placed_by"] == placed_by]
        groups = defaultdict(list)
        for r in rows:
            groups[int(r["processes"])].append(float(r["machine_s"]) + float(r["decide_s"]))
        xs = sorted(groups)
        right.plot(xs, [statistics.median(groups[x]) for x in xs], marker + "--", color="tab:green",
                   label=f"rank 0's mapping, synthetic gather (by {placed_by})")
    for call, marker, color in (("MPI_Cart_create, Open MPI 4.1", "o", "tab:blue"),
                                ("mpimon_reorder \"monitoring\", Open MPI 5.0", "s", "tab:purple")):
        rows = [r for r in costs if r["call"] == call]
        if rows:
            right.plot([r["processes"] for r in rows], [r["seconds"] for r in rows], marker + "-", color=color,
                       label=f"whole call, {call} (median)")
    right.axhline(1, color="red", lw=0.7, ls=":")
    right.axhline(20, color="red", lw=0.7, ls=":")
    right.text(12, 1.1, "1 s (aim at 1024)", color="red", fontsize=7)
    right.text(12, 22, "20 s (aim at 10^4)", color="red", fontsize=7)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("processes")
    right.set_ylabel("seconds")
    right.set_title("The reordering's own cost", fontsize=10)
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.suptitle("libmpimon-reorder: placement inside the run (Open MPI 4.1.4 and 5.0.7, mpimon cluster)",
                 fontsize=11)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(results / f"reorder.{ext}", dpi=110)


if __name__ == "__main__":
    main()
