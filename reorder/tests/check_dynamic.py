#!/usr/bin/env python3
"""Judges a run of mpimon-reorder-demo (docs/reorder.md#the-dynamic-path) from its own lines and
a matrices file read here with h5py (never with mpimon):

  check_dynamic.py OUTPUT --recording FILE.h5   the call's source was that recording: the weight
      between nodes the library claims before and after equals the recording's traffic (external +
      internal bytes of its only dump) summed over the pairs the demo's RANK lines put on different
      hosts, vertex v on world rank v's host, then on the host of
      the process the call gave rank v;
  check_dynamic.py OUTPUT --collected FILE.h5   the run was `mpimon collect`'s with source
      "monitoring": phase_2 (the second exchange alone) between hosts, read from the file, equals the
      demo's ledger for it and the weight the library modelled after the call; the library's weight
      before equals the ledger of the first exchange between hosts.

Both: the first exchange put every byte between hosts (the scramble), the second half of them (16
of the 32 grid edges of a 4 x 4 torus on 4 nodes of 4: the optimum, by construction: 4 vertices of a
triangle-free grid hold at most 4 edges). Exits 1 on any failure."""
import re
import sys

import h5py
import numpy as np


def matrix(group, n):
    if isinstance(group, h5py.Dataset):
        return group[()].astype(np.float64)
    m = np.zeros((n, n))
    data, indices, indptr = group["data"][()], group["indices"][()], group["indptr"][()]
    for i in range(n):
        m[i, indices[indptr[i]:indptr[i + 1]]] = data[indptr[i]:indptr[i + 1]]
    return m


def traffic(path, dump=None):
    with h5py.File(path) as f:
        names = [k for k in f.keys() if isinstance(f[k], h5py.Group) and "nprocs" in f[k].attrs]
        d = f[dump or names[0]]
        n = int(d.attrs["nprocs"])
        return matrix(d["external/bytes"], n) + matrix(d["internal/bytes"], n)


def between(w, host_of_vertex):
    n = len(host_of_vertex)
    return sum(w[i, j] for i in range(n) for j in range(n) if host_of_vertex[i] != host_of_vertex[j])


def main():
    text = open(sys.argv[1]).read()
    failures = []

    def expect(ok, why):
        if not ok:
            failures.append(why)

    ranks = [tuple(m.groups()) for m in re.finditer(r"^RANK world=(\d+) new=(\d+) host=(\S+)", text, re.M)]
    host_of_world = {int(w): h for w, _, h in ranks}
    host_of_new = {int(v): h for _, v, h in ranks}
    n = len(ranks)
    phase = {int(m.group(1)): (int(m.group(2)), int(m.group(3)))
             for m in re.finditer(r"^PHASE (\d) bytes=(\d+) between_nodes=(\d+)", text, re.M)}
    reorder = re.search(r"^REORDER reordered=(\d) before=(\d+) after=(\d+)", text, re.M)
    expect(n > 0 and sorted(host_of_new) == list(range(n)), f"{n} RANK lines, not a permutation")
    expect(reorder is not None, "no REORDER line")
    expect(set(phase) == {1, 2}, "no PHASE lines")
    if failures or reorder is None:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    claimed_before, claimed_after = int(reorder.group(2)), int(reorder.group(3))
    expect(reorder.group(1) == "1", "the call kept the order")
    expect(phase[1][1] == phase[1][0], f"phase 1: {phase[1][1]} of {phase[1][0]} bytes between hosts, not all")
    expect(2 * phase[2][1] == phase[2][0], f"phase 2: {phase[2][1]} of {phase[2][0]} bytes between hosts, not half")
    if "--recording" in sys.argv:
        w = traffic(sys.argv[sys.argv.index("--recording") + 1])
        before = between(w, [host_of_world[v] for v in range(n)])
        after = between(w, [host_of_new[v] for v in range(n)])
        expect(before == claimed_before, f"the recording has {before:.0f} bytes between hosts, the library claims {claimed_before}")
        expect(after == claimed_after, f"on the new order the recording has {after:.0f} bytes between hosts, the library claims {claimed_after}")
        print(f"recording: between hosts {before:.0f} -> {after:.0f} bytes (claimed {claimed_before} -> {claimed_after})")
    else:
        path = sys.argv[sys.argv.index("--collected") + 1]
        w2 = traffic(path, "phase_2")
        on_hosts = between(w2, [host_of_world[v] for v in range(n)])  # the matrices count world ranks
        expect(w2.sum() == phase[2][0], f"phase_2 holds {w2.sum():.0f} bytes, the exchange sent {phase[2][0]}")
        expect(on_hosts == phase[2][1], f"phase_2: {on_hosts:.0f} bytes between hosts, the ledger {phase[2][1]}")
        expect(on_hosts == claimed_after, f"phase_2: {on_hosts:.0f} bytes between hosts, the library modelled {claimed_after}")
        expect(claimed_before == phase[1][1], f"the library read {claimed_before} bytes between hosts before, the first exchange sent {phase[1][1]}")
        print(f"collected phase_2: {on_hosts:.0f} of {w2.sum():.0f} bytes between hosts; modelled {claimed_before} -> {claimed_after}")
    print(f"ledger: phase 1 {phase[1][1]} of {phase[1][0]} bytes between hosts, phase 2 {phase[2][1]} of {phase[2][0]}")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
