#!/usr/bin/env python3
"""Draws communication matrices side by side as heatmaps (sender rows, receiver columns), the
view of Fig. 4b of the monitoring paper. `mpimon plot collective` calls it; it only reads the
table mpimon writes, so it can also be run by hand:

    plot_heatmaps.py --input TABLE.tsv --output PREFIX [--title TEXT]

TABLE.tsv: lines `panel<TAB>NAME<TAB>UNIT<TAB>TITLE` declare the panels in order; lines
`cell<TAB>NAME<TAB>SRC<TAB>DST<TAB>VALUE` give non-zero cells; `size<TAB>N` gives the number of
processes. Writes PREFIX.png and PREFIX.svg. Needs matplotlib (Debian: python3-matplotlib).
"""

import argparse
import sys


def read_table(path):
    size, panels, cells = None, [], {}
    with open(path, encoding="utf-8") as table:
        for number, line in enumerate(table, 1):
            fields = line.rstrip("\n").split("\t")
            if fields[0] == "size":
                size = int(fields[1])
            elif fields[0] == "panel":
                panels.append({"name": fields[1], "unit": fields[2], "title": fields[3]})
                cells[fields[1]] = []
            elif fields[0] == "cell":
                cells[fields[1]].append((int(fields[2]), int(fields[3]), int(fields[4])))
            elif fields[0]:
                sys.exit(f"{path}:{number}: unknown line '{fields[0]}'")
    if size is None or not panels:
        sys.exit(f"{path}: no 'size' line or no panel")
    return size, panels, cells


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True)
    parser.add_argument("--output", required=True, help="prefix of the .png and .svg files")
    parser.add_argument("--title", default="")
    args = parser.parse_args()

    try:
        import matplotlib
        matplotlib.use("Agg")  # files only, no display needed
        import matplotlib.pyplot as plt
        import numpy as np
    except ImportError as missing:
        sys.exit(f"plot_heatmaps.py: {missing}; install python3-matplotlib")

    size, panels, cells = read_table(args.input)
    # One colour scale from 0 for all panels, so equal colours mean equal traffic across views.
    top = max([value for panel in cells.values() for _, _, value in panel] + [1])
    figure, axes = plt.subplots(1, len(panels), figsize=(5.2 * len(panels), 4.6), squeeze=False,
                                constrained_layout=True)
    for axis, panel in zip(axes[0], panels):
        matrix = np.zeros((size, size))
        for src, dst, value in cells[panel["name"]]:
            matrix[src, dst] = value
        # Cells without traffic stay white, so the shape of the pattern shows at a glance.
        shown = np.ma.masked_equal(matrix, 0)
        image = axis.imshow(shown, cmap="viridis", origin="upper", interpolation="nearest", vmin=0, vmax=top)
        axis.set_title(panel["title"], fontsize=10)
        axis.set_xlabel("receiver rank")
        axis.set_ylabel("sender rank")
        ticks = range(size) if size <= 16 else range(0, size, max(1, size // 8))
        axis.set_xticks(list(ticks))
        axis.set_yticks(list(ticks))
        axis.set_xticks(np.arange(-0.5, size, 1), minor=True)
        axis.set_yticks(np.arange(-0.5, size, 1), minor=True)
        axis.grid(which="minor", color="#dddddd", linewidth=0.5)
        axis.tick_params(which="minor", length=0)
        colorbar = figure.colorbar(image, ax=axis, shrink=0.85)
        colorbar.set_label(panel["unit"])
        if size <= 12:
            for src, dst, value in cells[panel["name"]]:
                colour = "black" if value > 0.6 * top else "white"  # readable on light and dark cells
                axis.text(dst, src, f"{value:,}", ha="center", va="center", fontsize=6, color=colour)
    if args.title:
        figure.suptitle(args.title, fontsize=11)
    for extension in ("png", "svg"):
        figure.savefig(f"{args.output}.{extension}", dpi=150)
        print(f"{args.output}.{extension}")


if __name__ == "__main__":
    main()
