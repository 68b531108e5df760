#!/usr/bin/env python3
"""The values each figure of plot_overhead.py plots, read back from the figure objects it draws,
against values recomputed here, with h5py and numpy, from the results file's per-launch records.

The committed figures are compared byte for byte elsewhere (redraw_results_test.sh), but they were
drawn by the code under test: that comparison pins drift, not truth; so would a comparison with the
file's /analysis table, which mpimon computed. This check is the truth side, from the launches
(/launches/*: each launch's arm, pair, np, and per benchmark its interquartile mean, `iqm` of
`summary`) by the paired design of docs/statistics.md: for each transport, arm, operation, np and
size, d = arm - off per pair; the relative overhead is mean(d) / mean(off), the overhead per call
per process mean(d) / np. Every cell of Fig. 1's heat maps is 100 x that relative overhead of its
(np, size); every marker of Fig. 2 is that per-process overhead of its size; every dot of Fig. 3 is
(100 x comm_share, 100 x (on_s / off_s - 1)) of a stencil pair, and each bin's median and quartiles
are those of the pairs whose share falls in it (recomputed here from on_s and off_s, not from
/pairs/relative).

Usage: check_figure_data.py PLOT_OVERHEAD.py OVERHEAD_RESULTS.h5 APPS_RESULTS.h5
Prints one line per figure checked; exits 1 on the first difference."""

import importlib.util
import sys
import tempfile

import h5py
import numpy as np


def load(script):
    spec = importlib.util.spec_from_file_location("plot_overhead", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def text(values):
    return np.array([v.decode() if isinstance(v, bytes) else str(v) for v in values])


def columns(path, group):
    with h5py.File(path, "r") as f:
        return {k: (text(v[()]) if v.dtype.kind in "OS" else v[()]) for k, v in f[group].items()}


def from_launches(path):
    """The cells of Fig. 1 and Fig. 2 recomputed from the launches: columns transport, arm, op, np,
    size, relative, per_process_ns, as numpy arrays (the pairs design; every arm against off)."""
    iqm = {}  # (transport, arm, op, np, size) -> {pair: interquartile mean}
    with h5py.File(path, "r") as f:
        for launch in f["launches"].values():
            a = launch.attrs
            if text([a["status"]])[0] != "ok":
                continue
            if "blocks" in a:
                fail(f"{path}: an interleaved launch, which this check does not recompute")
            names = list(text(launch["summary"].attrs["columns"]))
            summary = launch["summary"][()].reshape(-1, len(names))
            for op, size, row in zip(text(launch["ops"][()]), launch["sizes"][()], summary):
                key = (text([a["transport"]])[0], text([a["arm"]])[0], op, int(a["np"]), int(size))
                iqm.setdefault(key, {})[int(a["pair"])] = row[names.index("iqm")]
    rows = []
    for (transport, arm, op, np_, size), arm_iqm in sorted(iqm.items()):
        off = iqm.get((transport, "off", op, np_, size), {})
        pairs = sorted(set(arm_iqm) & set(off))
        if arm == "off" or not pairs:
            continue
        d = np.array([arm_iqm[p] - off[p] for p in pairs])
        baseline = np.mean([off[p] for p in pairs])
        rows.append((transport, arm, op, np_, size, d.mean() / baseline, d.mean() / np_))
    if not rows:
        fail(f"{path}: no arm paired with off in its launches")
    names = ("transport", "arm", "op", "np", "size", "relative", "per_process_ns")
    return {n: np.array([r[i] for r in rows]) for i, n in enumerate(names)}


def fail(what):
    print(f"FAIL: {what}")
    sys.exit(1)


def same(a, b, what):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape or not np.allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True):
        fail(f"{what}: plotted {a.tolist()[:8]}..., the file says {b.tolist()[:8]}...")


def check_fig1(fig, table, transport, arm):
    rows = (table["transport"] == transport) & (table["arm"] == arm)
    sizes = sorted(set(table["size"][rows].tolist()))
    nps = sorted(set(table["np"][rows].tolist()))
    titled = [ax for ax in fig.axes if ax.get_images()]
    for ax in titled:
        op = ax.get_title()
        expected = np.full((len(nps), len(sizes)), np.nan)
        for i in np.flatnonzero(rows & (table["op"] == op)):
            expected[nps.index(table["np"][i]), sizes.index(table["size"][i])] = 100 * table["relative"][i]
        same(ax.get_images()[0].get_array().filled(np.nan), expected, f"fig1 {transport} {arm} {op}")
    if len(titled) != len(set(table["op"][rows])):
        fail(f"fig1 {transport} {arm}: {len(titled)} heat maps for {len(set(table['op'][rows]))} operations")


def check_fig2(fig, table, transport, arm, op):
    rows = (table["transport"] == transport) & (table["arm"] == arm) & (table["op"] == op)
    sizes = sorted(set(table["size"][rows].tolist()))
    plotted = {}
    for line in fig.axes[0].get_lines():
        if line.get_marker() == "o":
            for x, y in line.get_xydata():
                plotted.setdefault(int(x), []).append(y)
    for s in sizes:
        expected = sorted(table["per_process_ns"][rows & (table["size"] == s)].tolist())
        same(sorted(plotted.get(sizes.index(s), [])), expected, f"fig2 {transport} {arm} {op} size {s}")


def check_fig3(fig, pairs):
    stencil = np.array([a.startswith("stencil") for a in pairs["app"]])
    relative = pairs["on_s"] / pairs["off_s"] - 1
    rows = stencil & np.isfinite(pairs["comm_share"]) & np.isfinite(relative)
    share, values = pairs["comm_share"][rows], 100 * relative[rows]
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    dots = np.vstack([c.get_offsets() for c in ax.collections if c.get_offsets().shape[0] and
                      c.get_alpha() == 0.4])
    same(sorted(map(tuple, dots)), sorted(zip(100 * share, np.clip(values, low, high))), "fig3 dots")
    medians = []
    for b_low, b_high in ((0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0)):
        inside = (share >= b_low) & ((share < b_high) | ((b_high == 1.0) & (share <= 1.0)))
        if inside.any():
            medians.append((100 * (b_low + b_high) / 2, np.median(values[inside])))
    marked = [line for line in ax.get_lines() if line.get_marker() == "o" and line.get_color() == "black"]
    if len(marked) != 1:
        fail(f"fig3: {len(marked)} series of medians")
    same(marked[0].get_xydata(), medians, "fig3 medians per bin")


def main(script, overhead, apps):
    plot = load(script)
    captured = []
    plot.save = lambda fig, outdir, stem: captured.append((stem, fig)) or []
    with tempfile.TemporaryDirectory() as out:
        plot.main(["plot_overhead.py", overhead, out])
        plot.main(["plot_overhead.py", apps, out])
    table, pairs = from_launches(overhead), columns(apps, "pairs")
    checked = 0
    for stem, fig in captured:
        parts = stem.split("_")
        if parts[0] == "fig1":
            check_fig1(fig, table, parts[1], "_".join(parts[2:]))
        elif parts[0] == "fig2":
            arm, op = "_".join(parts[2:-1]), parts[-1]
            if op == "lock":  # put_lock, get_lock: the operation holds an underscore too
                arm, op = "_".join(parts[2:-2]), "_".join(parts[-2:])
            check_fig2(fig, table, parts[1], arm, op)
        elif stem == "fig3":
            check_fig3(fig, pairs)
        else:
            fail(f"{stem}: a figure this check does not know")
        checked += 1
        print(f"{stem}: the plotted values are the file's" + (" (recomputed from its launches)" if parts[0] != "fig3" else ""))
    if checked == 0:
        fail("no figure drawn")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
