#!/usr/bin/env python3
"""The figure of results/reorder (run.sh): left, each measured comparison as B's mean time over A's
with the 95 % CI of B - A (paired, launch pairs), beside the library's modelled cost of B over A's;
right, what one reordering costs: the real calls' time split into gathering (source), mapping and
communicator (median over the launches) at each process count, and rank 0's mapping alone on
synthetic gathers up to 10^4 processes. Writes reorder.png, reorder.svg and cost.csv next to it.
Usage: plot.py RESULTS_DIR"""
import csv
import json
import re
import statistics
import sys
from collections import defaultdict
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def measured(path):
    rows = list(csv.DictReader(open(path))) if path.exists() else []
    out = []
    for r in rows:
        a = float(r["mean_a_s"])
        ratio = float(r["mean_b_s"]) / a
        # One pair has no interval: the point alone.
        low = 1 + float(r["ci95_low_s"]) / a if r["ci95_low_s"] else ratio
        high = 1 + float(r["ci95_high_s"]) / a if r["ci95_high_s"] else ratio
        out.append({
            "label": f"{r['case']}\n{r['arm_b']} vs {r['arm_a']}",
            "ratio": ratio,
            "low": low,
            "high": high,
            "modelled": float(r["modelled_b"]) / float(r["modelled_a"]) if r["modelled_a"] and r["modelled_b"] else None,
        })
    return out


def cost_rows(results):
    by_np = defaultdict(list)
    stats = results / "stats" / "cost-constructor.json"
    for line in open(stats) if stats.exists() else []:
        r = json.loads(line)
        by_np[("MPI_Cart_create, Open MPI 4.1", r["processes"])].append(
            (r["seconds"], r["seconds_source"], r["seconds_mapping"], r["seconds_communicator"]))
    ompi5 = results / "stats" / "cost-monitoring-ompi5.txt"
    for line in open(ompi5) if ompi5.exists() else []:
        m = re.match(r"np=(\d+) REORDER .* seconds=([0-9.]+) mapping=([0-9.]+)", line)
        if m:
            total, mapping = float(m.group(2)), float(m.group(3))
            by_np[("mpimon_reorder \"monitoring\", Open MPI 5.0", int(m.group(1)))].append(
                (total, float("nan"), mapping, float("nan")))
    rows = []
    for (call, n), runs in sorted(by_np.items()):
        med = [statistics.median(x) for x in zip(*runs)]
        rows.append({"call": call, "processes": n, "launches": len(runs), "seconds": med[0], "source": med[1],
                     "mapping": med[2], "communicator": med[3]})
    return rows


def main():
    results = Path(sys.argv[1])
    comparisons = measured(results / "measured.csv")
    costs = cost_rows(results)
    decide = list(csv.DictReader(open(results / "decide.csv"))) if (results / "decide.csv").exists() else []
    with open(results / "cost.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["call", "processes", "launches", "median_seconds", "median_source_s", "median_mapping_s",
                    "median_communicator_s"])
        for r in costs:
            w.writerow([r["call"], r["processes"], r["launches"]] +
                       [f"{r[k]:.4f}" for k in ("seconds", "source", "mapping", "communicator")])
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 6.2), gridspec_kw={"width_ratios": [1.3, 1]})
    for i, c in enumerate(comparisons):
        left.errorbar([i], [c["ratio"]], yerr=[[c["ratio"] - c["low"]], [c["high"] - c["ratio"]]], fmt="o",
                      color="tab:blue", capsize=4, label="measured B / A (95 % CI)" if i == 0 else None)
        if c["modelled"] is not None:
            left.plot([i + 0.15], [c["modelled"]], "s", color="tab:orange",
                      label="modelled cost B / A" if not any(x["modelled"] for x in comparisons[:i]) else None)
    left.axhline(1, color="grey", lw=0.8)
    left.set_xticks(range(len(comparisons)), [c["label"] for c in comparisons], fontsize=7, rotation=30, ha="right")
    left.set_ylabel("B relative to A (time; modelled cost)")
    left.set_title("Measured on 4 emulated nodes (launch pairs)", fontsize=10)
    left.legend(fontsize=8)
    for placed_by, marker in (("node", "o"), ("core", "^")):
        rows = [r for r in decide if r["placed_by"] == placed_by]
        groups = defaultdict(list)
        for r in rows:
            groups[int(r["processes"])].append(float(r["machine_s"]) + float(r["decide_s"]))
        xs = sorted(groups)
        right.plot(xs, [statistics.median(groups[x]) for x in xs], marker + "--", color="tab:green",
                   label=f"rank 0's mapping, synthetic gather (by {placed_by})")
    for call, marker, color in (("MPI_Cart_create, Open MPI 4.1", "o", "tab:blue"),
                                ("mpimon_reorder \"monitoring\", Open MPI 5.0", "s", "tab:purple")):
        rows = [r for r in costs if r["call"] == call]
        if rows:
            right.plot([r["processes"] for r in rows], [r["seconds"] for r in rows], marker + "-", color=color,
                       label=f"whole call, {call} (median)")
    right.axhline(1, color="red", lw=0.7, ls=":")
    right.axhline(20, color="red", lw=0.7, ls=":")
    right.text(12, 1.1, "1 s (aim at 1024)", color="red", fontsize=7)
    right.text(12, 22, "20 s (aim at 10^4)", color="red", fontsize=7)
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("processes")
    right.set_ylabel("seconds")
    right.set_title("The reordering's own cost", fontsize=10)
    right.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14))
    fig.suptitle("libmpimon-reorder: placement inside the run (Open MPI 4.1.4 and 5.0.7, mpimon cluster)",
                 fontsize=11)
    fig.tight_layout()
    for ext in ("png", "svg"):
        fig.savefig(results / f"reorder.{ext}", dpi=110)
    # README.md's generated figures, from the files just written.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    import readme_figures as generated
    for problem in generated.write(str(results), readme_figures(results)):
        print("plot.py: README.md: " + problem, file=sys.stderr)


# The measured comparisons in the README's order and words: (case prefix, label) and each arm's name.
CASES = [("dynamic-np16-262144B", "demo, 256 KiB halos"), ("dynamic-np64-16384B", "demo, 16 KiB halos"),
         ("stencil-medium-10it-np48", "stencil medium, 10 it."), ("stencil-small-np48", "stencil small"),
         ("stencil-medium-np16", "stencil medium")]
CALLS = {"cart": ("`MPI_Cart_create`", "MPI_Cart_create", "messages"),
         "dist-graph": ("weighted dist graph", "MPI_Dist_graph_create_adjacent", "bytes")}
ARMS = {"reorder-off": "call off", "launcher": "topo/basic", "reorder": "preloaded", "treematch": "topo/treematch"}
RATES = {"100mbit": "100 Mbit/s", "1gbit": "1 Gbit/s"}
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}


def parts_of(case):
    """(index in CASES, rate, call or None) of a measured.csv case name."""
    for i, (prefix, _) in enumerate(CASES):
        if case.startswith(prefix + "-"):
            rest = case[len(prefix) + 1:].split("-", 1)
            return i, rest[0], (rest[1] if len(rest) > 1 else None)
    raise ValueError(f"measured.csv: case {case} is none of the README's")


def gains_figures(results):
    rows = sorted(csv.DictReader(open(results / "measured.csv")),
                  key=lambda r: (parts_of(r["case"])[0], list(RATES).index(parts_of(r["case"])[1]),
                                 list(CALLS).index(parts_of(r["case"])[2] or "cart")))
    lines = ["| case | np | link | A | B | A s | B s | B - A [95 % CI] | modelled B/A | verdict |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        i, rate, call = parts_of(r["case"])
        a = float(r["mean_a_s"])
        pct = [100 * float(r[k]) / a for k in ("b_minus_a_s", "ci95_low_s", "ci95_high_s")]
        resolved = pct[1] > 0 or pct[2] < 0
        diff = f"{pct[0]:+.1f} %"
        label = CASES[i][1] + (f", {CALLS[call][0]}" if call else "")
        b = "call on" if r["arm_a"] == "reorder-off" else ARMS[r["arm_b"]]
        ratio = float(r["modelled_b"]) / float(r["modelled_a"])
        modelled = f"{ratio:.2f}" + (f" ({CALLS[call][2]})" if call else "")
        verdict = "**resolved**" if resolved else "inconclusive" + (": the order kept in both" if ratio == 1 else "")
        lines.append(f"| {label} | {r['np']} | {RATES[rate]} | {ARMS[r['arm_a']]} | {b} | {a:.3f} | "
                     f"{float(r['mean_b_s']):.3f} | {f'**{diff}**' if resolved else diff} [{pct[1]:+.1f}, {pct[2]:+.1f}] | "
                     f"{modelled} | {verdict} |")
    loads = [float(r[k]) for r in rows for k in ("load_before", "load_after")]
    ratio = {r["case"]: float(r["mean_b_s"]) / float(r["mean_a_s"]) for r in rows}
    return {
        "gains-table": "\n".join(lines),
        "gains-load": f"{min(loads):.0f} to {max(loads):.0f}",
        "gains-demo-ratio": " and ".join(f"{ratio[f'dynamic-np16-262144B-{rate}']:.2f}" for rate in RATES),
        "gains-stencil48-ratio": " and ".join(f"{ratio[f'stencil-medium-10it-np48-100mbit-{call}']:.2f}" for call in CALLS),
    }


def library_statistics(results, tag, call):
    """The library's statistics of CALL's last launch in stats/TAG.json."""
    rows = [json.loads(line) for line in open(results / "stats" / f"{tag}.json")]
    return [r for r in rows if r["call"] == CALLS[call][1]][-1]


def modelled_between_nodes(results, tag, call):
    """(before, after) weight between nodes in the library's statistics of CALL in stats/TAG.json."""
    r = library_statistics(results, tag, call)
    return r["between_nodes_before"], r["between_nodes_after"]


def same_at_every_rate(results, prefix, describe):
    """describe(tag)'s text, which must be the same at every rate of the stencil's statistics."""
    texts = {describe(f"{prefix}-{rate}") for rate in RATES}
    if len(texts) != 1:
        raise ValueError(f"stats/{prefix}-*.json: the statistics differ between the rates: {sorted(texts)}")
    return texts.pop()


def np16_figures(results):
    """The 16-rank stencil: the Cartesian call's cost in messages, the weighted dist graph's weight
    between nodes and whether the library kept the order (stats/stencil-medium-np16-*.json)."""
    def cart(tag):
        r = library_statistics(results, tag, "cart")
        return f"{r['cost_before']:.0f} -> {r['cost_after']:.0f}"

    def graph(tag):
        r = library_statistics(results, tag, "dist-graph")
        kept = "the order kept" if not r["reordered"] else f"reordered ({r['method']})"
        points = lambda v: f"{v:,.0f}".replace(",", " ")  # noqa: E731
        return f"{points(r['between_nodes_before'])} points between nodes per iteration before, " \
               f"{points(r['between_nodes_after'])} after: {kept}"
    return {"np16-cart-messages": same_at_every_rate(results, "stencil-medium-np16", cart),
            "np16-dist-graph": same_at_every_rate(results, "stencil-medium-np16", graph)}


def cost_figures(results):
    costs = list(csv.DictReader(open(results / "cost.csv")))
    decide = list(csv.DictReader(open(results / "decide.csv")))
    fmt = lambda v: f"{float(v):.2f} s"  # noqa: E731
    lines = ["| where | processes | whole call (median) | gathers, source | mapping (rank 0) | communicator |",
             "|---|---|---|---|---|---|"]
    for call, title in (("MPI_Cart_create, Open MPI 4.1", "`MPI_Cart_create`, Open MPI 4.1.4, emulated cluster"),
                        ('mpimon_reorder "monitoring", Open MPI 5.0', '`mpimon_reorder(..., "monitoring")`, Open MPI 5.0.7')):
        for k, r in enumerate(c for c in costs if c["call"] == call):
            cells = [fmt(r[key]) if r[key] != "nan" else "" for key in
                     ("median_seconds", "median_source_s", "median_mapping_s", "median_communicator_s")]
            lines.append(f"| {title if k == 0 else ''} | {r['processes']} | " + " | ".join(cells) + " |")
    seconds = defaultdict(list)
    memory = defaultdict(list)
    for r in decide:
        seconds[int(r["processes"])].append(float(r["machine_s"]) + float(r["decide_s"]))
        memory[int(r["processes"])].append(float(r["peak_rss_mb"]))
    repeats = {len([r for r in decide if (r["processes"], r["placed_by"]) == key])
               for key in {(r["processes"], r["placed_by"]) for r in decide}}
    first = True
    largest = max(seconds)
    for n in sorted(seconds):
        if n < 1000:
            continue
        memo = f" (peak memory {max(memory[n]):.1f} MB)" if n == largest else ""
        lines.append(f"| {'rank 0' + chr(39) + 's computation alone, synthetic gather (`decide.csv`)' if first else ''} | "
                     f"{n} | {min(seconds[n]):#.3g} to {max(seconds[n]):#.3g} s{memo} | | | |")
        first = False
    launches = {int(r["launches"]) for r in costs}
    cart = {int(r["processes"]): r for r in costs if r["call"].startswith("MPI_Cart_create")}
    smallest = min(memory)
    return {
        "cost-table": "\n".join(lines).replace("|  |", "| |").replace("|  |", "| |"),
        "cost-launches": WORDS.get(min(launches), str(min(launches))).capitalize() if len(launches) == 1 else
        f"{min(launches)} to {max(launches)}",
        "decide-repeats": WORDS.get(min(repeats), str(min(repeats))) if len(repeats) == 1 else
        f"{min(repeats)} to {max(repeats)}",
        "decide-at-1024": f"{max(seconds[1024]):#.3g} s",
        "decide-at-largest": f"{max(seconds[largest]):#.3g} s",
        "decide-memory": f"{max(memory[smallest]):.1f} MB at {smallest} processes, {max(memory[largest]):.1f} MB at "
                         f"{largest}",
        "cost-communicator-largest": f"{float(cart[max(cart)]['median_communicator_s']):.1f} s at {max(cart)} ranks",
    }


def readme_figures(folder):
    """README.md's generated figures (results/readme_figures.py), from the committed files alone."""
    results = Path(folder)
    figures = gains_figures(results)
    figures.update(cost_figures(results))
    figures.update(np16_figures(results))
    before, after = modelled_between_nodes(results, "stencil-medium-10it-np48-100mbit", "dist-graph")
    figures["stencil48-bytes-between-nodes"] = f"{after / before:.2f} (from {before:,} to {after:,}".replace(",", " ")
    if (results / "gromacs.csv").exists():
        figures.update(gromacs_module().readme_figures(str(results)))
    return figures


def gromacs_module():
    """gromacs.py beside this file (GROMACS's figures), whatever the importer's path."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("reorder_gromacs", Path(__file__).resolve().parent / "gromacs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


if __name__ == "__main__":
    main()
