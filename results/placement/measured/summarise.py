#!/usr/bin/env python3
"""The measured tables of README.md: each mapping's time beside its modelled cost, and per case
whether the model orders the mappings as the clock does (Spearman's rank correlation of the
modelled costs and the times relative to A's in the same launch pairs, as the figures compute it:
analysis/scripts/plot_placement_measured.py).

Usage: summarise.py FIGURE-measured.csv   (written by run.sh); prints Markdown.
       summarise.py --predicted FIGURE-measured.csv   the same comparisons against the time model's
       predictions (predicted.csv beside it): predicted and measured B/A, predicted and measured
       B - A, and per case Spearman's correlation of the predicted and the measured times.
       summarise.py --objective objective-measured.csv   --objective time against hop-bytes.
       summarise.py --ordered ordered-measured.csv   the ordered model on a case it was not made on.
"""

import contextlib
import csv
import importlib.util
import io
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "plot_placement_measured", os.path.join(here, "../../../analysis/scripts/plot_placement_measured.py"))
plot = importlib.util.module_from_spec(spec)
spec.loader.exec_module(plot)


def main(path):
    rows = list(csv.DictReader(open(path)))
    print("| case | A | B | A ms | B ms | B - A ms [95 % CI] | pairs | load | modelled A | modelled B | B/A modelled |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    cases = {}
    for r in rows:
        ms = lambda key: f"{1000 * float(r[key]):+.1f}"  # noqa: E731
        case = cases.setdefault(r["case"], {"names": [r["arm_a"]], "modelled": [float(r["modelled_a"])],
                                            "measured": [1.0]})
        ratio = f"{float(r['modelled_b']) / float(r['modelled_a']):.2f}"
        if not r["mean_a_s"]:  # the same rankfile as A: not timed
            print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | - | - | same mapping as A: not timed | 0 | - | "
                  f"{float(r['modelled_a']):.4g} | {float(r['modelled_b']):.4g} | {ratio} |")
            continue
        case["names"].append(r["arm_b"])
        case["modelled"].append(float(r["modelled_b"]))
        case["measured"].append(float(r["mean_b_s"]) / float(r["mean_a_s"]))
        print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | {1000 * float(r['mean_a_s']):.1f} | "
              f"{1000 * float(r['mean_b_s']):.1f} | {ms('b_minus_a_s')} [{ms('ci95_low_s')}, {ms('ci95_high_s')}] | "
              f"{r['pairs']} | {r['load_before']}-{r['load_after']} | {float(r['modelled_a']):.4g} | "
              f"{float(r['modelled_b']):.4g} | {ratio} |")
    print()
    for name, case in cases.items():
        if len(case["names"]) < 2:
            continue
        rho = plot.spearman(case["modelled"], case["measured"])
        print(f"- {name}: Spearman rank correlation of modelled cost and measured time over "
              f"{', '.join(case['names'])}: {rho:+.2f}")


def predicted_table(path):
    rows = list(csv.DictReader(open(path)))
    pred = {(r["case"], r["arm"]): r for r in csv.DictReader(open(os.path.join(os.path.dirname(path), "predicted.csv")))}
    print("| case | A | B | predicted A s | predicted B s | B/A predicted | B/A measured | predicted / measured B/A "
          "| B - A predicted s | B - A measured s [95 % CI] |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    cases = {}
    for r in rows:
        pa, pb = (float(pred[(r["case"], arm)]["predicted_s"]) for arm in (r["arm_a"], r["arm_b"]))
        case = cases.setdefault(r["case"], {"names": [r["arm_a"]], "predicted": [1.0], "measured": [1.0]})
        if not r["mean_a_s"]:
            print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | {pa:.4g} | {pb:.4g} | {pb / pa:.2f} | "
                  "same mapping: not timed | - | - | - |")
            continue
        ma, mb = float(r["mean_a_s"]), float(r["mean_b_s"])
        case["names"].append(r["arm_b"])
        case["predicted"].append(pb / pa)
        case["measured"].append(mb / ma)
        print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | {pa:.4g} | {pb:.4g} | {pb / pa:.2f} | {mb / ma:.2f} | "
              f"{(pb / pa) / (mb / ma):.2f} | {pb - pa:+.3f} | {mb - ma:+.3f} [{float(r['ci95_low_s']):+.3f}, "
              f"{float(r['ci95_high_s']):+.3f}] |")
    print()
    for name, case in cases.items():
        if len(case["names"]) > 1:
            print(f"- {name}: Spearman rank correlation of predicted and measured time over "
                  f"{', '.join(case['names'])}: {plot.spearman(case['predicted'], case['measured']):+.2f}")


def objective_table(path):
    rows = list(csv.DictReader(open(path)))
    pred = {r["case"]: r for r in csv.DictReader(open(os.path.join(os.path.dirname(path), "objective-predicted.csv")))}
    print("| case | np | rate | predicted hop-bytes s | predicted time s | measured hop-bytes s | measured time s "
          "| time - hop-bytes measured s [95 % CI] | pairs | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        p = pred[r["case"]]
        measured = ("same mapping: not timed | - | - | 0 | -" if not r["mean_a_s"] else
                    f"{float(r['mean_a_s']):.3f} | {float(r['mean_b_s']):.3f} | {float(r['b_minus_a_s']):+.3f} "
                    f"[{float(r['ci95_low_s']):+.3f}, {float(r['ci95_high_s']):+.3f}] | {r['pairs']} | "
                    f"{r['load_before']}-{r['load_after']}")
        print(f"| {r['case']} | {r['np']} | {p['rate']} | {float(p['predicted_hop_bytes_s']):.4g} | "
              f"{float(p['predicted_time_s']):.4g} | {measured} |")


def ordered_table(path):
    """The ordered model on a case it was not made on (ordered-measured.csv, ordered-predicted.csv
    beside it): each comparison's B - A predicted in one phase and in order, and measured."""
    rows = list(csv.DictReader(open(path)))
    pred = {(r["case"], r["arm"]): r for r in csv.DictReader(open(os.path.join(os.path.dirname(path), "ordered-predicted.csv")))}
    print("| case | A | B | one phase A, B s | in order A, B s | B - A one phase s | B - A in order s | "
          "B - A measured s [95 % CI] | pairs | load |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        a, b = pred[(r["case"], r["arm_a"])], pred[(r["case"], r["arm_b"])]
        phase = [float(x["predicted_s"]) for x in (a, b)]
        order = [float(x["ordered_s"]) for x in (a, b)]
        measured = ("same mapping: not timed | 0 | -" if not r["mean_a_s"] else
                    f"{float(r['b_minus_a_s']):+.3f} [{float(r['ci95_low_s']):+.3f}, {float(r['ci95_high_s']):+.3f}] | "
                    f"{r['pairs']} | {r['load_before']}-{r['load_after']}")
        print(f"| {r['case']} | {r['arm_a']} | {r['arm_b']} | {phase[0]:.3f}, {phase[1]:.3f} | {order[0]:.3f}, "
              f"{order[1]:.3f} | {phase[1] - phase[0]:+.3f} | {order[1] - order[0]:+.3f} | {measured} |")


def printed(function, *args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        function(*args)
    return out.getvalue().strip()


def difference(folder, name, case, arm_b):
    """A comparison's B - A as the README gives it, "+2.83 s [+0.33, +5.32] (16 pairs, load 19-55)",
    from the row of CASE and ARM_B in the CSV NAME."""
    with open(os.path.join(folder, name)) as f:
        r = next(r for r in csv.DictReader(f) if (r["case"], r["arm_b"]) == (case, arm_b))
    return (f"{float(r['b_minus_a_s']):+.2f} s [{float(r['ci95_low_s']):+.2f}, {float(r['ci95_high_s']):+.2f}] "
            f"({r['pairs']} pairs, load {float(r['load_before']):.0f}, then {float(r['load_after']):.0f})")


def ordered_seconds(folder, report, method):
    """The ordered model's prediction of a method's mapping in a committed place --json report."""
    with open(os.path.join(folder, "json", report)) as f:
        return next(m for m in json.load(f)["methods"] if m["method"] == method)["computed_ordered_seconds"]


def ordered_figures(folder):
    """Per mapping of ordered-measured.csv (round-robin, random): the ordered model's predicted B - A
    (one phase in brackets) and every measurement of it, "+1.30 s [+0.98, +1.61] and ..."."""
    with open(os.path.join(folder, "ordered-predicted.csv")) as f:
        pred = {(r["case"], r["arm"]): r for r in csv.DictReader(f)}
    with open(os.path.join(folder, "ordered-measured.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["mean_a_s"]]
    out = {}
    for arm in dict.fromkeys(r["arm_b"] for r in rows):
        mine = [r for r in rows if r["arm_b"] == arm]
        predicted = {(float(pred[(r["case"], arm)][k]) - float(pred[(r["case"], r["arm_a"])][k])) for r in mine
                     for k in ("ordered_s", "predicted_s")}
        first = mine[0]
        order = float(pred[(first["case"], arm)]["ordered_s"]) - float(pred[(first["case"], first["arm_a"])]["ordered_s"])
        phase = float(pred[(first["case"], arm)]["predicted_s"]) - float(pred[(first["case"], first["arm_a"])]["predicted_s"])
        if len(predicted) > 2:
            raise ValueError(f"ordered-predicted.csv: {arm}'s predictions differ between its cases")
        out[f"ordered-{arm}-predicted"] = f"{order:+.2f} s in order ({phase:+.2f} s in one phase)"
        out[f"ordered-{arm}-measured"] = " and ".join(
            f"{float(r['b_minus_a_s']):+.2f} s [{float(r['ci95_low_s']):+.2f}, {float(r['ci95_high_s']):+.2f}]" for r in mine)
        if arm != "cyclic":
            continue
        # Round-robin's: A's own times, and what the order adds to the two mappings' predictions.
        out["ordered-cyclic-a-times"] = " and ".join(f"{float(r['mean_a_s']):.2f} s" for r in mine)
        added = {round(float(pred[(r["case"], x)]["ordered_s"]) - float(pred[(r["case"], x)]["predicted_s"]), 2)
                 for r in mine for x in (r["arm_a"], arm)}
        out["ordered-cyclic-added"] = " and ".join(f"{v:.2f} s" for v in sorted(added))
    loads = [float(r[k]) for r in rows for k in ("load_before", "load_after")]
    out["ordered-load"] = f"{min(loads):.0f} to {max(loads):.0f}"
    return out


def readme_figures(folder):
    """README.md's generated figures (results/readme_figures.py): this script's tables, and the figures
    the text quotes, from the committed CSVs and json/ reports alone."""
    path = lambda name: os.path.join(folder, name)  # noqa: E731
    only_table = lambda text: "\n".join(line for line in text.split("\n") if line.startswith("|"))  # noqa: E731
    # The ordered model on the 32-rank reduce: round-robin (cyclic, the time objective's choice then)
    # against the hop-bytes choice (multisection), from the report of the ordered guard's run.
    report = "objective-np32-10000000-ordered-time.json"
    cyclic, choice = (ordered_seconds(folder, report, m) for m in ("cyclic", "multisection"))
    return {
        "fig4a-table": printed(main, path("fig4a-measured.csv")),
        "fig5-table": printed(main, path("fig5-measured.csv")),
        "fig4a-predicted-table": only_table(printed(predicted_table, path("fig4a-measured.csv"))),
        "fig5-predicted-table": only_table(printed(predicted_table, path("fig5-measured.csv"))),
        "objective-table": printed(objective_table, path("objective-measured.csv")),
        "ordered-table": printed(ordered_table, path("ordered-measured.csv")),
        "fig4a-np32-cyclic": difference(folder, "fig4a-measured.csv", "np32-10000000", "cyclic"),
        "objective-np32-first": difference(folder, "objective-measured.csv", "np32-10000000", "time"),
        "objective-np32-again": difference(folder, "objective-measured.csv", "np32-10000000-again", "time"),
        "ordered-np32-cyclic": f"{cyclic:.2f} s",
        "ordered-np32-choice": f"{choice:.2f} s",
        "ordered-np32-difference": f"{cyclic - choice:+.2f} s",
        **ordered_figures(folder),
    }


if __name__ == "__main__":
    if sys.argv[1] == "--predicted":
        predicted_table(sys.argv[2])
    elif sys.argv[1] == "--objective":
        objective_table(sys.argv[2])
    elif sys.argv[1] == "--ordered":
        ordered_table(sys.argv[2])
    else:
        main(sys.argv[1])
