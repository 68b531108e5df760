#!/usr/bin/env python3
"""mapping_cost.py GRAPH ARITY COSTS MAPPING [--repair]: the modelled cost of a mapping of a METIS
graph (instances.py --metis) onto a tree, written apart from mpimon (docs/placement.md's model: a
pair whose lowest common level is l costs its weight x the sum of the link costs of levels l..).

  ARITY, COSTS  the tree top first, e.g. 8:2:16 and 100:10:1 (mpimon's 8x2x16)
  MAPPING       one leaf per line, vertex order (a KaHIP partition file), or 'RANK LEAF' lines
  --repair      a mapper that balances with slack (KaHIP) may put two ranks on one leaf: each extra
                rank moves to the free leaf that costs least given where its peers are, one at a time
                (as mpimon repairs Scotch's mappings)

Prints: cost, the distinct leaves the mapping used before repair, the ranks moved, and the cost
before repair (ranks sharing a leaf at distance 0: not a valid mapping, a reference only)."""
import sys


def read_graph(path):
    rows = [line for line in open(path) if not line.startswith("%")]
    n = int(rows[0].split()[0])
    adjacent = []
    for i in range(n):
        t = rows[1 + i].split()
        adjacent.append([(int(t[k]) - 1, int(t[k + 1])) for k in range(0, len(t), 2)])
    return adjacent


def main():
    graph, arity, costs, mapping = sys.argv[1:5]
    arity = [int(a) for a in arity.split(":")]
    costs = [int(c) for c in costs.split(":")]
    leaves = 1
    for a in arity:
        leaves *= a
    below, size = [], leaves
    for a in arity:
        size //= a
        below.append(size)  # leaves under one subtree of the level below level l
    suffix = [sum(costs[level:]) for level in range(len(arity))]

    def distance(a, b):
        if a == b:
            return 0
        level = 0
        while a // below[level] == b // below[level]:
            level += 1
        return suffix[level]

    adjacent = read_graph(graph)
    n = len(adjacent)
    words = open(mapping).read().split()
    if len(words) == n:
        leaf = [int(w) for w in words]
    else:
        leaf = [0] * n
        for i in range(0, len(words), 2):
            leaf[int(words[i])] = int(words[i + 1])
    if any(not 0 <= x < leaves for x in leaf):
        sys.exit(f"{mapping}: a leaf beyond the tree's {leaves}")
    distinct = len(set(leaf))
    moved = 0
    total = lambda: sum(w * distance(leaf[i], leaf[j]) for i in range(n) for j, w in adjacent[i] if i < j)
    as_given = total()
    if "--repair" in sys.argv:
        seen, extra = set(), []
        for rank, x in enumerate(leaf):
            (extra if x in seen else seen.add(x) or []).append(rank)
        free = sorted(set(range(leaves)) - seen)
        bottom = below[-2] if len(below) > 1 else leaves  # leaves per bottom subtree (socket)
        for rank in extra:
            # free leaves of one bottom subtree cost the same to every peer (peers sit elsewhere)
            firsts = {}
            for x in free:
                firsts.setdefault(x // bottom, x)
            best = min(firsts.values(), key=lambda x: sum(w * distance(x, leaf[p]) for p, w in adjacent[rank]))
            free.remove(best)
            leaf[rank] = best
            moved += 1
    elif distinct != n:
        sys.exit(f"{mapping}: {n - distinct} ranks share a leaf (give --repair)")
    print(total(), distinct, moved, as_given)


if __name__ == "__main__":
    main()
