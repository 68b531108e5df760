# The monitoring's counting cost across the network beside shared memory, from the analysis CSVs of
# `mpimon show RESULTS.h5 --csv` (run.sh): network-analysis.csv (2 nodes, tcp) and
# shared-analysis.csv (one host, vader). One row per operation and size, per transport: the time
# per call with the counting stopped (off), the counting's cost per call [95 % CI] (interleaved
# design, one observation per launch), and that cost as a share of the call's time [95 % CI]; a
# cost whose CI includes 0 is bounded by the CI's upper end, which the last column gives as a share.
import csv, sys


def load(path):
    rows = {}
    for r in csv.DictReader(open(path)):
        if r["design"] == "interleaved" and r["arm"] == "counting":
            rows[(r["op"], int(r["size"]))] = r
    return rows


def cell(r):
    if r is None:
        return "not measured", ""
    d, lo, hi = float(r["difference_ns"]), float(r["difference_ci_low_ns"]), float(r["difference_ci_high_ns"])
    off = float(r["off_ns"])
    sig = r["p_bh"] != "" and float(r["p_bh"]) < 0.05
    cost = f"{d:.1f} [{lo:.1f}, {hi:.1f}]{' *' if sig else ''} (n {r['pairs']})"
    if lo > 0 or hi < 0:
        share = f"{100 * d / off:+.2f} % [{100 * lo / off:+.2f}, {100 * hi / off:+.2f}]"
    else:
        share = f"CI includes 0: at most {hi:.1f} ns, {100 * hi / off:.2f} %"
    return f"{off:.0f} ns | {cost}", share


network = load(sys.argv[1] if len(sys.argv) > 1 else "network-analysis.csv")
shared = load(sys.argv[2] if len(sys.argv) > 2 else "shared-analysis.csv")
print("| operation | size (B) | 2 nodes, tcp: off | counting, ns per call [95 % CI] | share of the call | "
      "one host, vader: off | counting, ns per call [95 % CI] | share of the call |")
print("|---|---:|---:|---|---|---:|---|---|")
for op, size in sorted(set(network) | set(shared), key=lambda k: (["send", "alltoall"].index(k[0]) if k[0] in ("send", "alltoall") else 9, k[1])):
    n_cost, n_share = cell(network.get((op, size)))
    s_cost, s_share = cell(shared.get((op, size)))
    print(f"| {op} | {size} | {n_cost} | {n_share} | {s_cost} | {s_share} |")
