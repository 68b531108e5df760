#!/usr/bin/env python3
"""GROMACS with and without libmpimon-reorder (run.sh's gromacs part): the committed tables and
README.md's GROMACS figures computed from them alone.

  gromacs.py record DIR FULL.h5 FULL.csv KEY=VALUE...
      one comparison of `mpimon bench placement --arm launcher --arm reorder` (its results file and
      its `mpimon show --csv` row) into DIR/gromacs.csv (the row, the KEY=VALUE conditions and the
      results file's own: Open MPI, MCA settings, binding, seed) and DIR/gromacs-launches.csv (every
      launch, and for each launch of the reorder arm every line of the library's statistics); the
      rows of an earlier comparison of the same launch order (KEY order) are replaced
  gromacs.py summary DIR
      rewrites README.md's figures (results/readme_figures.py: plot.py's, these among them);
      exits 1 naming a figure the README marks but nothing computes, or the reverse

readme_figures(DIR) returns the GROMACS figures as {name: text}, from gromacs.csv,
gromacs-launches.csv and traffic/ (one monitored run of each launch order and arm: the pairs'
bytes by MPI_COMM_WORLD rank, and the node of each rank under that launch order).
"""
import csv
import json
import math
import os
import re
import statistics
import sys

COMPARISON = "gromacs.csv"
LAUNCHES = "gromacs-launches.csv"
# What the bench's analysis row gives (`mpimon show --csv`, docs/apps.md), kept in gromacs.csv.
ANALYSIS = ("pairs", "A_mean_s", "A_median_s", "B_mean_s", "B_median_s", "difference_s", "difference_ci_low_s",
            "difference_ci_high_s", "relative", "relative_ci_low", "relative_ci_high", "p", "wilcoxon_p")
# The results file's configuration kept with each comparison.
CONFIGURATION = ("open_mpi_version", "mca", "bind", "seed", "cpus", "arm_A", "arm_B")
# Each line of the library's statistics (MPIMON_REORDER_STATS, docs/reorder.md), as gromacs-launches.csv keeps it.
STATS = ("call", "reorder_status", "reordered", "processes", "nodes", "placed_by", "vertices", "edges", "cost_before",
         "cost_after", "between_nodes_before", "between_nodes_after", "kept_ranks", "rank0_kept", "cached", "method",
         "note", "seconds", "seconds_source", "seconds_mapping", "seconds_communicator")
# The statistics' own names of the columns named apart from the launch's.
STATS_KEY = {"reorder_status": "status"}
LAUNCH = ("order", "pair", "arm", "position", "status", "time_s", "wall_s")
ORDERS = {"node": "round-robin (`--map-by node`)", "slot": "packed (`--map-by slot`)"}
ARMS = {"launcher": "the launcher's order", "reorder": "with the library"}


def replace_rows(path, header, rows, order):
    """PATH's rows of other launch orders, then ROWS (PATH written whole)."""
    kept = []
    if os.path.exists(path):
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != list(header):
                sys.exit(f"gromacs.py: the columns of {path} are not {','.join(header)}")
            kept = [r for r in reader if r["order"] != order]
    with open(path + ".tmp", "w", newline="") as f:
        writer = csv.DictWriter(f, header, lineterminator="\n")
        writer.writeheader()
        writer.writerows(kept + rows)
    os.replace(path + ".tmp", path)


def record(here, full, analysis_csv, settings):
    sys.path.insert(0, os.path.join(here, "..", "..", "analysis", "scripts"))
    from mpimon_results import launches, read_configuration
    conditions = dict(s.split("=", 1) for s in settings)
    order = conditions["order"]
    row = next(csv.DictReader(open(analysis_csv)))
    config, _ = read_configuration(full)
    unpath = lambda text: re.sub(r"/[^\s:]*/([^/\s:]+)", r"\1", text)  # this machine's paths out
    comparison = dict(conditions)
    comparison.update({k: row[k] for k in ANALYSIS})
    comparison.update({k: unpath(config.get(k, "")) for k in CONFIGURATION})
    replace_rows(os.path.join(here, COMPARISON), list(conditions) + list(ANALYSIS) + list(CONFIGURATION),
                 [comparison], order)
    rows = []
    for _, a, _ in launches(full):
        launch = {"order": order, "pair": a["pair"], "arm": a["arm"], "position": a["position"], "status": a["status"],
                  "time_s": a["seconds"], "wall_s": a["wall_seconds"]}
        lines = [json.loads(line) for line in a.get("reorder_stats", "").splitlines() if line.strip()]
        for stats in lines or [{}]:
            rows.append(dict(launch, **{k: stats.get(STATS_KEY.get(k, k), "") for k in STATS}))
    replace_rows(os.path.join(here, LAUNCHES), LAUNCH + STATS, rows, order)


def number(text):
    return float(text) if text not in ("", None) else math.nan


def rate_words(rate):
    value, unit = re.fullmatch(r"([0-9.]+)([kmg]?)bit", rate).groups()
    return f"{value} {unit.upper() + 'bit' if unit else 'bit'}/s"


def decision(stats):
    """The library's decision over a comparison's reorder launches, in words, and its modelled figures."""
    calls = {(s["call"], s["reordered"], s["cost_before"], s["cost_after"], s["between_nodes_before"],
              s["between_nodes_after"], s["kept_ranks"], s["rank0_kept"], s["placed_by"]) for s in stats}
    if not stats:
        return "no statistics", "-", "-"
    texts = []
    for call, reordered, before, after, nb, na, kept, rank0, placed in sorted(calls):
        n = sum(1 for s in stats if s["call"] == call and s["reordered"] == reordered and s["cost_before"] == before)
        what = "renumbered" if reordered == "True" else "order kept (no mapping cheaper: already optimal)"
        texts.append(f"{call}: {what}, placed by {placed} ({n} of {len(stats)} launches)")
    costs = "; ".join(f"{number(b):.0f} -> {number(a):.0f} ({number(nb):.0f} -> {number(na):.0f})"
                      for _, _, b, a, nb, na, _, _, _ in sorted(calls))
    kept = "; ".join(f"{k} of {stats[0]['processes']}, rank 0 {'kept' if r0 == 'True' else 'moved'}"
                     for _, _, _, _, _, _, k, r0, _ in sorted(calls))
    return "; ".join(texts), costs, kept


def ratio_ci(c):
    a = number(c["A_mean_s"])
    ratio = number(c["B_mean_s"]) / a
    low, high = number(c["difference_ci_low_s"]), number(c["difference_ci_high_s"])
    if math.isnan(low):
        return ratio, math.nan, math.nan
    return ratio, 1 + low / a, 1 + high / a


def verdict(c):
    _, low, high = ratio_ci(c)
    if math.isnan(low):
        return "no interval"
    if high < 1:
        return "**resolved: faster with the library**"
    if low > 1:
        return "**resolved: slower with the library**"
    return "not resolved: the CI spans 1"


def ns_per_day(launches, order, arm, steps, dt_ps):
    """GROMACS's throughput from its own wall time: simulated ns x 86400 / s, mean over the launches."""
    times = [number(l["time_s"]) for l in launches if l["order"] == order and l["arm"] == arm and l["status"] == "ok"]
    simulated_ns = steps * dt_ps / 1000
    return statistics.mean(simulated_ns * 86400 / t for t in times) if times else math.nan


def read(here):
    comparisons = list(csv.DictReader(open(os.path.join(here, COMPARISON))))
    launches = list(csv.DictReader(open(os.path.join(here, LAUNCHES))))
    order_rank = {o: i for i, o in enumerate(ORDERS)}
    comparisons.sort(key=lambda c: order_rank.get(c["order"], len(ORDERS)))
    return comparisons, launches


def stats_of(launches, order):
    return [l for l in launches if l["order"] == order and l["arm"] == "B" and l["call"]]


def table(comparisons, launches):
    out = ["| launched | the library's decision (its statistics) | modelled cost, launcher's order -> library's "
           "(neighbour pairs between nodes) | ranks kept | pairs | launcher's order: mdrun s (ns/day) | with the "
           "library: mdrun s (ns/day) | with / without [95 % CI] | p (t) | p (W) | verdict |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for c in comparisons:
        words, costs, kept = decision(stats_of(launches, c["order"]))
        steps, dt = int(c["steps"]), number(c["dt_ps"])
        ratio, low, high = ratio_ci(c)
        interval = f"{ratio:.3f} [{low:.3f}, {high:.3f}]" if not math.isnan(low) else f"{ratio:.3f} [no interval]"
        a_day, b_day = (ns_per_day(launches, c["order"], arm, steps, dt) for arm in "AB")
        out.append(f"| {ORDERS.get(c['order'], c['order'])} | {words} | {costs} | {kept} | {c['pairs']} | "
                   f"{number(c['A_mean_s']):.2f} ({a_day:.3f}) | {number(c['B_mean_s']):.2f} ({b_day:.3f}) | "
                   f"{interval} | {number(c['p']):.2g} | {number(c['wilcoxon_p']):.2g} | {verdict(c)} |")
    return "\n".join(out)


def cost_table(comparisons, launches):
    out = ["| launched | reorder launches | whole call: median [min, max] | gathers | mapping (rank 0) | communicator | "
           "median call / mean mdrun time with the library |",
           "|---|---|---|---|---|---|---|"]
    for c in comparisons:
        stats = stats_of(launches, c["order"])
        if not stats:
            continue
        whole = [number(s["seconds"]) for s in stats]
        part = lambda key: f"{statistics.median(number(s[key]) for s in stats):.3f} s"
        out.append(f"| {ORDERS.get(c['order'], c['order'])} | {len(stats)} | {statistics.median(whole):.3f} s "
                   f"[{min(whole):.3f}, {max(whole):.3f}] | {part('seconds_source')} | {part('seconds_mapping')} | "
                   f"{part('seconds_communicator')} | {100 * statistics.median(whole) / number(c['B_mean_s']):.1f} % |")
    return "\n".join(out)


def conditions(comparisons, launches):
    first = comparisons[0]
    same = lambda key: sorted({c[key] for c in comparisons})
    walls = [number(l["wall_s"]) for l in launches if l["status"] == "ok"]
    failed = [l for l in launches if l["status"] != "ok"]
    loads = [float(c[k].split()[0]) for c in comparisons for k in ("load_before", "load_after")]
    lines = [
        f"- Open MPI: {', '.join(same('open_mpi'))} (Debian 12), its default components for the job (`ob1`, `tcp` between the "
        "emulated nodes) with the monitoring components excluded in every launch (`--mca pml ^monitoring`, `coll "
        "^monitoring`, `osc ^monitoring`: `bench placement` times with monitoring off); MCA settings of the "
        f"launches: `{'`, `'.join(same('mca'))}` (the launch order), and the cluster launcher's "
        "`mpi_yield_when_idle 1` and `btl_tcp_if_include` of the emulated network",
        f"- GROMACS {', '.join(same('gromacs'))} (Debian's `gmx_mpi`): `{first['mdrun']}`; the input made by "
        f"`reorder/tests/gromacs_input.sh` ({first['waters']} SPC waters in a {first['box_nm']} nm box, PME, "
        f"{first['steps']} steps of {first['dt_ps']} ps, energies every step); {first['npme']} of the "
        f"{int(first['nodes']) * int(first['slots'])} ranks PME",
        f"- {first['nodes']} emulated nodes x {first['slots']} slots (`mpimon cluster`, network namespaces), links "
        f"`tbf` at {rate_words(first['rate'])}, no added latency (no netem); np "
        f"{int(first['nodes']) * int(first['slots'])}; every node shares this host's {first['cpus']} CPUs; ranks "
        "not bound to a core (`--report-bindings` prints an empty binding; the launcher turns `--bind-to` into "
        "none), so the library places them by node (link cost 100 between nodes, 0 within)",
        f"- launch pairs: {', '.join(same('pairs'))} per launch order, A (the launcher's order) and B (the library "
        f"preloaded, `--arm reorder`) in an order drawn at random within each pair (seed {', '.join(same('seed'))}); "
        "the time is mdrun's own wall time (its `Time:` line); B - A by the paired t-test with its 95 % CI "
        "(`mpimon bench placement`, docs/statistics.md), the ratio B / A of the means with that CI divided by A's "
        "mean; Wilcoxon's p beside it; ns/day = simulated ns x 86400 / mdrun's wall time, the mean over the "
        "launches",
        f"- launches: {len(walls)} ok" + (f", {len(failed)} failed" if failed else "") +
        f", each {min(walls):.1f} to {max(walls):.1f} s from `mpirun` to its exit",
        f"- load average (1 min) of this 2-core host before and after each comparison: {min(loads):.1f} to "
        f"{max(loads):.1f} (other jobs running: the times are noisy; the launch pairs cancel what both arms share)",
        "- measured " + "; ".join(f"{ORDERS.get(c['order'], c['order']).split(' (')[0]} from {c['started']} to "
                                  f"{c['ended']}" for c in comparisons),
        "- the modelled costs are the library's own statistics (`MPIMON_REORDER_STATS`, kept with every launch of "
        "the reorder arm: `gromacs-launches.csv`): the declared Cartesian grid, every neighbour of weight 1 (MPI "
        "gives no weights), cost 100 per neighbour pair between nodes, so they count messages, not bytes",
    ]
    return "\n".join(lines)


def between_nodes(folder, order, arm):
    """(bytes between nodes, all bytes) of the monitored run of ORDER and ARM (traffic/): the pairs'
    bytes (external and internal classes) whose two ranks ran on different nodes."""
    traffic = os.path.join(folder, "traffic")
    hosts = dict(line.split() for line in open(os.path.join(traffic, f"gromacs-{order}-hosts.txt")))
    pairs = list(csv.DictReader(open(os.path.join(traffic, f"gromacs-{order}-{arm}.csv"))))
    total = sum(int(p["bytes"]) for p in pairs)
    return sum(int(p["bytes"]) for p in pairs if hosts[p["from"]] != hosts[p["to"]]), total


def traffic_table(comparisons, folder):
    out = ["| launched | modelled neighbour pairs between nodes (the library's statistics) | bytes between nodes, "
           "launcher's order | with the library | with / without | all bytes, launcher's order | with the library |",
           "|---|---|---|---|---|---|---|"]
    for c in comparisons:
        stats = json.load(open(os.path.join(folder, "traffic", f"gromacs-{c['order']}-reorder.json")))
        (a, a_all), (b, b_all) = (between_nodes(folder, c["order"], arm) for arm in ARMS)
        mb = lambda n: f"{n / 1e6:.2f} MB"
        out.append(f"| {ORDERS.get(c['order'], c['order'])} | {stats['between_nodes_before']:.0f} -> "
                   f"{stats['between_nodes_after']:.0f} ({stats['between_nodes_after'] / stats['between_nodes_before']:.2f}) "
                   f"| {mb(a)} | {mb(b)} | {b / a:.2f} | {mb(a_all)} | {mb(b_all)} |")
    return "\n".join(out)


def readme_figures(folder):
    """README.md's GROMACS figures, from gromacs.csv, gromacs-launches.csv and traffic/ alone."""
    comparisons, launches = read(folder)
    figures = {"gromacs-table": table(comparisons, launches), "gromacs-cost": cost_table(comparisons, launches),
               "gromacs-conditions": conditions(comparisons, launches),
               "gromacs-traffic": traffic_table(comparisons, folder)}
    by_order = {c["order"]: c for c in comparisons}
    for c in comparisons:
        ratio, low, high = ratio_ci(c)
        figures[f"gromacs-{c['order']}-percent"] = f"{100 * (ratio - 1):+.1f} % [{100 * (low - 1):+.1f}, {100 * (high - 1):+.1f}]"
        stats = stats_of(launches, c["order"])
        _, costs, kept = decision(stats)
        figures[f"gromacs-{c['order']}-kept"] = kept
        whole = [number(s["seconds"]) for s in stats]
        figures[f"gromacs-{c['order']}-call"] = f"{statistics.median(whole):.2f} s" if whole else "-"
        (a, _), (b, _) = (between_nodes(folder, c["order"], arm) for arm in ARMS)
        figures[f"gromacs-{c['order']}-bytes"] = f"{b / a:.2f}"
        figures[f"gromacs-{c['order']}-bytes-with-library"] = f"{b / 1e6:.0f} MB"
    node = stats_of(launches, "node")
    if node:
        _, costs, kept = decision(node)
        figures["gromacs-node-modelled"] = costs
        figures["gromacs-node-modelled-ratio"] = f"{number(node[0]['between_nodes_after']) / number(node[0]['between_nodes_before']):.2f}"
    figures["gromacs-pairs"] = ", ".join(sorted({c["pairs"] for c in comparisons}))
    loads = [float(c[k].split()[0]) for c in comparisons for k in ("load_before", "load_after")]
    figures["gromacs-load"] = f"{min(loads):.0f} to {max(loads):.0f}"
    if {"node", "slot"} <= set(by_order):
        faster = sorted(number(by_order["node"][k]) / number(by_order["slot"][k]) for k in ("A_mean_s", "B_mean_s"))
        figures["gromacs-packed-faster"] = f"{faster[0]:.1f} to {faster[1]:.1f} times"
    return figures


def summary(here):
    """README.md's figures rewritten (plot.py computes them all, these among them)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(here)))
    sys.path.insert(0, os.path.abspath(here))
    import plot
    import readme_figures as generated
    problems = generated.write(here, plot.readme_figures(here))
    if problems:
        sys.exit("gromacs.py: " + "; ".join(problems))


def main(args):
    if len(args) >= 4 and args[0] == "record":
        record(args[1], args[2], args[3], args[4:])
    elif len(args) == 2 and args[0] == "summary":
        summary(args[1])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
