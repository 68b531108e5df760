# The same injected loop, in the same interleaved launches, recovered before different operations:
# does its cost depend on where it runs? Reads calNS.h5 (run.sh) when present and writes
# calNSns-interleaved.csv (each interleaved launch's recovered cost per cell: the mean over its ABBA
# block pairs of on minus off, each block summarised by its interquartile mean, recomputed here
# independently of mpimon's analysis); then, from the CSVs, prints per requested cost each cell's
# mean over launches with its 95 % CI and, for every two cells, the CI of their difference paired by
# launch. A difference whose CI excludes 0 means no single delivered cost can lie in both cells'
# intervals. Needs numpy and scipy (and h5py for the extraction; /usr/bin/python3 on Debian).
import csv
import itertools
import os
import re
import sys

import numpy as np
from scipy import stats

# The one reader of results files (analysis/scripts/mpimon_results.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../analysis/scripts"))
from mpimon_results import launches, read_configuration  # noqa: E402

CELLS = (("send", 0), ("send", 64), ("alltoall", 0), ("alltoall", 64))


def iqm(block):
    s = np.sort(block)
    lo = len(s) // 4
    hi = max(lo + 1, len(s) - len(s) // 4)
    return s[lo:hi].mean()


def block_states(count):
    return [k % 4 in (0, 3) for k in range(count)]


def extract(ns):
    path = f"cal{ns}.h5"
    design = read_configuration(path)[0]["design"]  # "both (blocks of 50 iterations, ABBA)"
    block = int(re.search(r"blocks of (\d+) iterations", design).group(1))
    with open(f"cal{ns}ns-interleaved.csv", "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["launch", "op", "size", "recovered_ns"])
        for name, attrs, benchmarks in launches(path):
            if not attrs["arm"].startswith("interleaved") or attrs["status"] != "ok":
                continue
            for op, size, x in benchmarks:
                blocks = [iqm(x[k * block:(k + 1) * block]) for k in range(len(x) // block)]
                on = [b for b, s in zip(blocks, block_states(len(blocks))) if s]
                off = [b for b, s in zip(blocks, block_states(len(blocks))) if not s]
                w.writerow([name, op, size, f"{np.mean(on) - np.mean(off):.4f}"])


def ci(values):
    v = np.asarray(values)
    half = stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / np.sqrt(len(v))
    return v.mean(), v.mean() - half, v.mean() + half


for ns in (2, 5, 10, 20, 50):
    if os.path.exists(f"cal{ns}.h5"):
        extract(ns)
    per = {}
    for row in csv.DictReader(open(f"cal{ns}ns-interleaved.csv")):
        per.setdefault((row["op"], int(row["size"])), {})[row["launch"]] = float(row["recovered_ns"])
    print(f"{ns} ns requested, interleaved, {len(per[CELLS[0]])} launches:")
    for cell in CELLS:
        m, lo, hi = ci(list(per[cell].values()))
        print(f"  {cell[0]} {cell[1]} B: {m:.2f} [{lo:.2f}, {hi:.2f}]")
    for a, b in itertools.combinations(CELLS, 2):
        common = sorted(set(per[a]) & set(per[b]))
        m, lo, hi = ci([per[a][k] - per[b][k] for k in common])
        print(f"  {a[0]} {a[1]} B - {b[0]} {b[1]} B: {m:+.2f} [{lo:+.2f}, {hi:+.2f}]"
              + ("  differ" if lo > 0 or hi < 0 else ""))
