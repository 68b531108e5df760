#!/usr/bin/env python3
"""`mpimon place`'s time model (docs/placement.md, all MODELLED) against SimGrid's SIMULATED times of
the same mappings: every compact file of Fig. 5 at scale, of Fig. 4a and of the trust cases
(compact/fig5-*, fig4a-*, trust-*, read with analysis/scripts/mpimon_results.py; new cases are picked
up when this runs again).

For each case, from what the compact file keeps (no run of run.sh is needed):
- the links: the simulated platform's own (`mpimon_links`, the links `mpimon simulate` wrote into
  the platform from the tree, `TreeTopology::links`), given to `place` as `--link RATE,LATENCY` per
  level, top first; on a fat tree also with the top level's rate times the rack switches' up-links
  (SimGrid's fat tree has full bisection: a rack's traffic to the others spreads over that many
  links, where the model's tree has one: the `bisection` column);
- each mapping: its rankfile (`arm_X`), turned into `RANK LEAF` lines for `--method given`;
- the traffic the mappings were computed and costed on, which run.sh keeps only in runs/ (not
  committed), made again here and checked: every mapping's cost recomputed on it must equal the
  compact file's `modelled_X`, else this script stops. The trust cases: recorded again as run.sh's
  trust part records them (`mpimon record` of mpimon-workload or of the reduce at the case's size). Fig. 5: one iteration simulated under the
  packed mapping on the committed platform (`mpimon simulate --platform ... --traffic-out`, as
  run.sh's fig5 part does). Fig. 4a: the binary reduce recorded again at 10^6 integers (`mpimon
  record`, as run.sh does); a case of K x 10^6 integers replays that traffic K times larger
  (reduce_trace.py --scale), so its prediction is K x the bandwidth term + the latency term, which is
  what `place` predicts on the scaled matrices (every message stays above the 64 KiB rendezvous limit).

Writes time-model.csv (case, np, mapping, simulated_s, predicted_s, its bandwidth and latency parts,
B/A simulated and predicted against the case's first mapping, their ratio, the modelled cost's B/A)
and time-model.md (per case: Spearman between simulated and predicted times, ratios within 20 %).
The traffic it makes goes to runs/time-model/ (kept: a second run reuses it).

Usage: time_model.py BUILD_DIR [CASE_GLOB...] (default: fig5-*, fig4a-*, trust-*; a build with SimGrid, root
for `mpimon record`). Here: 2 min for the Fig. 5 cases to 1024 ranks and the 10 recordings (most of
it the 1024-rank traffic simulation), 3 s once the traffic is there."""
import csv
import glob
import importlib.util
import json
import math
import os
import re
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "../../../analysis/scripts"))
from mpimon_results import read_table  # noqa: E402

spec = importlib.util.spec_from_file_location(
    "plot_placement_measured", os.path.join(here, "../../../analysis/scripts/plot_placement_measured.py"))
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)

TOLERANCE = 0.20  # the goal: the ratio B/A predicted within 20 %
FIG4A_RECORDED_COUNT = 1000000  # run.sh places and replays Fig. 4a from a recording at 10^6 integers


def run(command, **kwargs):
    """Runs a command niced, its output to stderr on failure; stops the script on failure."""
    done = subprocess.run(["nice", "-n", os.environ.get("NICE", "10"), *command], capture_output=True, text=True,
                          **kwargs)
    if done.returncode != 0:
        sys.exit(f"time_model.py: {' '.join(command)}: exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return done.stdout


def platform_props(platform):
    props = dict(re.findall(r'<prop id="([^"]+)" value="([^"]*)"', platform))
    cluster = re.search(r"<cluster [^>]*>", platform, re.S).group(0)
    props["cluster_topology"] = (re.search(r'topology="([^"]+)"', cluster) or [None, "FLAT"])[1]
    props["topo_parameters"] = (re.search(r'topo_parameters="([^"]+)"', cluster) or [None, ""])[1]
    return props


def links(props, bisection=False):
    """`--link` arguments per level from the platform's mpimon_links ("level 0 1250000000Bps 1e-06s, ...")."""
    out = []
    for level, rate, latency in re.findall(r"level (\d+) ([0-9.e+]+)Bps ([0-9.e+-]+)s", props["mpimon_links"]):
        bits = float(rate) * 8
        if bisection and int(level) == 0 and props["cluster_topology"] == "FAT_TREE":
            # "LEVELS;DOWN...;UP...;COUNT...": the up-links of the switches above the nodes' switches.
            _, _, up, count = props["topo_parameters"].split(";")
            up, count = [int(x) for x in up.split(",")], [int(x) for x in count.split(",")]
            bits *= up[-1] * count[-1]
        bits = round(bits)
        unit = next((u for u, d in (("gbit", 10**9), ("mbit", 10**6), ("kbit", 10**3), ("bit", 1)) if bits % d == 0))
        scale = {"gbit": 10**9, "mbit": 10**6, "kbit": 10**3, "bit": 1}[unit]
        out += ["--link", f"{bits // scale}{unit},{round(float(latency) * 1e9)}ns"]
    return out


def leaves(props):
    """(leaves per node, cores per socket) of the platform's tree."""
    arities = [int(a) for a in props["mpimon_tleaf"].split()[2::2]]
    node, socket = int(props["mpimon_node_levels"]), int(props["mpimon_socket_levels"])
    return math.prod(arities[node:]), math.prod(arities[node + socket:])


def mapping_lines(rankfile_text, props):
    """`RANK LEAF` lines of a rankfile's text (`rank R=nodeH slot=S:C`)."""
    per_node, per_socket = leaves(props)
    out = []
    for rank, node, socket, core in re.findall(r"rank (\d+)=node(\d+) slot=(\d+):(\d+)", rankfile_text):
        out.append(f"{rank} {int(node) * per_node + int(socket) * per_socket + int(core)}")
    return "\n".join(out) + "\n"


def rankfile_text(arm):
    return arm.split(":\n", 1)[1]


def recorded(build, work, np_, name, program, mca=()):
    """A recording of PROGRAM at NP ranks (`mpimon record`, Open MPI with monitoring), made once."""
    path = os.path.join(work, f"recorded-np{np_}-{name}.h5")
    if not os.path.exists(path):
        print(f"time_model.py: recording {name} at {np_} ranks", file=sys.stderr)
        env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1")
        run([f"{build}/cli/mpimon", "record", "--np", np_, "-o", path + ".tmp.h5",
             *[x for m in mca for x in ("--mca", m)], "--", *program], env=env)
        os.replace(path + ".tmp.h5", path)
    return path


def reduce_recording(build, work, np_, count):
    """The forced binary reduce (coll_tuned_reduce_algorithm 4) as run.sh records it."""
    return recorded(build, work, np_, f"reduce-{count}",
                    [f"{build}/validation/mpimon-run-collective", "--op", "reduce", "--count", str(count),
                     "--type-size", "4", "--skip", "--iterations", "1"],
                    ("coll_tuned_use_dynamic_rules=1", "coll_tuned_reduce_algorithm=4"))


def traffic(build, case, config, work):
    """The traffic the case's mappings were computed from, made again (see the module's text)."""
    np_ = config["np"]
    if case.startswith("fig4a-"):
        return reduce_recording(build, work, np_, FIG4A_RECORDED_COUNT)
    if case.startswith("trust-fig4a-"):
        return reduce_recording(build, work, np_, int(case.split("-")[3]))
    if case.startswith("trust-fig5-"):  # recorded by run.sh's trust part with the program itself
        args = config["programs"].split(": mpimon-workload-smpi ", 1)[1].split()
        return recorded(build, work, np_, "workload-" + "".join(a.strip("-") for a in args),
                        [f"{build}/validation/mpimon-workload", *args])
    path = os.path.join(work, f"{case}-traffic.h5")
    if not os.path.exists(path):
        print(f"time_model.py: simulating one iteration of {case} for its traffic", file=sys.stderr)
        program = config["programs"].split(": ", 1)[1]
        program = re.sub(r"--iterations \d+", "--iterations 1", program).split()
        smpi = [x for s in config["smpi_settings"].split()
                if not s.startswith(("smpi/host-speed=", "smpi/display-timing=")) for x in ("--smpi", s)]
        platform = os.path.join(work, f"{case}.platform.xml")
        with open(platform, "w") as f:
            f.write(config["platform"])
        rf = os.path.join(work, f"{case}-{config['arm_A_name']}.rf")
        with open(rf, "w") as f:
            f.write(rankfile_text(config["arm_A"]))
        run([f"{build}/cli/mpimon", "simulate", "--platform", platform, "--rankfile", rf, "--np", np_, *smpi,
             "--traffic-out", path + ".tmp.h5", "--name", f"{case}-traffic", "-o", os.path.join(work, f"{case}-traffic-sim.h5"),
             "--", *program], cwd=work)
        os.replace(path + ".tmp.h5", path)
    return path


def predict(build, traffic_path, props, mapping, work, name, bisection):
    """place's JSON row of method `given` for one mapping."""
    map_path = os.path.join(work, f"{name}.map")
    out = os.path.join(work, f"{name}{'-bisection' if bisection else ''}.json")
    with open(map_path, "w") as f:
        f.write(mapping)
    run([f"{build}/cli/mpimon", "place", traffic_path, "--topology", props["mpimon_tleaf"], "--method", "given",
         "--start-mapping", map_path, *links(props, bisection), "--json", out])
    with open(out) as f:
        report = json.load(f)
    return next(m for m in report["methods"] if m["method"] == "given"), report


def case_rows(build, path, work, cache):
    table, config, _ = read_table(path, "mappings", formats=("mpimon-apps",))
    case = os.path.basename(path)[:-len("-compact.h5")]
    props = platform_props(config["platform"])
    if "mpimon_links" not in props:
        print(f"time_model.py: {case}: skipped, its platform has no mpimon_links (not written from a tree)", file=sys.stderr)
        return []
    if case.startswith("fig5-") and not re.search(r": mpimon-workload-smpi .*--iterations \d+", config["programs"]):
        print(f"time_model.py: {case}: skipped, its traffic cannot be made again from what the compact file keeps "
              f"(program: {config['programs']})", file=sys.stderr)
        return []
    traffic_path = traffic(build, case, config, work)
    # The traffic made again is one iteration of Fig. 5's (the simulated time is its timed loop's, all
    # iterations) and Fig. 4a's reduce at 10^6 integers (its case may be K times larger).
    scale, repeat = 1.0, 1.0
    if case.startswith("fig4a-"):
        scale = int(case.split("-")[2]) / FIG4A_RECORDED_COUNT
    elif case.startswith("fig5-"):
        repeat = float(re.search(r"--iterations (\d+)", config["programs"]).group(1))
    bisect = props["cluster_topology"] == "FAT_TREE"
    rows = []
    for i, arm in enumerate(table["arm"]):
        mapping = mapping_lines(rankfile_text(config[f"arm_{arm}"]), props)
        key = (traffic_path, mapping, props["mpimon_links"], props["mpimon_tleaf"])
        if key not in cache:
            name = f"{case}-{table['name'][i]}"
            given, report = predict(build, traffic_path, props, mapping, work, name, False)
            if given.get("repaired_ranks"):
                sys.exit(f"time_model.py: {case} {table['name'][i]}: the rankfile puts two ranks on one core")
            entry = {"cost": given["cost"], "bandwidth": given["predicted_bandwidth_seconds"], "latency": given["predicted_latency_seconds"],
                     "links": " ".join(links(props)[1::2])}
            if bisect:
                wide, _ = predict(build, traffic_path, props, mapping, work, name, True)
                entry["wide_bandwidth"], entry["wide_latency"] = (wide["predicted_bandwidth_seconds"],
                                                                  wide["predicted_latency_seconds"])
            cache[key] = entry
        e = cache[key]
        if round(e["cost"]) != round(float(config[f"modelled_{arm}"])):
            sys.exit(f"time_model.py: {case} {table['name'][i]}: the traffic made again costs {e['cost']}, "
                     f"the simulation's modelled cost is {config[f'modelled_{arm}']}")
        row = {"case": case, "np": config["np"], "mapping": table["name"][i], "simulated_s": float(table["seconds"][i]),
               "predicted_s": repeat * (e["bandwidth"] * scale + e["latency"]),
               "predicted_bandwidth_s": repeat * e["bandwidth"] * scale, "predicted_latency_s": repeat * e["latency"],
               "predicted_bisection_s": repeat * (e["wide_bandwidth"] * scale + e["wide_latency"]) if bisect else "",
               "modelled_cost": float(table["modelled_cost"][i]), "links": e["links"]}
        rows.append(row)
    first = rows[0]
    for r in rows:
        r["simulated_ratio"] = r["simulated_s"] / first["simulated_s"]
        r["predicted_ratio"] = r["predicted_s"] / first["predicted_s"]
        r["predicted_over_simulated_ratio"] = r["predicted_ratio"] / r["simulated_ratio"]
        r["within_20pct"] = int(abs(r["predicted_over_simulated_ratio"] - 1) <= TOLERANCE)
        if bisect:
            r["bisection_ratio"] = r["predicted_bisection_s"] / first["predicted_bisection_s"]
        else:
            r["bisection_ratio"] = ""
        r["modelled_ratio"] = r["modelled_cost"] / first["modelled_cost"]
        # Differences cancel what is common to every mapping (computation, which the model leaves out).
        r["simulated_minus_first_s"] = r["simulated_s"] - first["simulated_s"]
        r["predicted_minus_first_s"] = r["predicted_s"] - first["predicted_s"]
        r["bisection_minus_first_s"] = (r["predicted_bisection_s"] - first["predicted_bisection_s"]) if bisect else ""
    return rows


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    build = os.path.abspath(argv[0])
    patterns = argv[1:] or ["fig5-*", "fig4a-*", "trust-*"]
    work = os.path.join(here, "runs", "time-model")
    os.makedirs(work, exist_ok=True)
    cache, rows = {}, []
    for pattern in patterns:
        for path in sorted(glob.glob(os.path.join(here, "compact", f"{pattern}-compact.h5"))):
            rows += case_rows(build, path, work, cache)
    fields = ["case", "np", "mapping", "simulated_s", "predicted_s", "predicted_bandwidth_s", "predicted_latency_s",
              "simulated_ratio", "predicted_ratio", "predicted_over_simulated_ratio", "within_20pct",
              "modelled_ratio", "simulated_minus_first_s", "predicted_minus_first_s", "predicted_bisection_s",
              "bisection_ratio", "bisection_minus_first_s", "modelled_cost", "links"]
    with open(os.path.join(here, "time-model.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{r[k]:.6g}" if isinstance(r[k], float) else r[k]) for k in fields})
    with open(os.path.join(here, "time-model.md"), "w") as out:
        out.write(summary(rows))
    print(summary(rows))
    return 0


def summary(rows):
    cases = {}
    for r in rows:
        cases.setdefault(r["case"], []).append(r)
    fig5 = {c: g for c, g in cases.items() if not c.startswith("fig4a-")}
    lines = ["# place's time model (MODELLED) against SimGrid (SIMULATED): the tables", "",
             "Written by time_model.py from compact/ (README.md says what they mean). B/A: a mapping's time over "
             "the case's first mapping's; predicted with the platform's own links (`--link` per level), and on "
             "the fat trees also with the top level's rate times the rack switches' up-links (bisection).", "",
             "Fig. 5 at scale, and the trust cases (the emulated cluster's platform: 4 nodes on one switch, no "
             "latency; the traffic recorded), per case: Spearman between the simulated and predicted times of its mappings (and "
             "of the modelled cost), B/A of each other mapping, how many predicted B/A lie within 20 % of the "
             "simulated, and the differences B - A in ms (simulated / predicted / predicted with the bisection; "
             "what every mapping shares, the computation, cancels in them).", "",
             "| case | Spearman (simulated, predicted) | with the bisection | (simulated, modelled cost) | "
             "B/A simulated | B/A predicted | within 20 % | B - A ms: simulated / predicted / bisection | "
             "first mapping: simulated / predicted / bisection ms |",
             "|---|---|---|---|---|---|---|---|---|"]
    for case, group in fig5.items():
        sim = [g["simulated_s"] for g in group]
        others = group[1:]
        names = [g["mapping"] for g in others]
        rho = plot.spearman(sim, [g["predicted_s"] for g in group])
        wide = group[0]["predicted_bisection_s"] != ""
        rho_wide = f"{plot.spearman(sim, [g['predicted_bisection_s'] for g in group]):+.2f}" if wide else ""
        rho_cost = plot.spearman(sim, [g["modelled_cost"] for g in group])
        simulated = ", ".join(f"{n} {g['simulated_ratio']:.2f}" for n, g in zip(names, others))
        predicted = ", ".join(f"{g['predicted_ratio']:.2f}" for g in others)
        diffs = ", ".join(f"{1e3 * g['simulated_minus_first_s']:+.2f} / {1e3 * g['predicted_minus_first_s']:+.2f}"
                          + (f" / {1e3 * g['bisection_minus_first_s']:+.2f}" if wide else "") for g in others)
        first = group[0]
        lines.append(
            f"| {case} | {rho:+.2f} | {rho_wide} | {rho_cost:+.2f} | {simulated} | {predicted} | "
            f"{sum(g['within_20pct'] for g in others)} of {len(others)} | {diffs} | "
            f"{first['mapping']}: {1e3 * first['simulated_s']:.2f} / {1e3 * first['predicted_s']:.2f}"
            + (f" / {1e3 * first['predicted_bisection_s']:.2f}" if wide else "") + " |")
    # Fig. 4a: the same three mappings at every size; the PMPI view's against the PML view's, per variant.
    groups = {}
    for case, group in cases.items():
        if case.startswith("fig4a-"):
            _, np_, count, rate, variant = case.split("-")
            groups.setdefault((np_, rate, variant), []).append((int(count), group))
    if groups:
        lines += ["", "Fig. 4a: the PMPI view's mapping over the PML view's (B/A), at every size simulated (min-max "
                  "over sizes), predicted over simulated B/A, and the difference B - A predicted over simulated; "
                  "round-robin (cyclic) against the PML view's: simulated and predicted B/A.", "",
                  "| ranks | rate | variant | sizes (integers) | B/A simulated | B/A predicted | predicted / simulated "
                  "B/A | predicted / simulated B - A | cyclic B/A simulated / predicted |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for (np_, rate, variant), sized in sorted(groups.items(), key=lambda kv: (int(kv[0][0][2:]), kv[0][1], kv[0][2])):
            sized.sort(key=lambda x: x[0])
            by = [{g["mapping"]: g for g in group} for _, group in sized]
            span = lambda xs: f"{min(xs):.2f}" if f"{min(xs):.2f}" == f"{max(xs):.2f}" else f"{min(xs):.2f}-{max(xs):.2f}"  # noqa: E731
            sim = [m["pmpi"]["simulated_ratio"] for m in by]
            pred = [m["pmpi"]["predicted_ratio"] for m in by]
            over = [m["pmpi"]["predicted_over_simulated_ratio"] for m in by]
            diff = [m["pmpi"]["predicted_minus_first_s"] / m["pmpi"]["simulated_minus_first_s"] for m in by]
            cyc = f"{span([m['cyclic']['simulated_ratio'] for m in by])} / {span([m['cyclic']['predicted_ratio'] for m in by])}"
            sizes = f"{sized[0][0]:.0e}-{sized[-1][0]:.0e}" if len(sized) > 1 else f"{sized[0][0]:.0e}"
            lines.append(f"| {np_[2:]} | {rate} | {variant} | {sizes} | {span(sim)} | {span(pred)} | {span(over)} | "
                         f"{span(diff)} | {cyc} |")
    lines.append("")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
