#!/usr/bin/env python3
"""The measured tables of README.md: each mapping's time beside its modelled cost, and per case
whether the model orders the mappings as the clock does (Spearman's rank correlation of the
modelled costs and the times relative to A's in the same launch pairs, as the figures compute it:
analysis/scripts/plot_placement_measured.py).

Usage: summarise.py FIGURE-measured.csv   (written by run.sh); prints Markdown.
"""

import csv
import importlib.util
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


if __name__ == "__main__":
    main(sys.argv[1])
