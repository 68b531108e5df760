#!/usr/bin/env python3
"""plot_scale.py DIR PREFIX: from DIR/runs.csv and DIR/KIND-RANKS.json (mpimon place --json),
draws PREFIX.png/.svg (left: each method's modelled cost relative to the cheapest row of the same
instance, KaHIP's from DIR/kahip.csv when kahip.sh wrote it; right: each method's time and the
whole command's wall time, against the ranks) and writes PREFIX.md (the same numbers as a table)."""
import csv
import glob
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

directory, prefix = sys.argv[1], sys.argv[2]
runs = {(r["kind"], int(r["ranks"])): r for r in csv.DictReader(open(os.path.join(directory, "runs.csv")))}
rows = []
for path in sorted(glob.glob(os.path.join(directory, "*.json"))):
    d = json.load(open(path))
    kind = os.path.basename(path).rsplit("-", 1)[0]
    costs = [m["cost_mean"] if "cost_mean" in m else m["cost"] for m in d["methods"] if "cost" in m]
    best = min(costs)
    for m in d["methods"]:
        cost = m.get("cost_mean", m.get("cost"))
        rows.append({"kind": kind, "ranks": d["ranks"], "method": m["method"], "chosen": m["method"] == d["chosen"],
                     "relative": cost / best if cost is not None else None, "seconds": m.get("seconds"),
                     "skipped": m.get("unavailable", ""), "bound": d["lower_bound"], "best": best})
# KaHIP's global_multisection, measured off-repository by kahip.sh: the cheaper preconfiguration
# after repair, relative to the cheapest of all (mpimon's rows and KaHIP's).
kahip_csv = os.path.join(directory, "kahip.csv")
kahip = {}
for r in csv.DictReader(open(kahip_csv)) if os.path.exists(kahip_csv) else []:
    key = (r["kind"], int(r["ranks"]))
    if key not in kahip or int(r["cost"]) < int(kahip[key]["cost"]):
        kahip[key] = r
# KaHIP's raw mapping repaired and refined by mpimon (--start-mapping, methods given and refine): the
# cheaper preconfiguration after refine; its time is KaHIP's plus mpimon's.
refined = {}
for r in csv.DictReader(open(kahip_csv)) if os.path.exists(kahip_csv) else []:
    key = (r["kind"], int(r["ranks"]))
    if r.get("refined_cost") and (key not in refined or int(r["refined_cost"]) < int(refined[key]["refined_cost"])):
        refined[key] = r
KAHIP, REFINED = "kahip (off-repo)", "kahip + mpimon refine (off-repo)"
for (kind, n), k in kahip.items():
    same = [r for r in rows if r["kind"] == kind and r["ranks"] == n]
    if not same:
        continue
    polished = refined.get((kind, n))
    best = min([same[0]["best"], int(k["cost"])] + ([int(polished["refined_cost"])] if polished else []))
    for r in same:
        r["relative"] = r["relative"] * r["best"] / best if r["relative"] else None
        r["best"] = best
    rows.append({"kind": kind, "ranks": n, "method": KAHIP, "chosen": False, "relative": int(k["cost"]) / best,
                 "seconds": float(k["wall_s"]), "skipped": "", "bound": same[0]["bound"], "best": best,
                 "unrepaired": int(k["cost_before_repair"]) / best, "preconfiguration": k["preconfiguration"]})
    if polished:
        rows.append({"kind": kind, "ranks": n, "method": REFINED, "chosen": False,
                     "relative": int(polished["refined_cost"]) / best,
                     "seconds": float(polished["wall_s"]) + float(polished["refine_wall_s"]), "skipped": "",
                     "bound": same[0]["bound"], "best": best, "preconfiguration": polished["preconfiguration"]})
methods = list(dict.fromkeys(r["method"] for r in rows))
kinds = sorted(set(r["kind"] for r in rows))
markers = dict(zip(kinds, "osD^v<>"))
fig, (quality, timing) = plt.subplots(1, 2, figsize=(13, 5))
for i, method in enumerate(methods):
    color = f"C{i}"
    for kind in kinds:
        pts = sorted((r["ranks"], r["relative"]) for r in rows if r["method"] == method and r["kind"] == kind and r["relative"])
        if pts:
            quality.plot(*zip(*pts), marker=markers[kind], color=color, linestyle="-", alpha=0.8,
                         label=method if kind == kinds[0] else None)
        pts = sorted((r["ranks"], max(r["seconds"], 1e-3)) for r in rows if r["method"] == method and r["kind"] == kind
                     and r["seconds"] is not None and not r["skipped"])
        if pts:
            timing.plot(*zip(*pts), marker=markers[kind], color=color, linestyle="-", alpha=0.8,
                        label=method if kind == kinds[0] else None)
for kind in kinds:
    pts = sorted((n, float(r["wall_s"])) for (k, n), r in runs.items() if k == kind)
    timing.plot(*zip(*pts), marker=markers[kind], color="black", linestyle="--", label="whole command" if kind == kinds[0] else None)
quality.set_xscale("log")
quality.set_yscale("log")
quality.set_xlabel("ranks")
quality.set_ylabel("modelled cost / cheapest row of the instance")
quality.set_title("Quality (modelled; markers: " + ", ".join(f"{k} {markers[k]}" for k in kinds) + ")")
quality.legend(fontsize=8)
timing.set_xscale("log")
timing.set_yscale("log")
timing.set_xlabel("ranks")
timing.set_ylabel("seconds (wall clock, loaded 2-core host)")
timing.set_title("Time per method and of the whole command")
timing.legend(fontsize=8)
fig.tight_layout()
fig.savefig(prefix + ".png", dpi=110)
fig.savefig(prefix + ".svg")
with open(prefix + ".md", "w") as out:
    out.write("| instance | ranks | " + " | ".join(methods) + " | lower bound / best | command wall s | user s | peak MB |\n")
    out.write("|---|---:|" + "---:|" * len(methods) + "---:|---:|---:|---:|\n")
    for kind in kinds:
        for n in sorted(set(r["ranks"] for r in rows if r["kind"] == kind)):
            cells = []
            for method in methods:
                r = next((r for r in rows if r["kind"] == kind and r["ranks"] == n and r["method"] == method), None)
                if r is None or r["relative"] is None:
                    cells.append("skipped" if r and r["skipped"] else "-")
                else:
                    extra = f", {r['preconfiguration']}" if "preconfiguration" in r else ""
                    extra += f"; {r['unrepaired']:.3f} unrepaired" if "unrepaired" in r else ""
                    cells.append(f"{r['relative']:.3f}{'*' if r['chosen'] else ''} ({r['seconds']:.1f} s{extra})")
            some = next(r for r in rows if r["kind"] == kind and r["ranks"] == n)
            run = runs.get((kind, n), {})
            out.write(f"| {kind} | {n} | " + " | ".join(cells) + f" | {some['bound'] / some['best']:.3f} | "
                      f"{run.get('wall_s', '-')} | {run.get('user_s', '-')} | {int(run.get('peak_kb', 0)) // 1024} |\n")
