#!/usr/bin/env python3
"""Synthetic process graphs for the placement scaling figures, written as Open MPI monitoring
.prof files (one per rank, E lines only) that mpimon-merge reads like a recorded run.

  instances.py KIND RANKS DIR/NAME [--seed S]

KIND:
  mesh     a 3-D grid of blocks (26 neighbours: faces ~1e6 bytes, edges ~1e5, corners ~1e4, +-50 %),
           the block numbers shuffled: an application whose rank order ignores its geometry
  rgg      a random geometric graph in the unit square (about 8 neighbours), weights 1e4..1e6,
           ranks in random order: an irregular sparse graph
  delaunay the Delaunay triangulation of random points in the unit square (about 6 neighbours, the
           partitioners' usual unstructured mesh, as DIMACS's delaunay_nXX), weights 0.5e6..1.5e6,
           ranks in random order (needs python3-scipy)
  reduce   a binomial-tree reduction of 1 MB (rank i + 2^k sends to i), ranks shuffled
  planted  groups of 16 ranks (one socket of a 2 x 16 node) with the heaviest traffic, the two
           groups of a node linked pair by pair with medium traffic, a few light links between
           nodes, ranks shuffled: the mapping with each group on one socket is optimal (the
           weights sorted down fill the cheapest distance slots exactly)
"""
import argparse
import math
import os
import random


def grid_dims(n):
    """Three factors of n, as equal as possible."""
    best = None
    for a in range(1, int(round(n ** (1 / 3))) + 2):
        if n % a:
            continue
        for b in range(a, int(math.isqrt(n // a)) + 1):
            if (n // a) % b:
                continue
            c = n // a // b
            shape = sorted((a, b, c))
            if best is None or shape[2] - shape[0] < best[2] - best[0]:
                best = shape
    return best


def mesh(n, rng):
    x, y, z = grid_dims(n)
    edges = {}
    index = lambda i, j, k: (i * y + j) * z + k
    for i in range(x):
        for j in range(y):
            for k in range(z):
                for di in (-1, 0, 1):
                    for dj in (-1, 0, 1):
                        for dk in (-1, 0, 1):
                            a, b, c = i + di, j + dj, k + dk
                            if not (0 <= a < x and 0 <= b < y and 0 <= c < z):
                                continue
                            u, v = index(i, j, k), index(a, b, c)
                            if u >= v:
                                continue
                            touching = abs(di) + abs(dj) + abs(dk)
                            base = {1: 1e6, 2: 1e5, 3: 1e4}[touching]
                            edges[(u, v)] = int(base * rng.uniform(0.5, 1.5))
    return edges


def rgg(n, rng):
    radius = math.sqrt(8.0 / (math.pi * n))
    cells = max(1, int(1 / radius))
    points = [(rng.random(), rng.random()) for _ in range(n)]
    bucket = {}
    for p, (px, py) in enumerate(points):
        bucket.setdefault((int(px * cells), int(py * cells)), []).append(p)
    edges = {}
    for (cx, cy), members in bucket.items():
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for q in bucket.get((cx + dx, cy + dy), []):
                    for p in members:
                        if p < q and math.dist(points[p], points[q]) < radius:
                            edges[(p, q)] = rng.randint(10_000, 1_000_000)
    return edges


def delaunay(n, rng):
    from scipy.spatial import Delaunay  # only this kind needs scipy

    points = [(rng.random(), rng.random()) for _ in range(n)]
    edges = {}
    for triangle in Delaunay(points).simplices:
        for a, b in ((0, 1), (1, 2), (0, 2)):
            u, v = sorted((int(triangle[a]), int(triangle[b])))
            if (u, v) not in edges:
                edges[(u, v)] = int(1e6 * rng.uniform(0.5, 1.5))
    return edges


def reduce_tree(n, rng):
    edges = {}
    step = 1
    while step < n:
        for i in range(0, n - step, 2 * step):
            edges[(i, i + step)] = 1 << 20
        step *= 2
    return edges


def planted(n, rng, cores=16):
    per_node = 2 * cores
    if n % per_node:
        raise SystemExit(f"planted: RANKS must be a multiple of {per_node}")
    nodes = n // per_node
    edges = {}
    for a in range(n):
        socket, node = a // cores, a // per_node
        for b in range(a + 1, (socket + 1) * cores):
            edges[(a, b)] = rng.randint(3000, 3999) * 1000
        other = socket + 1 if socket % 2 == 0 else socket - 1
        for b in range(other * cores, (other + 1) * cores):
            if a < b:
                edges[(a, b)] = rng.randint(100, 999) * 1000
        if nodes > 1:
            far = (node + 1 + rng.randrange(nodes - 1)) % nodes
            b = far * per_node + rng.randrange(per_node)
            edges.setdefault((min(a, b), max(a, b)), rng.randint(1, 99) * 1000)
    return edges


def write_metis(path, n, edges):
    """METIS format, edge weights (fmt 1), vertices numbered from 1: the pair weights of the .prof
    files, each pair sent one way only, so the folded weight is the weight itself."""
    adjacent = [[] for _ in range(n)]
    for (a, b), w in edges.items():
        adjacent[a].append((b, w))
        adjacent[b].append((a, w))
    with open(path, "w") as f:
        f.write(f"{n} {len(edges)} 1\n")
        for row in adjacent:
            f.write(" ".join(f"{b + 1} {w}" for b, w in sorted(row)) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("kind", choices=["mesh", "rgg", "delaunay", "reduce", "planted"])
    parser.add_argument("ranks", type=int)
    parser.add_argument("output", help="DIR/NAME: writes DIR/NAME.RANK.prof")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--metis", metavar="FILE",
                        help="also write the folded graph in rank order as a METIS graph (for KaHIP and peers)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    n = args.ranks
    edges = {"mesh": mesh, "rgg": rgg, "delaunay": delaunay, "reduce": reduce_tree, "planted": planted}[args.kind](n, rng)
    order = list(range(n))
    rng.shuffle(order)  # rank of each vertex: the scramble
    lines = [[] for _ in range(n)]
    for (u, v), w in edges.items():
        a, b = order[u], order[v]
        lines[a].append(f"E\t{a}\t{b}\t{w} bytes\t{max(1, w // 65536)} msgs sent\n")
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    for r in range(n):
        with open(f"{args.output}.{r}.prof", "w") as f:
            f.write("# POINT TO POINT\n")
            f.writelines(lines[r])
            f.write("# OSC\n# COLLECTIVES\n")
    if args.metis:
        write_metis(args.metis, n, {(order[u], order[v]): w for (u, v), w in edges.items()})


if __name__ == "__main__":
    main()
