#!/usr/bin/env python3
"""The measured placement figures (plot_placement_measured.py) against their compact results files
read here with h5py alone, and against the CSV written when the full results files existed.

- each compact file's /analysis row (A and B means, B - A and its 95 % CI, pairs) equals the row of
  the committed FIGURE-measured.csv for its case and mappings (within 1e-8 relative: 9 significant
  digits), and A's and B's means equal the means of its launches' own times (/launches/*, attribute
  `seconds`, status ok);
- the paired t 95 % CI of B - A recomputed from the launches (pairs, Student's t from a table)
  equals the CSV's (within 1e-7 relative);
- every bar the figure draws: the measured bar of B is B's mean over A's (from the launches), its
  error bar that recomputed CI over A's mean, A's bar 1; the modelled bar is modelled_B over
  modelled_A of the configuration; each panel's Spearman correlation, in its title, is recomputed
  here from the launches (each B's mean over A's in the same file, A 1) and the configuration's
  modelled costs (ranks by counting, not by sorting);
- where the compact files carry predicted_A and predicted_B (the time model's predictions), they equal
  the rows of predicted.csv (objective-predicted.csv for the --objective comparisons) beside the
  figure's CSV, the third bar is predicted_B over predicted_A,
  and the title's second Spearman correlation is recomputed from them and the launches.

Usage: check_placement_measured.py PLOT_SCRIPT FIGURE-measured.csv COMPACT.h5...
Prints one line per figure checked; exits 1 on the first difference."""

import csv
import importlib.util
import os
import re
import sys

import h5py
import numpy as np
from matplotlib.container import BarContainer


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def close(a, b, what, rtol=1e-8):
    if not np.isclose(float(a), float(b), rtol=rtol, atol=1e-12):
        fail(f"{what}: {a} against {b}")


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


# Student's t, 97.5 % quantile, by degrees of freedom (statistical tables).
T975 = {1: 12.7062047, 2: 4.30265273, 3: 3.18244631, 4: 2.77644511, 5: 2.57058184, 6: 2.44691185,
        7: 2.36462425, 8: 2.30600414, 9: 2.26215716, 10: 2.22813885, 11: 2.20098516, 12: 2.17881283,
        13: 2.16036866, 14: 2.14478669, 15: 2.13144955, 19: 2.09302405}


def from_file(path):
    """Configuration, the /analysis row, and from the launches alone: A's and B's means and the
    paired t 95 % CI of B - A."""
    with h5py.File(path, "r") as f:
        config = {k: text(v) for k, v in f["configuration"].attrs.items()}
        analysis = {k: f["analysis"][k][()] for k in f["analysis"]}
        times = {"A": {}, "B": {}}
        for launch in f["launches"].values():
            if text(launch.attrs["status"]) == "ok":
                times[text(launch.attrs["arm"])][int(launch.attrs["pair"])] = float(text(launch.attrs["seconds"]))
    if len(analysis.get("A_mean_s", [])) != 1:
        fail(f"{path}: /analysis has no single row")
    pairs = sorted(set(times["A"]) & set(times["B"]))
    d = np.array([times["B"][p] - times["A"][p] for p in pairs])
    half = T975[len(d) - 1] * d.std(ddof=1) / np.sqrt(len(d))
    own = {"A": np.mean(list(times["A"].values())), "B": np.mean(list(times["B"].values())),
           "ci": (d.mean() - half, d.mean() + half), "pairs": len(d)}
    return config, {k: v[0] for k, v in analysis.items()}, own


def spearman(x, y):
    def rank(v):
        v = np.asarray(v, dtype=float)
        return np.array([(v < e).sum() + ((v == e).sum() + 1) / 2 for e in v])

    rx, ry = rank(x), rank(y)
    return np.corrcoef(rx, ry)[0, 1]


def main(script, committed_csv, paths):
    rows = {(r["case"], r["arm_a"], r["arm_b"]): r for r in csv.DictReader(open(committed_csv))}
    predicted_csv = os.path.join(os.path.dirname(committed_csv), "predicted.csv")
    predictions = {}
    if os.path.exists(predicted_csv):
        predictions = {(r["case"], r["arm"]): float(r["predicted_s"]) for r in csv.DictReader(open(predicted_csv))}
    objective_csv = os.path.join(os.path.dirname(committed_csv), "objective-predicted.csv")
    if os.path.exists(objective_csv):  # the --objective comparisons: arms hop-bytes and time
        for r in csv.DictReader(open(objective_csv)):
            predictions[(r["case"], "hop-bytes")] = float(r["predicted_hop_bytes_s"])
            predictions[(r["case"], "time")] = float(r["predicted_time_s"])
    cases = {}
    for path in paths:
        config, analysis, means = from_file(path)
        key = (config["case"], config["arm_A_name"], config["arm_B_name"])
        if key not in rows:
            fail(f"{path}: no row {key} in {committed_csv}")
        row = rows[key]
        for column, name in (("A_mean_s", "mean_a_s"), ("B_mean_s", "mean_b_s"), ("difference_s", "b_minus_a_s"),
                             ("difference_ci_low_s", "ci95_low_s"), ("difference_ci_high_s", "ci95_high_s"),
                             ("pairs", "pairs")):
            close(analysis[column], row[name], f"{path}: /analysis/{column} vs {committed_csv}")
        close(means["A"], analysis["A_mean_s"], f"{path}: A's launches' mean vs /analysis")
        close(means["B"], analysis["B_mean_s"], f"{path}: B's launches' mean vs /analysis")
        close(means["pairs"], row["pairs"], f"{path}: complete pairs vs {committed_csv}")
        close(means["ci"][0], row["ci95_low_s"], f"{path}: paired t CI low (launches) vs {committed_csv}", 1e-7)
        close(means["ci"][1], row["ci95_high_s"], f"{path}: paired t CI high (launches) vs {committed_csv}", 1e-7)
        close(config["modelled_A"], row["modelled_a"], f"{path}: modelled_A")
        close(config["modelled_B"], row["modelled_b"], f"{path}: modelled_B")
        case = cases.setdefault(config["case"], {"a": config["arm_A_name"], "bars": [], "predicted": []})
        case["modelled_a"] = float(config["modelled_A"])
        case["bars"].append((config["arm_B_name"], means["B"], means["A"], float(config["modelled_B"]), means["ci"]))
        if "predicted_A" in config and "predicted_B" in config:
            for side in "AB":
                close(config[f"predicted_{side}"], predictions.get((config["case"], config[f"arm_{side}_name"]), "nan"),
                      f"{path}: predicted_{side} vs {predicted_csv}")
            case["predicted"].append(float(config["predicted_B"]) / float(config["predicted_A"]))

    spec = importlib.util.spec_from_file_location("plot_placement_measured", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    fig = module.draw(paths, "check")
    panels = [ax for ax in fig.axes if ax.get_visible()]
    if len(panels) != len(cases):
        fail(f"{len(panels)} panels drawn for {len(cases)} cases")
    for ax, (name, case) in zip(panels, cases.items()):
        if not ax.get_title().startswith(f"{name} (A = {case['a']})"):
            fail(f"panel '{ax.get_title()}' where case {name} was expected")
        labels = [t.get_text() for t in ax.get_xticklabels()]
        expected_labels = [case["a"]] + [b[0] for b in case["bars"]]
        if labels != expected_labels:
            fail(f"{name}: mappings {labels}, the files have {expected_labels}")
        bars = [c for c in ax.containers if isinstance(c, BarContainer)]
        timed = len(case["predicted"]) == len(case["bars"])
        if len(bars) != (3 if timed else 2):
            fail(f"{name}: {len(bars)} kinds of bars drawn, {'3 (with the prediction)' if timed else '2'} expected")
        measured, modelled = bars[:2]
        heights = [p.get_height() for p in measured.patches]
        close(heights[0], 1.0, f"{name}: A's measured bar")
        for (arm, b, a, cost, row), height in zip(case["bars"], heights[1:]):
            close(height, b / a, f"{name} {arm}: measured bar")
        segments = measured.errorbar.lines[2][0].get_segments()
        for (arm, b, a, cost, ci), segment in zip(case["bars"], segments[1:]):
            close(segment[0][1], 1 + ci[0] / a, f"{name} {arm}: CI low")
            close(segment[1][1], 1 + ci[1] / a, f"{name} {arm}: CI high")
        expected_modelled = [1.0] + [cost / case["modelled_a"] for _, _, _, cost, _ in case["bars"]]
        for arm, height, want in zip(labels, [p.get_height() for p in modelled.patches], expected_modelled):
            close(height, want, f"{name} {arm}: modelled bar")
        rho = spearman([case["modelled_a"]] + [b[3] for b in case["bars"]], [1.0] + [b[1] / b[2] for b in case["bars"]])
        shown = re.search(r"Spearman model vs clock: ([+-][0-9.]+|n/a)", ax.get_title())
        if not shown or (shown.group(1) == "n/a") != bool(np.isnan(rho)):
            fail(f"{name}: Spearman in the title '{ax.get_title()}', recomputed {rho}")
        if shown.group(1) != "n/a":
            close(float(shown.group(1)), round(rho, 2), f"{name}: Spearman in the title", rtol=0)
        if timed:
            for arm, height, want in zip(labels, [p.get_height() for p in bars[2].patches], [1.0] + case["predicted"]):
                close(height, want, f"{name} {arm}: predicted bar")
            rho = spearman([1.0] + case["predicted"], [1.0] + [b[1] / b[2] for b in case["bars"]])
            shown = re.search(r"prediction vs clock: ([+-][0-9.]+|n/a)", ax.get_title())
            if not shown or (shown.group(1) == "n/a") != bool(np.isnan(rho)):
                fail(f"{name}: prediction's Spearman in the title '{ax.get_title()}', recomputed {rho}")
            if shown.group(1) != "n/a":
                close(float(shown.group(1)), round(rho, 2), f"{name}: prediction's Spearman in the title", rtol=0)
    print(f"{committed_csv}: the plotted values are the files' ({len(paths)} comparisons, {len(cases)} cases)")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3:])
