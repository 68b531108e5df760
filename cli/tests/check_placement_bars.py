#!/usr/bin/env python3
"""The bars plot_placement.py draws for `mpimon place --json` reports, read back from the figure,
against the reports read here: one legend entry per method that has a cost in any report, in the
order the reports list them (so a method added to the placement table is drawn without touching the
script), and each bar that method's cost (random: its mean) over packed's cost in the same report.

The reports are a committed one with rows added here (multisection, given, an unavailable method),
the names of the rows being this test's, not the script's.

Usage: check_placement_bars.py PLOT_PLACEMENT.py REPORT.json
Prints one line; exits 1 on the first difference."""

import copy
import importlib.util
import json
import os
import sys
import tempfile

import numpy as np
from matplotlib.container import BarContainer


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def main(script, committed):
    with open(committed) as f:
        base = json.load(f)
    packed = next(m for m in base["methods"] if m["method"] == "packed")["cost"]
    extended = copy.deepcopy(base)
    # Methods the committed report may lack (a copied list of names once left them out), and one
    # that did not run: each drawn, or not, from the data alone.
    present = {m["method"] for m in base["methods"]}
    extended["methods"] += [row for row in ({"method": "multisection", "cost": packed // 2, "computed_cost": packed // 2},
                                            {"method": "given", "cost": packed * 2, "computed_cost": packed * 2},
                                            {"method": "kahip", "unavailable": "not built here", "seconds": 0})
                            if row["method"] not in present]
    spec = importlib.util.spec_from_file_location("plot_placement", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, report in (("committed", base), ("extended", extended)):
            paths.append(os.path.join(tmp, f"{name}.json"))
            with open(paths[-1], "w") as f:
                json.dump(report, f)
        figures = []
        module.plt.show = lambda *a, **k: None
        saved = module.plt.Figure.savefig
        module.plt.Figure.savefig = lambda fig, *a, **k: figures.append(fig) if fig not in figures else None
        sys.argv = ["plot_placement.py", "--output", os.path.join(tmp, "bars"), *paths]
        try:
            module.main()
        finally:
            module.plt.Figure.savefig = saved
    if len(figures) != 1:
        fail(f"{len(figures)} figures drawn, expected 1")
    ax = figures[0].axes[0]
    containers = [c for c in ax.containers if isinstance(c, BarContainer)]
    drawn = [c.get_label() for c in containers]
    expected = [m["method"] for m in extended["methods"] if "cost" in m]
    if drawn != expected:
        fail(f"methods drawn {drawn}, expected {expected}")
    for container in containers:
        method = container.get_label()
        heights = [bar.get_height() for bar in container]
        want = []
        for report in (base, extended):
            row = next((m for m in report["methods"] if m["method"] == method and "cost" in m), None)
            if row is not None:
                want.append(float(row.get("cost_mean", row["cost"])) / packed)
        if not np.allclose(heights, want, rtol=1e-12):
            fail(f"{method}: bars {heights}, expected {want}")
    print(f"the placement bars are the reports' ({len(drawn)} methods, multisection and given included)")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
