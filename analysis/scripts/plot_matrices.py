#!/usr/bin/env python3
"""Draws the heatmaps of one dump of a matrices file from the JSON view `mpimon plot FILE.h5`
writes (docs/plots.md): one figure per view (each class, the classes combined, the PML view and
the PMPI view), sender rows and receiver columns, a logarithmic colour scale, with the summed
message-size histogram beside it; and one figure with the PML view next to the PMPI view.

    plot_matrices.py VIEW.json --output DIR [--metric bytes|count]

Needs matplotlib and numpy (Debian: python3-matplotlib). The matrix arrives already reduced to at
most a few hundred rows (blocks of ranks), so this script never holds an N x N array of a large run.
"""

import argparse
import json
import os
import sys

UNITS = {"bytes": "bytes", "count": "messages"}


def bucket_label(k):
    """Bucket 0 counts empty messages; bucket k >= 1 counts [2^(k-1), 2^k) bytes."""
    if k == 0:
        return "0"
    low = 2 ** (k - 1)
    for unit, size in (("G", 2 ** 30), ("M", 2 ** 20), ("K", 2 ** 10)):
        if low >= size:
            return f"{low // size}{unit}"
    return str(low)


def dense(view_cells, side, np):
    matrix = np.zeros((side, side))
    for row, column, value in view_cells:
        matrix[row, column] = value
    return np.ma.masked_equal(matrix, 0)  # no traffic stays white


def rank_ticks(side, block):
    """At most ~9 ticks, on round rank numbers, labelled in ranks (not blocks)."""
    step = 1
    while side / step > 8:
        step *= 2
    positions = list(range(0, side, step))
    return positions, [str(p * block) for p in positions]


def draw_heatmap(axis, figure, data, view, metric, np, colors):
    side, block = data["side"], data["block"]
    matrix = dense(view[metric], side, np)
    if matrix.count() == 0:
        axis.text(0.5, 0.5, "no traffic", ha="center", va="center", transform=axis.transAxes)
        image = None
    else:
        image = axis.imshow(matrix, cmap="viridis", origin="upper", interpolation="nearest",
                            norm=colors.LogNorm(vmin=max(1, matrix.min()), vmax=max(matrix.max(), 2)))
        bar = figure.colorbar(image, ax=axis, shrink=0.85)
        bar.set_label(UNITS[metric] + (f" per {block} x {block} block" if block > 1 else "") + " (log scale)")
    positions, labels = rank_ticks(side, block)
    axis.set_xticks(positions, labels)
    axis.set_yticks(positions, labels)
    axis.set_xlim(-0.5, side - 0.5)
    axis.set_ylim(side - 0.5, -0.5)
    axis.set_xlabel("receiver rank" + (f" (blocks of {block} ranks)" if block > 1 else ""))
    axis.set_ylabel("sender rank" + (f" (blocks of {block} ranks)" if block > 1 else ""))
    axis.set_title(view["title"], fontsize=10)
    if side <= 16 and image is not None:
        top = matrix.max()
        for row, column, value in view[metric]:
            colour = "black" if value > 0.3 * top else "white"
            axis.text(column, row, f"{value:,}", ha="center", va="center", fontsize=6, color=colour)


def draw_histogram(axis, histogram):
    used = [k for k, count in enumerate(histogram) if count]
    if not used:
        axis.text(0.5, 0.5, "no histogram", ha="center", va="center", transform=axis.transAxes)
        axis.set_axis_off()
        return
    low, high = max(0, min(used) - 1), min(len(histogram) - 1, max(used) + 1)
    buckets = list(range(low, high + 1))
    axis.barh(buckets, [histogram[k] for k in buckets], color="#4c72b0")
    axis.set_yticks(buckets, [bucket_label(k) for k in buckets], fontsize=7)
    axis.invert_yaxis()
    axis.set_xscale("log")
    axis.set_xlabel("messages (log)")
    axis.set_ylabel("message size, bytes (bucket start)")
    axis.set_title("message sizes\n(all pairs, external + internal)", fontsize=9)


def provenance(data):
    text = (f"{os.path.basename(data['file'])}, dump '{data['dump']}', {data['nprocs']} ranks "
            f"({data['ranks_present']} present), {data['generator']}")
    if data["block"] > 1:
        text += f"; drawn as blocks of {data['block']} x {data['block']} ranks"
    return text


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("view")
    parser.add_argument("--output", required=True)
    parser.add_argument("--metric", choices=("bytes", "count"), default="bytes")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.colors as colors
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError as missing:
        sys.exit(f"plot_matrices.py: {missing}; install python3-matplotlib")
    with open(args.view, encoding="utf-8") as source:
        data = json.load(source)
    os.makedirs(args.output, exist_ok=True)
    stem = f"{data['dump']}_{args.metric}"

    def save(figure, name):
        figure.text(0.01, 0.005, provenance(data), fontsize=6, color="#555555")
        for extension in ("png", "svg"):
            path = os.path.join(args.output, f"{name}.{extension}")
            figure.savefig(path, dpi=130)
            print(path)
        plt.close(figure)

    for view in data["views"]:
        figure, (heat, hist) = plt.subplots(1, 2, figsize=(10, 5.2), width_ratios=[3, 1.3],
                                            constrained_layout=True)
        draw_heatmap(heat, figure, data, view, args.metric, np, colors)
        draw_histogram(hist, data["histogram"])
        save(figure, f"{stem}_{view['name']}")
    pml = next(v for v in data["views"] if v["name"] == "pml")
    pmpi = next(v for v in data["views"] if v["name"] == "pmpi")
    figure, axes = plt.subplots(1, 2, figsize=(11, 5), constrained_layout=True)
    draw_heatmap(axes[0], figure, data, pml, args.metric, np, colors)
    draw_heatmap(axes[1], figure, data, pmpi, args.metric, np, colors)
    figure.suptitle("What the PML records (external + internal) next to what a PMPI tool sees (external + coll)",
                    fontsize=10)
    save(figure, f"{stem}_pml_vs_pmpi")


if __name__ == "__main__":
    main()
