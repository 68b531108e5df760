#!/usr/bin/env python3
"""Draws the overhead figures of RR-9038 from an mpimon-overhead or mpimon-apps results file
(docs/plots.md):

  fig1_<transport>_<arm>.png/.svg   Fig. 1: one heatmap per operation, x = message size (geometric
                                    steps, so a log scale; 0 B first), y = process count, colour =
                                    relative overhead (%), a dot on cells whose 95 % CI contains 0
  fig2_<transport>_<arm>_<op>.png/.svg
                                    Fig. 2: difference per call and per process (ns) against the
                                    message size, 95 % CI error bars, one series per process count
  fig3.png/.svg                     Fig. 3 (mpimon-apps results of the stencil workload): overhead per
                                    pair of launches against the communication share, median and
                                    quartiles per share bin (0-25, 25-50, 50-75, 75-100 %)

    plot_overhead.py RESULTS.h5 OUTDIR [--arm-title DESIGN/ARM=TITLE]...

`mpimon plot RESULTS.h5 -o DIR` runs it. Needs Debian's python3-matplotlib and python3-h5py.
"""

import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# The one reader of results files (mpimon_results.py, beside this script).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mpimon_results import read_table  # noqa: E402

# The same data give the same files (results/ keeps figures a test redraws): SVG ids from a fixed
# salt instead of a random one, and no creation date in the metadata.
matplotlib.rcParams["svg.hashsalt"] = "mpimon"

TRANSPORT_TITLES = {
    "shared": "shared memory",
    "tcp": "TCP over loopback (stand-in for distributed memory)",
}
# The title of each comparison, "DESIGN/ARM" -> title: given by mpimon plot (--arm-title) from the
# one table of arms (analysis/results/include/mpimon/results/arms.hpp); an arm without one is titled
# by its name.
ARM_TITLES = {}


def arm_label(arm, design):
    """The arm as the figures name it: the interleaved design's cells get figures of their own."""
    return arm if design == "pairs" else f"{arm}_{design}"


def transport_title(transport, config):
    """tcp is loopback on one host, a network when the launcher is an emulated cluster's (docs/cluster.md)."""
    if transport == "tcp" and "/mpimon/cluster/" in config.get("launcher", ""):
        return "TCP across emulated nodes"
    return TRANSPORT_TITLES.get(transport, transport)


def size_label(size):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if size >= scale and size % scale == 0:
            return f"{size // scale}{unit}"
    return str(size)


def provenance(config):
    return (f"{config.get('mpi_library', '?')}; {config.get('pairs', '?')} launch pairs, "
            f"{config.get('iterations', '?')} iterations; host {config.get('host', '?')} "
            f"({config.get('cpus', '?')} CPUs); summary: interquartile mean of per-iteration maxima")


def size_ticks(ax, sizes, axis="x"):
    """Sizes at equal steps (the sweep is geometric), labelled sparsely."""
    step = max(1, len(sizes) // 8)
    positions = list(range(0, len(sizes), step))
    labels = [size_label(sizes[i]) for i in positions]
    if axis == "x":
        ax.set_xticks(positions)
        ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)


def fig1(table, config, transport, arm, outdir):
    rows = (table["transport"] == transport) & (table["arm"] == arm)
    ops = sorted(set(table["op"][rows]))
    sizes = sorted(set(table["size"][rows].tolist()))
    nps = sorted(set(table["np"][rows].tolist()))
    relative = 100 * table["relative"][rows]
    finite = relative[np.isfinite(relative)]
    limit = max(1.0, float(np.percentile(np.abs(finite), 95))) if finite.size else 1.0
    columns = min(4, len(ops))
    lines = (len(ops) + columns - 1) // columns
    fig, axes = plt.subplots(lines, columns, figsize=(4.2 * columns, 2.2 + 1.0 * len(nps) * lines),
                             squeeze=False, constrained_layout=True)
    image = None
    for k, op in enumerate(ops):
        ax = axes[k // columns][k % columns]
        grid = np.full((len(nps), len(sizes)), np.nan)
        insignificant = []
        for i in np.flatnonzero(rows & (table["op"] == op)):
            y, x = nps.index(table["np"][i]), sizes.index(table["size"][i])
            grid[y, x] = 100 * table["relative"][i]
            low, high = table["difference_ci_low_ns"][i], table["difference_ci_high_ns"][i]
            if not (np.isfinite(low) and np.isfinite(high)) or low <= 0 <= high:
                insignificant.append((x, y))
        image = ax.imshow(grid, aspect="auto", origin="lower", cmap="RdBu_r", vmin=-limit, vmax=limit,
                          interpolation="nearest")
        if insignificant:
            xs, ys = zip(*insignificant)
            ax.scatter(xs, ys, s=6, c="black", marker="o", linewidths=0)
        ax.set_title(op, fontsize=10)
        size_ticks(ax, sizes)
        ax.set_yticks(range(len(nps)))
        ax.set_yticklabels([str(n) for n in nps], fontsize=8)
        ax.set_xlabel("message size (bytes, log steps; 0 first)", fontsize=8)
        ax.set_ylabel("processes", fontsize=8)
    for k in range(len(ops), lines * columns):
        axes[k // columns][k % columns].axis("off")
    bar = fig.colorbar(image, ax=axes, shrink=0.9)
    bar.set_label("overhead (%)")
    fig.suptitle(f"Overhead of {ARM_TITLES.get(arm, arm)}, {transport_title(transport, config)}; "
                 f"dot: 95 % confidence interval contains 0\n{provenance(config)}", fontsize=10)
    return save(fig, outdir, f"fig1_{transport}_{arm}")


def fig2(table, config, transport, arm, op, outdir):
    rows = (table["transport"] == transport) & (table["arm"] == arm) & (table["op"] == op)
    sizes = sorted(set(table["size"][rows].tolist()))
    fig, ax = plt.subplots(figsize=(7, 4), constrained_layout=True)
    for n in sorted(set(table["np"][rows].tolist())):
        idx = np.flatnonzero(rows & (table["np"] == n))
        idx = idx[np.argsort(table["size"][idx])]
        x = np.array([sizes.index(s) for s in table["size"][idx]], dtype=float)
        y = table["per_process_ns"][idx]
        low, high = table["per_process_ci_low_ns"][idx], table["per_process_ci_high_ns"][idx]
        err = np.vstack([np.where(np.isfinite(low), y - low, 0), np.where(np.isfinite(high), high - y, 0)])
        significant = np.isfinite(low) & ((low > 0) | (high < 0))
        bars = ax.errorbar(x, y, yerr=err, fmt="none", capsize=2, elinewidth=0.8)
        colour = bars.lines[2][0].get_color() if bars.lines[2] else None
        ax.plot(x[significant], y[significant], "o", color=colour, markersize=4, label=f"np {n}")
        ax.plot(x[~significant], y[~significant], "o", color=colour, markersize=4, markerfacecolor="none")
    ax.axhline(0, color="gray", linewidth=0.8)
    size_ticks(ax, sizes)
    ax.set_xlabel("message size (bytes, log steps; 0 first)")
    ax.set_ylabel("difference per call per process (ns)")
    ax.set_title(f"{op}: {ARM_TITLES.get(arm, arm)}, {transport_title(transport, config)}\n"
                 "95 % CI (paired t-test); filled: significant, hollow: CI contains 0", fontsize=10)
    ax.legend(fontsize=8)
    fig.suptitle(provenance(config), fontsize=6, color="dimgray")
    return save(fig, outdir, f"fig2_{transport}_{arm}_{op}")


SHARE_BINS = [(0.0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0)]


def share_bins(share, relative):
    """Per bin of communication share: (label, centre, n, q1, median, q3) of the relative overheads
    in %; the last bin includes 100 %. Quartiles as R's default (numpy's linear)."""
    out = []
    for low, high in SHARE_BINS:
        inside = (share >= low) & ((share < high) | ((high == 1.0) & (share <= 1.0)))
        values = 100 * relative[inside]
        label = f"{100 * low:.0f}-{100 * high:.0f} %"
        if values.size:
            q1, median, q3 = np.percentile(values, [25, 50, 75])
            out.append((label, (low + high) / 2, values.size, q1, median, q3))
        else:
            out.append((label, (low + high) / 2, 0, np.nan, np.nan, np.nan))
    return out


def fig3(pairs, config, outdir):
    stencil = np.array([app.startswith("stencil") for app in pairs["app"]], dtype=bool)
    rows = stencil & np.isfinite(pairs["comm_share"]) & np.isfinite(pairs["relative"])
    if not rows.any():
        sys.exit("no pairs of stencil launches with a communication share in these results: Fig. 3 needs "
                 "mpimon bench app --workload stencil --compute-sweep ...")
    share, relative = pairs["comm_share"][rows], pairs["relative"][rows]
    bins = [b for b in share_bins(share, relative) if b[2] > 0]
    x = np.array([100 * b[1] for b in bins])
    q1, median, q3 = (np.array([b[k] for b in bins]) for k in (3, 4, 5))
    # A few wild pairs (a noisy machine) would squash the quartiles: the axis spans the quartiles
    # and the 5-95 % range of the pairs; pairs beyond it are drawn on its edge as triangles.
    values = 100 * relative
    low = min(q1.min(), np.percentile(values, 5))
    high = max(q3.max(), np.percentile(values, 95))
    margin = 0.1 * max(high - low, 1.0)
    low, high = low - margin, high + margin
    fig, ax = plt.subplots(figsize=(7, 4.2), constrained_layout=True)
    outside = 0
    for n in sorted(set(pairs["np"][rows].tolist())):
        mine = pairs["np"][rows] == n
        xs, ys = 100 * share[mine], values[mine]
        dots = ax.scatter(xs, np.clip(ys, low, high), s=9, alpha=0.4, label=f"one pair, np {n}")
        for edge, marker, beyond in ((high, "^", ys > high), (low, "v", ys < low)):
            if beyond.any():
                ax.scatter(xs[beyond], np.full(beyond.sum(), edge), s=30, marker=marker,
                           color=dots.get_facecolor()[0], alpha=0.8)
        outside += int(((ys > high) | (ys < low)).sum())
    ax.set_ylim(low, high)
    ax.errorbar(x, median, yerr=[median - q1, q3 - median], fmt="o", color="black", capsize=4, markersize=6,
                label="median per bin, error bars: 1st and 3rd quartile")
    for b, xi, yi in zip(bins, x, q3):
        ax.annotate(f"{b[0]}: n={b[2]}", (xi, yi), textcoords="offset points", xytext=(0, 5), ha="center",
                    fontsize=7)
    if outside:
        ax.text(0.01, 0.02, f"{outside} pair(s) beyond the axis, drawn on its edge (triangles)",
                transform=ax.transAxes, fontsize=7, color="dimgray")
    ax.axhline(0, color="gray", linewidth=0.8)
    for low, _ in SHARE_BINS[1:]:
        ax.axvline(100 * low, color="lightgray", linewidth=0.6, zorder=0)
    ax.set_xlim(0, 100)
    ax.set_xticks([0, 25, 50, 75, 100])
    ax.set_xlabel("time spent communicating (% of the timed loop, the workload's own measure, monitoring off)")
    ax.set_ylabel("overhead of monitoring (%, on / off - 1 per pair)")
    ax.set_title("Stencil workload: monitoring overhead against the communication share (RR-9038 Fig. 3)",
                 fontsize=10)
    ax.legend(fontsize=7)
    fig.suptitle(f"{config.get('mpi_library', '?')}; {config.get('pairs', '?')} launch pairs per point of the "
                 f"compute sweep; np {config.get('np', '?')}; host {config.get('host', '?')} "
                 f"({config.get('cpus', '?')} CPUs)", fontsize=6, color="dimgray")
    return save(fig, outdir, "fig3")


def save(fig, outdir, stem):
    paths = [os.path.join(outdir, f"{stem}.{ext}") for ext in ("png", "svg")]
    for path in paths:
        fig.savefig(path, dpi=130, metadata={"Date": None})
    plt.close(fig)
    return paths


def main(argv):
    parser = argparse.ArgumentParser(prog="plot_overhead.py")
    parser.add_argument("results")
    parser.add_argument("outdir")
    parser.add_argument("--arm-title", action="append", default=[], help="DESIGN/ARM=TITLE")
    args = parser.parse_args(argv[1:])
    path, outdir = args.results, args.outdir
    for given in args.arm_title:
        key, _, title = given.partition("=")
        design, _, arm = key.partition("/")
        ARM_TITLES[arm_label(arm, design)] = title
    table, config, kind = read_table(path)
    if kind == "mpimon-apps":
        pairs, config, _ = read_table(path, "pairs")
        os.makedirs(outdir, exist_ok=True)
        for written in fig3(pairs, config, outdir):
            print(written)
        return
    if table["transport"].size == 0:
        sys.exit(f"{path}: the analysis table is empty (no pair of launches completed)")
    os.makedirs(outdir, exist_ok=True)
    written = []
    if "design" in table:
        table["arm"] = np.array([arm_label(a, d) for a, d in zip(table["arm"], table["design"])])
    for transport in sorted(set(table["transport"])):
        for arm in sorted(set(table["arm"][table["transport"] == transport])):
            written += fig1(table, config, transport, arm, outdir)
            rows = (table["transport"] == transport) & (table["arm"] == arm)
            for op in sorted(set(table["op"][rows])):
                written += fig2(table, config, transport, arm, op, outdir)
    for path in written:
        print(path)


if __name__ == "__main__":
    main(sys.argv)
