#!/usr/bin/env python3
"""The figure `mpimon plot` draws of a results file of `mpimon simulate` (plot_placement_measured.py,
one panel) against the file read here with h5py alone, never through mpimon's /mappings table:

- the panel names the file's case (configuration `case`, else `apps`) and its first mapping, and its
  ticks are the mappings' names (configuration arm_X_name, in the order of `arms`);
- each SIMULATED bar is the mapping's time over the first's: the launches' own `seconds` attribute
  (/launches/*, arm X, status ok);
- each MODELLED bar is modelled_X over modelled_A of the configuration; with no modelled cost
  (a copy of the file stripped of them) there is no such bar and the title says so;
- the title's Spearman correlation is recomputed from those values (ranks by counting).

Usage: check_simulated_figure.py PLOT_SCRIPT RESULTS.h5...
Prints one line per file checked and a summary; exits 1 on the first difference."""

import importlib.util
import re
import sys

import h5py
import numpy as np
from matplotlib.container import BarContainer


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def close(a, b, what):
    if not np.isclose(float(a), float(b), rtol=1e-9, atol=1e-15):
        fail(f"{what}: {a} against {b}")


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def from_file(path):
    with h5py.File(path, "r") as f:
        config = {k: text(v) for k, v in f["configuration"].attrs.items()}
        seconds = {}
        for launch in f["launches"].values():
            if text(launch.attrs["status"]) != "ok":
                fail(f"{path}: a launch that is not ok")
            seconds[text(launch.attrs["arm"])] = float(text(launch.attrs["seconds"]))
    if config.get("kind") != "simulated":
        fail(f"{path}: not a simulation's results")
    arms = config["arms"].split(",")
    names = [config[f"arm_{a}_name"] for a in arms]
    simulated = [seconds[a] / seconds[arms[0]] for a in arms]
    modelled = None
    if all(f"modelled_{a}" in config for a in arms):
        modelled = [float(config[f"modelled_{a}"]) / float(config[f"modelled_{arms[0]}"]) for a in arms]
    return config.get("case", config.get("apps")), names, simulated, modelled


def spearman(x, y):
    def rank(v):
        v = np.asarray(v, dtype=float)
        return np.array([(v < e).sum() + ((v == e).sum() + 1) / 2 for e in v])

    rx, ry = rank(x), rank(y)
    if rx.std() == 0 or ry.std() == 0:
        return float("nan")
    return np.corrcoef(rx, ry)[0, 1]


def check(module, path):
    case, names, simulated, modelled = from_file(path)
    fig = module.draw([path], "check", 1)
    panels = [ax for ax in fig.axes if ax.get_visible()]
    if len(panels) != 1:
        fail(f"{path}: {len(panels)} panels drawn for one simulation")
    ax = panels[0]
    title = ax.get_title()
    if not title.startswith(f"{case} (A = {names[0]})"):
        fail(f"{path}: panel '{title}', case {case} with A = {names[0]} expected")
    labels = [t.get_text() for t in ax.get_xticklabels()]
    if labels != names:
        fail(f"{path}: mappings {labels}, the file has {names}")
    bars = [c for c in ax.containers if isinstance(c, BarContainer)]
    if len(bars) != (1 if modelled is None else 2):
        fail(f"{path}: {len(bars)} kinds of bars drawn")
    for name, bar, want in zip(names, bars[0].patches, simulated):
        close(bar.get_height(), want, f"{path} {name}: simulated bar")
    shown = re.search(r"Spearman model vs simulated clock: (\S+)", title)
    if modelled is None:
        if not shown or shown.group(1) != "n/a":
            fail(f"{path}: without modelled costs, the title '{title}' should say n/a")
        plt.close(fig)
        return
    for name, bar, want in zip(names, bars[1].patches, modelled):
        close(bar.get_height(), want, f"{path} {name}: modelled bar")
    rho = spearman(modelled, simulated)
    if not shown or (shown.group(1) == "n/a") != bool(np.isnan(rho)):
        fail(f"{path}: Spearman in the title '{title}', recomputed {rho}")
    if shown.group(1) != "n/a":
        close(float(shown.group(1)), round(rho, 2), f"{path}: Spearman in the title")
    plt.close(fig)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    spec = importlib.util.spec_from_file_location("plot_placement_measured", sys.argv[1])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    import matplotlib.pyplot as plt  # noqa: E402 (after the script chose its backend)

    for path in sys.argv[2:]:
        check(module, path)
    print(f"the simulated figures plot the files' values ({len(sys.argv) - 2} results files of mpimon simulate)")
