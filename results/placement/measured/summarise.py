#!/usr/bin/env python3
"""The measured Fig. 4a table: each placement's time beside its modelled cost, and whether the model
orders the placements as the clock does (Spearman's rank correlation over every arm and size).

Usage: summarise.py fig4a-measured.csv   (written by run.sh); prints a Markdown table.
"""

import csv
import sys
from collections import defaultdict


def ranks(values):
    """Average ranks (1-based), ties sharing the mean of their positions."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    result = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            result[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(x, y):
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    num = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    den = (sum((a - mx) ** 2 for a in rx) * sum((b - my) ** 2 for b in ry)) ** 0.5
    return num / den if den else float("nan")


def main(path):
    rows = list(csv.DictReader(open(path)))
    times = defaultdict(list)  # (count, arm) -> mean times (the PML arm is in every comparison)
    costs = {}
    print("| integers | A | B | A ms | B ms | B - A ms [95 % CI] | pairs | modelled A | modelled B |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        a, b, count = r["arm_a"], r["arm_b"], r["count"]
        times[(count, a)].append(float(r["mean_a_s"]))
        times[(count, b)].append(float(r["mean_b_s"]))
        costs[(count, a)], costs[(count, b)] = float(r["modelled_a"]), float(r["modelled_b"])
        ms = lambda key: f"{1000 * float(r[key]):+.2f}"  # noqa: E731
        print(f"| {count} | {a} | {b} | {1000 * float(r['mean_a_s']):.2f} | {1000 * float(r['mean_b_s']):.2f} | "
              f"{ms('b_minus_a_s')} [{ms('ci95_low_s')}, {ms('ci95_high_s')}] | {r['pairs']} | "
              f"{float(r['modelled_a']):.4g} | {float(r['modelled_b']):.4g} |")
    for count in sorted({c for c, _ in costs}, key=int):
        keys = [k for k in costs if k[0] == count]
        measured = [sum(times[k]) / len(times[k]) for k in keys]
        modelled = [costs[k] for k in keys]
        print(f"\n{count} integers: Spearman rank correlation of modelled cost and measured time over "
              f"{', '.join(k[1] for k in keys)}: {spearman(modelled, measured):+.2f}")


if __name__ == "__main__":
    main(sys.argv[1])
