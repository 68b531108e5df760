#!/usr/bin/env python3
"""Draws `mpimon place --json` reports as grouped bars: each report's methods, their MODELLED cost
relative to packed (random: mean with its standard deviation). Used by `mpimon plot placement`.
Usage: plot_placement.py --output PREFIX --title TITLE REPORT.json..."""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402



def methods_that_ran(reports):
    """The methods that have a cost in any report, in the order the reports list them (the order of
    the placement-method table): the names and their order come from the data, never from a copy."""
    names = []
    for _, report in reports:
        for row in report["methods"]:
            if "cost" in row and row["method"] not in names:
                names.append(row["method"])
    return names


def label(path, report):
    name = os.path.splitext(os.path.basename(path))[0]
    return f"{name}\n{report['topology']['tleaf']}\nfrom {report['classes']}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--title", default="mpimon place")
    parser.add_argument("reports", nargs="+")
    args = parser.parse_args()
    reports = []
    for path in args.reports:
        with open(path) as f:
            report = json.load(f)
        if report.get("format") != "mpimon-placement":
            raise SystemExit(f"{path}: not an mpimon place --json report")
        reports.append((path, report))
    evaluated = sorted({r["evaluate_classes"] + " " + r["metric"] for _, r in reports})
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(reports) + 3), 5.5))
    methods = methods_that_ran(reports)
    width = 0.8 / max(1, len(methods))
    for k, method in enumerate(methods):
        xs, ys, errs = [], [], []
        for i, (_, report) in enumerate(reports):
            rows = {m["method"]: m for m in report["methods"] if "cost" in m}
            packed = next((m for m in report["methods"] if m["method"] == "packed" and "cost" in m), None)
            if method not in rows:
                continue
            base = float(packed["cost"]) if packed else None
            if base is None and "gain_vs_packed_percent" in rows[method] and rows[method]["gain_vs_packed_percent"]:
                base = float(rows[method]["cost"]) * (1 + rows[method]["gain_vs_packed_percent"] / 100)
            if not base:
                continue
            row = rows[method]
            xs.append(i + (k - len(methods) / 2 + 0.5) * width)
            ys.append(float(row.get("cost_mean", row["cost"])) / base)
            errs.append(float(row.get("cost_sd", 0)) / base)
        if xs:
            ax.bar(xs, ys, width, yerr=errs, label=method, capsize=2)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks(range(len(reports)))
    ax.set_xticklabels([label(p, r) for p, r in reports], fontsize=7)
    ax.set_ylabel("modelled cost / cost of packed (lower is better)")
    model = reports[0][1]["model"]
    ax.set_title(f"{args.title}\nMODELLED costs on traffic {', '.join(evaluated)}", fontsize=10)
    fig.text(0.01, 0.01, model, fontsize=6, wrap=True)
    ax.legend(fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    for ext in ("png", "svg"):
        fig.savefig(f"{args.output}.{ext}", dpi=120)
        print(f"{args.output}.{ext}")


if __name__ == "__main__":
    main()
