#!/usr/bin/env python3
"""Draws MEASURED placements: compact results files of `mpimon bench placement` (one comparison of
mapping A against mapping B each), grouped by the `case` of their configuration, one panel per
case; and SIMULATED ones: results files of `mpimon simulate` (kind=simulated: every mapping of a case
in one file, A the first, no error bars: a simulation is deterministic; `mpimon plot` draws one such
file alone). In each panel, per mapping: its measured time relative to A's (B's mean over the pairs / A's
mean in the same comparison, with the 95 % CI of the difference B - A over A's mean as the error
bar; A itself 1) beside its MODELLED cost relative to A's (configuration `modelled_A`,
`modelled_B`), and in the panel's title Spearman's rank correlation of the modelled costs and the
measured times over the case's mappings, each time taken relative to A's in its own launch pairs
(A's mean drifts between comparisons on a loaded machine; the pairs cancel the drift). A simulation
without the modelled cost of every mapping (a --platform without a tree) draws its simulated times
alone.
The configuration attributes it reads (`mpimon compact --set`): case, arm_A_name, arm_B_name,
modelled_A, modelled_B; and where every file of a case has them, predicted_A and predicted_B
(seconds: the PREDICTED communication time of `mpimon place`'s time model, docs/placement.md),
drawn as a third bar relative to A's with their own Spearman correlation in the title.
Used by `mpimon plot placement RESULTS.h5... -o PREFIX`.

Usage: plot_placement_measured.py --output PREFIX --title TITLE COMPACT.h5..."""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# The one reader of results files (mpimon_results.py, beside this script).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpimon_results import read_configuration, read_table  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "mpimon"  # the same data give the same files
NEEDED = ("case", "arm_A_name", "arm_B_name", "modelled_A", "modelled_B")


def read_simulated(path, config):
    """The comparisons of A with every other mapping of a simulation (/mappings), each with no CI."""
    rows, _, _ = read_table(path, "mappings", formats=("mpimon-apps",))
    arms = list(rows["arm"])
    if not arms or any(s != "ok" for s in rows["status"]):
        sys.exit(f"{path}: a simulation without every mapping simulated (mpimon show {path})")
    modelled = all(f"modelled_{a}" in config for a in arms)
    cost = (lambda a: config[f"modelled_{a}"]) if modelled else (lambda a: None)
    case = config.get("case", config.get("apps", path))
    first = {"case": case, "arm_A_name": rows["name"][0], "modelled_A": cost(arms[0]),
             "A_mean_s": float(rows["seconds"][0]), "np": config.get("np", ""), "simulated": True}
    out = [{**first, "arm_B_name": None}]
    for i in range(1, len(arms)):
        b = float(rows["seconds"][i])
        out.append({**first, "arm_B_name": rows["name"][i], "modelled_B": cost(arms[i]),
                    "B_mean_s": b, "difference_s": b - first["A_mean_s"], "difference_ci_low_s": b - first["A_mean_s"],
                    "difference_ci_high_s": b - first["A_mean_s"], "pairs": 1})
    return out


def read_comparison(path):
    """A file's comparisons: one of bench placement (its configuration strings and the /analysis row's
    times), or those of a simulation."""
    config, _ = read_configuration(path, formats=("mpimon-apps",))
    if config.get("kind") == "simulated":
        return read_simulated(path, config)
    table, config, _ = read_table(path, "analysis", formats=("mpimon-apps",))
    missing = [k for k in NEEDED if k not in config]
    if missing or config.get("arms") != "A,B":
        sys.exit(f"{path}: not a placement comparison with {', '.join(missing or ['arms A,B'])} "
                 "(mpimon compact --set KEY=VALUE)")
    row = {k: float(table[k][0]) for k in
           ("A_mean_s", "B_mean_s", "difference_s", "difference_ci_low_s", "difference_ci_high_s", "pairs")}
    predicted = {k: config[k] for k in ("predicted_A", "predicted_B") if k in config}
    return [{**row, **{k: config[k] for k in NEEDED}, **predicted, "np": config.get("np", ""), "simulated": False}]


def ranks(values):
    """1-based ranks, ties sharing the mean of their positions."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="stable")
    result = np.empty(len(values))
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        result[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(x, y):
    if len(x) < 2:
        return float("nan")
    rx, ry = ranks(x), ranks(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    den = np.sqrt((rx**2).sum() * (ry**2).sum())
    return float((rx * ry).sum() / den) if den else float("nan")


def case_panels(comparisons):
    """Per case, in order of first appearance: its mappings with their measured and modelled values."""
    cases = {}
    for c in comparisons:
        panel = cases.setdefault(c["case"], {"a": c["arm_A_name"], "arms": [], "predicted_a": [],
                                             "simulated": c["simulated"]})
        if c["arm_A_name"] != panel["a"]:
            sys.exit(f"case {c['case']}: comparisons against two different A mappings "
                     f"({panel['a']}, {c['arm_A_name']})")
        if c["simulated"] != panel["simulated"]:
            sys.exit(f"case {c['case']}: measured and simulated comparisons in one case")
        panel["modelled_a"] = None if c["modelled_A"] is None else float(c["modelled_A"])
        if c["arm_B_name"] is None:  # a simulation's A alone
            continue
        a = c["A_mean_s"]
        panel["arms"].append({"name": c["arm_B_name"], "relative": c["B_mean_s"] / a,
                              "ci": (1 + c["difference_ci_low_s"] / a, 1 + c["difference_ci_high_s"] / a),
                              "modelled": None if c["modelled_B"] is None else float(c["modelled_B"]),
                              "predicted": float(c["predicted_B"]) if "predicted_B" in c else None})
        panel["predicted_a"].append(float(c["predicted_A"]) if "predicted_A" in c else None)
    for case, panel in cases.items():
        names = [panel["a"]] + [arm["name"] for arm in panel["arms"]]
        measured = [1.0] + [arm["relative"] for arm in panel["arms"]]
        modelled = [panel["modelled_a"]] + [arm["modelled"] for arm in panel["arms"]]
        rho = float("nan") if panel["modelled_a"] is None else spearman(modelled, measured)
        panel.update(names=names, measured=measured, modelled=modelled, rho=rho)
        # The prediction, where every comparison of the case has it: each B's over A's.
        if all(p is not None for p in panel["predicted_a"]) and all(arm["predicted"] is not None for arm in panel["arms"]):
            predicted = [1.0] + [arm["predicted"] / pa for arm, pa in zip(panel["arms"], panel["predicted_a"])]
            panel.update(predicted=predicted, rho_predicted=spearman(predicted, measured))
    return cases


def draw(paths, title, columns=3):
    """The figure (returned, for the checks) of the comparisons in paths, `columns` panels a row."""
    cases = case_panels([c for p in paths for c in read_comparison(p)])
    columns = min(columns, len(cases))
    rows = (len(cases) + columns - 1) // columns
    # One panel alone (mpimon plot of a simulation) is wider: its two title lines fit above it.
    width = 4.6 * columns if columns > 1 else 6.4
    fig, axes = plt.subplots(rows, columns, figsize=(width, 3.6 * rows + 0.8), squeeze=False)
    for ax in axes.flat[len(cases):]:
        ax.set_visible(False)
    for ax, (case, panel) in zip(axes.flat, cases.items()):
        x = np.arange(len(panel["names"]))
        measured = [1.0] + [arm["relative"] for arm in panel["arms"]]
        low = [0.0] + [arm["relative"] - arm["ci"][0] for arm in panel["arms"]]
        high = [0.0] + [arm["ci"][1] - arm["relative"] for arm in panel["arms"]]
        timed = "predicted" in panel
        width = 0.27 if timed else 0.4
        simulated = panel["simulated"]
        costed = panel["modelled_a"] is not None  # else its simulated bars alone, centred
        ax.bar(x - (width / (1 if timed else 2) if costed else 0), measured, width,
               yerr=None if simulated else [low, high], capsize=3, color="tab:purple" if simulated else "tab:blue",
               label="SIMULATED time / A's" if simulated else "measured time / A's")
        if costed:
            ax.bar(x + (0 if timed else width / 2), [m / panel["modelled_a"] for m in panel["modelled"]], width,
                   color="tab:orange", hatch="//", label="MODELLED cost / A's")
        if timed:
            ax.bar(x + width, panel["predicted"], width, color="tab:green", hatch="..",
                   label="PREDICTED comm. time / A's")
        ax.axhline(1.0, color="grey", linewidth=0.8)
        ax.set_xticks(x)
        ax.set_xticklabels(panel["names"], fontsize=8, rotation=20)
        rho = ("n/a (no modelled cost)" if not costed else
               "n/a (a constant)" if np.isnan(panel["rho"]) else f"{panel['rho']:+.2f}")
        clock = "simulated clock" if simulated else "clock"
        heading = f"{case} (A = {panel['a']})\nSpearman model vs {clock}: {rho}"
        if timed:
            rho_t = "n/a" if np.isnan(panel["rho_predicted"]) else f"{panel['rho_predicted']:+.2f}"
            heading += f"; prediction vs clock: {rho_t}"
        ax.set_title(heading, fontsize=9)
        ax.tick_params(axis="y", labelsize=8)
    axes.flat[0].set_ylabel("relative to A (lower is better)", fontsize=8)
    axes.flat[0].legend(fontsize=7, loc="upper left")
    # The first simulated panel says what its bars are too, when measured ones come first.
    kinds = [panel["simulated"] for panel in cases.values()]
    if kinds[0] is False and True in kinds:
        axes.flat[kinds.index(True)].legend(fontsize=7, loc="upper left")
    kinds = {panel["simulated"] for panel in cases.values()}
    note = ("error bars: 95 % CI of B - A (paired launches) / A's mean time" if kinds == {False} else
            "SIMULATED with SimGrid's SMPI: one deterministic run per mapping" if kinds == {True} else
            "measured: 95 % CI of B - A / A's mean; simulated: one run per mapping")
    fig.suptitle(f"{title}\n{note}", fontsize=10)
    if True in kinds and len(cases) > 1:  # room for the two lines of the title above the first row
        fig.tight_layout(rect=(0, 0, 1, 1 - 0.7 / fig.get_figheight()))
    else:
        fig.tight_layout()
    return fig


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--output", required=True)
    parser.add_argument("--title", default="mpimon bench placement")
    parser.add_argument("--columns", type=int, default=3)
    parser.add_argument("results", nargs="+")
    args = parser.parse_args()
    fig = draw(args.results, args.title, args.columns)
    for ext in ("png", "svg"):
        fig.savefig(f"{args.output}.{ext}", dpi=110, metadata={"Date": None})
        print(f"{args.output}.{ext}")


if __name__ == "__main__":
    main()
