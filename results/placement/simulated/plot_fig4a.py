#!/usr/bin/env python3
"""Fig. 4a SIMULATED (fig4a.png, fig4a.svg), redrawn from the compact files alone: the binary reduce's
simulated time against the buffer size (integers, log-log), one panel per process count and link
rate, one colour per mapping (PML view, PMPI view, round-robin); solid: Open MPI's decomposition
replayed (one message per edge, `edges`), dashed: with the reduction's arithmetic (`arithmetic`),
dotted: SMPI's own ompi_binary (32 KB segments, up to 10^7 integers); the program itself in SMPI at
10^6 integers (fig4a-live, ompi_binary) as open squares; RR-9038's published times (64 ranks, 5.10^6
integers: 338 ms with the PML view's placement, 470 ms with the high-level one, measured on its
cluster, arithmetic included) as black stars.

Usage: plot_fig4a.py DIR   (this folder; reads DIR/compact/fig4a-np*-compact.h5)"""
import glob
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# The one reader of results files (analysis/scripts/mpimon_results.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../analysis/scripts"))
from mpimon_results import read_table  # noqa: E402

matplotlib.rcParams["svg.hashsalt"] = "mpimon"  # the same data give the same files
STYLE = {"pml": ("tab:blue", "PML view's mapping"), "pmpi": ("tab:red", "PMPI view's mapping"),
         "cyclic": ("tab:gray", "round-robin (cyclic)")}
PUBLISHED = {"pml": 0.338, "pmpi": 0.470}  # RR-9038, 6.2: 64 ranks, 5.10^6 integers
VARIANTS = {"edges": "-", "arithmetic": "--", "ompi_binary": ":"}


def read(folder):
    """{(np, rate): {(variant, mapping): {integers: seconds}}} of the replays, and the live runs'."""
    replay, live = {}, {}
    for path in sorted(glob.glob(os.path.join(folder, "compact", "fig4a-np*-compact.h5"))):
        m, config, _ = read_table(path, "mappings", formats=("mpimon-apps",))
        case, names, seconds = config["case"], list(m["name"]), [float(x) for x in m["seconds"]]
        parts = case.split("-")
        np_, count, rate, variant = int(parts[1][2:]), int(parts[2]), parts[3], parts[4]
        into = live if variant == "live" else replay
        for name, s in zip(names, seconds):
            into.setdefault((np_, rate), {}).setdefault((variant, name), {})[count] = s
    return replay, live


def draw(folder):
    replay, live = read(folder)
    panels = sorted(replay, key=lambda k: (k[1], k[0]))
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4.0), squeeze=False)
    for ax, key in zip(axes.flat, panels):
        np_, rate = key
        for name, (color, label) in STYLE.items():
            for variant, line in VARIANTS.items():
                points = sorted(replay[key].get((variant, name), {}).items())
                if points:
                    ax.plot([p[0] for p in points], [p[1] for p in points], line, marker="o", color=color,
                            markersize=2.5, linewidth=1.2 if variant == "edges" else 0.9,
                            label=label if variant == "edges" else None)
            for count, s in live.get(key, {}).get(("live", name), {}).items():
                ax.plot([count], [s], "s", color=color, fillstyle="none", markersize=8)
            if np_ == 64 and name in PUBLISHED:
                ax.plot([5e6], [PUBLISHED[name]], "*", color="black", markersize=9)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("buffer (integers)", fontsize=8)
        ax.set_title(f"{np_} ranks on {np_ // 8} nodes x 8, {rate}", fontsize=9)
        ax.tick_params(labelsize=8)
        ax.grid(True, which="both", linewidth=0.3)
    axes.flat[0].set_ylabel("SIMULATED seconds per reduce", fontsize=8)
    axes.flat[0].plot([], [], "--", color="black", label="with the reduction's arithmetic")
    axes.flat[0].plot([], [], ":", color="black", label="SMPI's ompi_binary (32 KB segments)")
    axes.flat[0].plot([], [], "s", color="black", fillstyle="none", label="the program itself in SMPI (10^6)")
    axes.flat[0].plot([], [], "*", color="black", label="RR-9038, measured (64 ranks, 5.10^6)")
    axes.flat[0].legend(fontsize=6, loc="upper left")
    fig.suptitle("Fig. 4a SIMULATED (SimGrid SMPI): the binary MPI_Reduce Open MPI forces (coll_tuned_reduce_algorithm 4), "
                 "replayed from its recorded decomposition; mappings from mpimon place", fontsize=9)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(os.path.join(folder, f"fig4a.{ext}"), dpi=110, metadata={"Date": None})


if __name__ == "__main__":
    draw(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__)))
