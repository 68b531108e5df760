#!/usr/bin/env python3
"""A time-independent trace (SMPI's -trace-ti format, one file per rank and an index) of the reduce
Open MPI carried out in a recording: its internal messages, as `mpimon export pairs RECORDING.h5
--classes internal` writes them (the monitoring's PML view of the forced binary reduce; the pairs
without bytes, the barriers' messages, left out), one message per tree edge
as Open MPI 4.1.4 sends it with coll_tuned_reduce_algorithm 4 and no segment size (SMPI's own
ompi_binary cuts the buffer into 32 KB segments), each rank receiving from its children one after
the other, then sending to its parent; between two barriers, as mpimon-run-collective --skip
--iterations 1 runs it. With --flops-per-byte F, each child's contribution is reduced by a compute
action of F x its bytes (SMPI never times the arithmetic of a reduction: Op::apply runs inside the
MPI call).

With --scale K, every message carries K times its recorded bytes (the same reduce on a buffer K times
larger: Fig. 4a's sizes from one recording).

Usage: reduce_trace.py PAIRS.csv RANKS OUT_PREFIX [--flops-per-byte F] [--scale K]  -> OUT_PREFIX.txt, OUT_PREFIX/"""
import argparse
import csv
import os


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("pairs")
    parser.add_argument("ranks", type=int)
    parser.add_argument("out")
    parser.add_argument("--flops-per-byte", type=float, default=0.0)
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    ranks = args.ranks
    sent = [[0] * ranks for _ in range(ranks)]
    with open(args.pairs, newline="") as f:
        for row in csv.DictReader(f):
            sent[int(row["from"])][int(row["to"])] = round(int(row["bytes"]) * args.scale)
    os.makedirs(args.out, exist_ok=True)
    index = []
    for r in range(ranks):
        lines = [f"{r} init", f"{r} barrier"]
        for child in (s for s in range(ranks) if sent[s][r] > 0):
            lines.append(f"{r} recv {child} 0 {int(sent[child][r])} 6")
            if args.flops_per_byte > 0:
                lines.append(f"{r} compute {args.flops_per_byte * sent[child][r]:.0f}")
        lines += [f"{r} send {d} 0 {int(sent[r][d])} 6" for d in range(ranks) if sent[r][d] > 0]
        lines += [f"{r} barrier", f"{r} finalize"]
        path = os.path.abspath(os.path.join(args.out, f"rank-{r}.txt"))
        with open(path, "w") as out:
            out.write("\n".join(lines) + "\n")
        index.append(path)
    with open(args.out + ".txt", "w") as out:
        out.write("\n".join(index) + "\n")


if __name__ == "__main__":
    main()
