#!/usr/bin/env python3
"""The time model of docs/placement.md ("The time model") recomputed from a matrices file read with
h5py alone, for every mapping of a `mpimon place --json` report: each row's predicted_seconds (and its
bandwidth and latency parts) must equal this computation (relative 1e-9).

- flows: bytes and messages i -> j of the classes external + internal (point-to-point), rendezvous
  messages = those of the pair's histogram in buckets of at least 64 KiB (bucket k >= 1 holds
  2^(k-1) .. 2^k - 1 bytes), at most the pair's messages;
- a flow between leaves a and b whose top-down digits first differ at level c loads, for every level
  k >= c, the link of the sender's subtree (its first k + 1 digits) outwards and the receiver's
  inwards; a level's links have the report's rate (bits/s; 0: free) and latency;
- bandwidth part: the largest bytes x 8 / rate over links and directions; latency part: the largest,
  over ranks, of sum over its flows of (messages + 2 x rendezvous) x 2 x (latencies of levels c..L-1).

Usage: check_time_model.py MATRICES.h5 REPORT.json   (prints "ok", or the differences and exits 1)"""
import json
import sys

import h5py
import numpy as np


def flows(path):
    with h5py.File(path, "r") as f:
        dump = f[list(f.keys())[0]]
        b = dump["external/bytes"][()].astype(float) + dump["internal/bytes"][()].astype(float)
        m = dump["external/count"][()].astype(float) + dump["internal/count"][()].astype(float)
        large = {}
        h = dump["histogram"]
        pairs, indptr, bucket, count = h["pairs"][()], h["indptr"][()], h["bucket"][()], h["count"][()]
        for k, (rank, peer) in enumerate(pairs):
            n = sum(int(c) for bk, c in zip(bucket[indptr[k]:indptr[k + 1]], count[indptr[k]:indptr[k + 1]])
                    if bk >= 1 and 2 ** (int(bk) - 1) >= 65536)
            large[(int(rank), int(peer))] = large.get((int(rank), int(peer)), 0) + n
    n = b.shape[0]
    return [(i, j, b[i, j], m[i, j], min(large.get((i, j), 0), m[i, j]))
            for i in range(n) for j in range(n) if i != j and (b[i, j] or m[i, j])], n


def digits(leaf, arity):
    d = []
    for a in reversed(arity):
        d.append(leaf % a)
        leaf //= a
    return d[::-1]


def predict(fl, n, arity, rates, latencies, mapping):
    load, lat = {}, [0.0] * n
    for i, j, b, m, r in fl:
        di, dj = digits(mapping[i], arity), digits(mapping[j], arity)
        c = next((k for k in range(len(arity)) if di[k] != dj[k]), len(arity))
        for k in range(c, len(arity)):
            load[(k, tuple(di[:k + 1]), "out")] = load.get((k, tuple(di[:k + 1]), "out"), 0) + b
            load[(k, tuple(dj[:k + 1]), "in")] = load.get((k, tuple(dj[:k + 1]), "in"), 0) + b
        lat[i] += (m + 2 * r) * 2 * sum(latencies[c:])
    bw = max([v * 8 / rates[k[0]] for k, v in load.items() if rates[k[0]] > 0] + [0.0])
    return bw, max(lat)


def main(matrices, report_path):
    report = json.load(open(report_path))
    tleaf = report["topology"]["tleaf"].split()
    levels = int(tleaf[1])
    arity = [int(tleaf[2 + 2 * l]) for l in range(levels)]
    rates = [l["bits_per_second"] for l in report["links"]]
    latencies = [l["latency_seconds"] for l in report["links"]]
    fl, n = flows(matrices)
    bad = 0
    for row in report["methods"]:
        if "mapping" not in row or "draws" in row:  # random's row holds the mean over its draws
            continue
        bw, lat = predict(fl, n, arity, rates, latencies, row["mapping"])
        for key, want in (("predicted_bandwidth_seconds", bw), ("predicted_latency_seconds", lat),
                          ("predicted_seconds", bw + lat)):
            if not np.isclose(row[key], want, rtol=1e-9, atol=1e-15):
                print(f"{row['method']}: {key} {row[key]} against {want}")
                bad += 1
    print("ok" if bad == 0 else f"{bad} differences")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main(*sys.argv[1:])
