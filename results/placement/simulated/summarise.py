#!/usr/bin/env python3
"""The tables of summary.md, from the compact files (compact/*.h5, /mappings and configuration read
with analysis/scripts/mpimon_results.py, the one reader of results files) and ../measured's CSVs:

- trust.csv: every measured comparison (A against B, 5 launch pairs on the emulated cluster) beside
  the same two mappings simulated: B/A measured (with the 95 % CI of B - A over A's mean), B/A
  simulated, B/A modelled, and whether the simulated ratio lies in the measured CI;
- fig4a.csv, fig5.csv: every simulated mapping at scale (time, ratio to the first, modelled cost,
  how long the simulation took here).
Prints the Markdown tables and the rank correlations (Spearman) of the simulated and measured
ratios, overall and per figure.

Usage: summarise.py DIR (this folder)"""
import csv
import glob
import importlib.util
import math
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../../analysis/scripts"))
from mpimon_results import read_table  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "plot_placement_measured", os.path.join(here, "../../../analysis/scripts/plot_placement_measured.py"))
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)


def simulated(path):
    """configuration, and {mapping name: row} of a compact simulated results file."""
    m, config, _ = read_table(path, "mappings", formats=("mpimon-apps",))
    rows = {}
    for i in range(len(m["arm"])):
        row = {k: (str(m[k][i]) if m[k].dtype.kind == "U" else float(m[k][i])) for k in m}
        rows[row["name"]] = row
    return config, rows


def trust(folder, out):
    measured = []
    for figure in ("fig4a", "fig5"):
        with open(os.path.join(folder, "..", "measured", f"{figure}-measured.csv")) as f:
            measured += [dict(r, figure=figure) for r in csv.DictReader(f) if r["mean_a_s"]]
    rows = []
    for r in measured:
        path = os.path.join(folder, "compact", f"trust-{r['figure']}-{r['case']}-compact.h5")
        if not os.path.exists(path):
            continue
        _, sim = simulated(path)
        a, b = sim[r["arm_a"]], sim[r["arm_b"]]
        mean_a = float(r["mean_a_s"])
        low, high = 1 + float(r["ci95_low_s"]) / mean_a, 1 + float(r["ci95_high_s"]) / mean_a
        ratio = b["seconds"] / a["seconds"]
        why = {}
        for variant in ("unsegmented", "cpu"):
            other = os.path.join(folder, "compact", f"why-{variant}-{r['case']}-compact.h5")
            if os.path.exists(other):
                _, w = simulated(other)
                why[f"{variant}_ratio"] = w[r["arm_b"]]["seconds"] / w[r["arm_a"]]["seconds"]
                why[f"{variant}_a_s"] = w[r["arm_a"]]["seconds"]
        rows.append({"figure": r["figure"], "case": r["case"], "arm_a": r["arm_a"], "arm_b": r["arm_b"],
                     "measured_a_s": mean_a, "measured_b_s": float(r["mean_b_s"]),
                     "measured_ratio": float(r["mean_b_s"]) / mean_a, "measured_ci_low": low, "measured_ci_high": high,
                     "simulated_a_s": a["seconds"], "simulated_b_s": b["seconds"], "simulated_ratio": ratio,
                     "modelled_ratio": b["modelled_cost"] / a["modelled_cost"],
                     "simulated_in_ci": int(low <= ratio <= high),
                     "traffic_check": "equal" if a["traffic_check"].startswith("equal") and b["traffic_check"].startswith("equal") else
                     f"{a['traffic_check']} / {b['traffic_check']}",
                     "wall_a_s": a["wall_s"], "wall_b_s": b["wall_s"],
                     "unsegmented_ratio": why.get("unsegmented_ratio", ""), "cpu_ratio": why.get("cpu_ratio", ""),
                     "unsegmented_a_s": why.get("unsegmented_a_s", ""), "cpu_a_s": why.get("cpu_a_s", "")})
    with open(out, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    print("| case | A | B | measured B/A [95 % CI] | simulated B/A | modelled B/A | in CI | A measured / simulated s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | {r['measured_ratio']:.2f} [{r['measured_ci_low']:.2f}, "
              f"{r['measured_ci_high']:.2f}] | {r['simulated_ratio']:.2f} | {r['modelled_ratio']:.2f} | "
              f"{'yes' if r['simulated_in_ci'] else 'no'} | {r['measured_a_s']:.3f} / {r['simulated_a_s']:.3f} |")
    print()
    print("Fig. 4a, why (README): B/A simulated with SMPI's ompi_binary (32 KB segments), with Open MPI's "
          "decomposition (one message per edge), and with it the arithmetic on the emulated cluster's CPU share")
    print()
    print("| case | A | B | measured B/A | SMPI ompi_binary | one message per edge | + arithmetic, 0.5 core a node | "
          "A s: measured / three simulations |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["unsegmented_ratio"] == "":
            continue
        print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | {r['measured_ratio']:.2f} | {r['simulated_ratio']:.2f} | "
              f"{r['unsegmented_ratio']:.2f} | {r['cpu_ratio']:.2f} | {r['measured_a_s']:.3f} / {r['simulated_a_s']:.3f}, "
              f"{r['unsegmented_a_s']:.3f}, {r['cpu_a_s']:.3f} |")
    print()
    for variant in ("simulated", "unsegmented", "cpu"):
        group = [g for g in rows if g["figure"] == "fig4a" and g["unsegmented_ratio"] != ""]
        if group:
            rho = plot.spearman([g["measured_ratio"] for g in group], [g[f"{variant}_ratio"] for g in group])
            print(f"- fig4a, {variant}: Spearman (measured B/A, simulated B/A) over {len(group)} comparisons: {rho:+.2f}")
    print()
    print("Fig. 5 at 1 Gbit/s, why (README): B/A simulated on cores of their own, and on the emulated cluster's CPU "
          "share (one core of 0.5 Gflop/s a node for its 4 ranks)")
    print()
    print("| case | A | B | measured B/A [95 % CI] | simulated | on the CPU share | A s: measured / simulated / on the share |")
    print("|---|---|---|---|---|---|---|")
    share = [r for r in rows if r["figure"] == "fig5" and r["cpu_ratio"] != ""]
    for r in share:
        print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | {r['measured_ratio']:.2f} [{r['measured_ci_low']:.2f}, "
              f"{r['measured_ci_high']:.2f}] | {r['simulated_ratio']:.2f} | {r['cpu_ratio']:.2f} | "
              f"{r['measured_a_s']:.3f} / {r['simulated_a_s']:.3f} / {r['cpu_a_s']:.3f} |")
    print()
    for variant in ("simulated", "cpu"):
        if share:
            rho = plot.spearman([g["measured_ratio"] for g in share], [g[f"{variant}_ratio"] for g in share])
            inside = sum(g["measured_ci_low"] <= g[f"{variant}_ratio"] <= g["measured_ci_high"] for g in share)
            print(f"- fig5 at 1 Gbit/s, {variant}: Spearman (measured B/A, simulated B/A) over {len(share)} "
                  f"comparisons: {rho:+.2f}; inside the measured 95 % CI: {inside} of {len(share)}")
    print()
    groups = {"all": rows}
    for r in rows:
        groups.setdefault(r["figure"], []).append(r)
        if r["figure"] == "fig5":
            groups.setdefault("fig5 at 100 Mbit/s" if r["case"].endswith("-100mbit") else "fig5 at 1 Gbit/s", []).append(r)
        groups.setdefault(r["case"], []).append(r)
    for name, group in groups.items():
        rho = plot.spearman([g["measured_ratio"] for g in group], [g["simulated_ratio"] for g in group])
        inside = sum(g["simulated_in_ci"] for g in group)
        print(f"- {name}: Spearman (measured B/A, simulated B/A) over {len(group)} comparisons: {rho:+.2f}; "
              f"simulated inside the measured 95 % CI: {inside} of {len(group)}")
    return rows


def at_scale(folder, pattern, out, key_fields):
    rows = []
    for path in sorted(glob.glob(os.path.join(folder, "compact", pattern))):
        config, sim = simulated(path)
        for name, r in sim.items():
            rows.append({**key_fields(config), "mapping": name, "simulated_s": r["seconds"], "ratio": r["ratio"],
                         "modelled_cost": r["modelled_cost"], "simulated_clock_s": r["simulated_clock_s"],
                         "wall_s": r["wall_s"], "status": r["status"], "traffic_check": r["traffic_check"]})
    if rows:
        with open(out, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0]))
            w.writeheader()
            for r in rows:
                w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    return rows


def main(folder):
    print("# SIMULATED (SimGrid SMPI) against MEASURED (../measured): the tables\n")
    print("Written by summarise.py from compact/ and ../measured's CSVs; README.md says what they mean. "
          "B/A: mapping B's time over A's.\n")
    trust(folder, os.path.join(folder, "trust.csv"))

    def fig4a_key(config):
        np_, count, rate, variant = config["case"].split("-")[1:5]
        return {"np": np_[2:], "integers": count, "rate": rate, "variant": variant}

    at_scale(folder, "fig4a-np*-compact.h5", os.path.join(folder, "fig4a.csv"), fig4a_key)

    def fig5_key(config):
        case = config["case"]
        return {"case": case.rsplit("-np", 1)[0][len("fig5-"):], "np": case.rsplit("-np", 1)[1]}

    rows = at_scale(folder, "fig5-*-compact.h5", os.path.join(folder, "fig5.csv"), fig5_key)
    if rows:
        mappings = list(dict.fromkeys(r["mapping"] for r in rows))
        print("\nFig. 5 SIMULATED at scale (fat tree, 10 Gbit/s): each mapping's time relative to the first's, "
              "its modelled cost's ratio in brackets\n")
        print("| case | ranks | " + " | ".join(mappings) + " |")
        print("|---|---|" + "---|" * len(mappings))
        for case, np_ in dict.fromkeys((r["case"], r["np"]) for r in rows):
            group = {r["mapping"]: r for r in rows if (r["case"], r["np"]) == (case, np_)}
            first = group[mappings[0]]["modelled_cost"]
            cells = [f"{group[m]['ratio']:.2f} ({group[m]['modelled_cost'] / first:.2f})" if m in group else ""
                     for m in mappings]
            print(f"| {case} | {np_} | " + " | ".join(cells) + " |")
    # README.md's generated figures, from the CSVs just written.
    sys.path.insert(0, os.path.join(here, "../.."))
    import readme_figures as generated
    for problem in generated.write(folder, readme_figures(folder)):
        print("summarise.py: README.md: " + problem, file=sys.stderr)


def csv_rows(folder, name):
    with open(os.path.join(folder, name)) as f:
        return list(csv.DictReader(f))


def wall(seconds):
    """A wall time as the README gives it: one decimal under 10 s, whole seconds above."""
    return f"{seconds:.1f} s" if seconds < 10 else f"{seconds:.0f} s"


def span(values, fmt):
    low, high = fmt(min(values)), fmt(max(values))
    return low if low == high else f"{low} to {high}"


def growth_figures(folder):
    """growth.csv's table (and Fig. 5's packed run at 4096 ranks, fig5.csv), how a doubling of the
    ranks grows the wall time, and what that predicts for the 27-point stencil at 4096 ranks."""
    rows = csv_rows(folder, "growth.csv")
    wall_of = {(r["case"], int(r["np"]), int(r["crosstraffic"])): float(r["wall_s"]) for r in rows if r["status"] == "ok"}
    simulated_of = {k[:3]: float(r["simulated_s"]) for r in rows for k in [(r["case"], int(r["np"]), int(r["crosstraffic"]))]}
    columns = [("stencil7-scrambled", 1), ("stencil7-scrambled", 0), ("stencil27-scrambled", 1), ("stencil27-scrambled", 0)]
    nps = sorted({int(r["np"]) for r in rows})
    lines, factors = [], []
    for i, np_ in enumerate(nps):
        cells = []
        for case, cross in columns:
            w = wall_of.get((case, np_, cross))
            before = wall_of.get((case, nps[i - 1], cross)) if i else None
            if w is not None and before:
                factors.append(w / before)
            cells.append("" if w is None else wall(w) + (f" ({w / before:.1f}x)" if before else ""))
        lines.append(f"| {np_} | " + " | ".join(cells) + " |")
    # Fig. 5's packed run of the 7-point stencil at 4096 ranks, cross-traffic off, one iteration.
    fig5 = [r for r in csv_rows(folder, "fig5.csv") if (r["case"], r["np"], r["mapping"]) == ("stencil7-scrambled", "4096", "packed")]
    if fig5:
        w, before = float(fig5[0]["wall_s"]), wall_of[("stencil7-scrambled", nps[-1], 0)]
        lines.append(f"| {2 * nps[-1]} | | {wall(w)} ({w / before:.1f}x; Fig. 5's packed run) | not run | not run |")
    header = ["| ranks | 7-point | 7-point, cross-traffic off | 27-point | 27-point, cross-traffic off |",
              "|---|---|---|---|---|"]
    low, high = min(factors), max(factors)
    change = [100 * (simulated_of[(case, n, 0)] / simulated_of[(case, n, 1)] - 1)
              for case, n, cross in simulated_of if cross == 1 and (case, n, 0) in simulated_of]
    ratio27 = [wall_of[("stencil27-scrambled", n, c)] / wall_of[("stencil7-scrambled", n, c)]
               for n in nps for c in (0, 1) if ("stencil27-scrambled", n, c) in wall_of]
    last = nps[-1]
    one_off = [wall_of[("stencil27-scrambled", last, 0)] * f / 60 for f in (low, high)]
    one_default = [wall_of[("stencil27-scrambled", last, 1)] * f / 3600 for f in (low, high)]
    # The six mappings: about 5 times packed's time, plus packed once more for the traffic.
    six = [6 * m / 60 for m in one_off]
    return {
        "growth-table": "\n".join(header + lines),
        "growth-per-doubling": f"{low:.1f} to {high:.1f} times",
        "growth-power": f"{math.log2(low):.1f} to {math.log2(high):.1f}",
        "growth-27-over-7": span(ratio27, lambda v: f"{v:.0f}") + " times",
        "growth-27-at-4096-off": f"{one_off[0]:.0f} to {one_off[1]:.0f} min",
        "growth-27-at-4096-off-from": f"{wall_of[('stencil27-scrambled', last, 0)]:.0f} s times {low:.1f} to {high:.1f}",
        "growth-27-at-4096-default": f"{one_default[0]:.1f} to {one_default[1]:.1f} h",
        "growth-27-at-4096-one": f"{one_off[0] / 60:.1f} to {one_default[1]:.1f} hours",
        "growth-27-at-4096-six": f"{six[0]:.0f} to {six[1]:.0f} hours",
        "growth-27-at-4096-six-jobs2": f"{six[0] / 2:.0f} to {six[1] / 2:.0f}",
        "crosstraffic-off-change": span(change, lambda v: f"{v:+.1f} %"),
    }


def fig5_figures(folder):
    """The README's table of Fig. 5 (each mapping's simulated time over packed's), from fig5.csv."""
    rows = csv_rows(folder, "fig5.csv")
    names = {"stencil7-scrambled": "7-point stencil", "stencil27-scrambled": "27-point stencil", "cg": "CG"}
    mappings = ["cyclic", "random", "treematch", "scotch", "default"]
    lines = ["| case | ranks | cyclic | random | TreeMatch | Scotch | default |", "|---|---|---|---|---|---|---|"]
    for case, label in names.items():
        for np_ in sorted({int(r["np"]) for r in rows if r["case"] == case}):
            ratio = {r["mapping"]: float(r["ratio"]) for r in rows if r["case"] == case and int(r["np"]) == np_}
            lines.append(f"| {label} | {np_} | " + " | ".join(f"{ratio[m]:.2f}" if m in ratio else "" for m in mappings) + " |")
    return {"fig5-table": "\n".join(lines)}


def readme_figures(folder):
    """README.md's generated figures (results/readme_figures.py), from the committed CSVs alone."""
    figures = {"time-model-rows": str(len(csv_rows(folder, "time-model.csv")))}
    figures.update(growth_figures(folder))
    figures.update(fig5_figures(folder))
    return figures


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else here)
