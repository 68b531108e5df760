#!/usr/bin/env python3
"""Judges a run of mpimon-reorder-topology (its CASE / OK / FAIL lines) against the statistics the
reorder library wrote (MPIMON_REORDER_STATS, one JSON line per constructor call, in call order).

  check_placements.py OUTPUT --model node|core --reordering STATS   the library was preloaded, reorder=1
  check_placements.py OUTPUT --model node|core --untouched [STATS]  reorder=0, not preloaded, or off

Reordering: every case passed its semantic checks; the library's claimed costs equal the program's
own recomputation from the gathered places (after: on the new ranks; before: on the world ranks);
the placement reached the optimum the program found by brute force; a case is reordered exactly
when the library says so, and kept only when the order it had was optimal already.
Untouched: every case kept the world order and the library wrote nothing.
Prints one line per finding; exits 1 on any failure."""
import json
import os
import re
import sys


def cases_of(text):
    cases = []
    for line in text.splitlines():
        m = re.match(r"CASE (\S+) (.*)", line)
        if m:
            fields = dict(kv.split("=", 1) for kv in m.group(2).split())
            fields["name"] = m.group(1)
            cases.append(fields)
    return cases


def main():
    args = sys.argv[1:]
    output = open(args[0]).read()
    model = args[args.index("--model") + 1]
    failures = []
    cases = cases_of(output)
    if not cases:
        failures.append("no CASE line in the output")
    for c in cases:
        if f"OK {c['name']}" not in output:
            failures.append(f"{c['name']}: its semantic checks did not pass (no 'OK {c['name']}')")
    for line in output.splitlines():
        if line.startswith("FAIL"):
            failures.append(line)
    if "--untouched" in args:
        stats = args[args.index("--untouched") + 1] if len(args) > args.index("--untouched") + 1 else None
        for c in cases:
            if c["identity"] != "1":
                failures.append(f"{c['name']}: the ranks changed ({c['call']} reorder={c['reorder']})")
        if stats and os.path.exists(stats) and os.path.getsize(stats) > 0:
            failures.append(f"the library wrote statistics: {open(stats).read()[:300]}")
    else:
        path = args[args.index("--reordering") + 1]
        records = [json.loads(line) for line in open(path)] if os.path.exists(path) else []
        if len(records) != len(cases):
            failures.append(f"{len(records)} statistics records for {len(cases)} calls")
        unit = 100 if model == "node" else 1
        for c, r in zip(cases, records):
            name = c["name"]
            if r["call"] != c["call"] or r["status"] != 0:
                failures.append(f"{name}: record {r['call']} status {r['status']} {r['error']}")
                continue
            claims = {"cost_after": float(c["cost"]), "cost_before": float(c["cost_before"])}
            if model == "node":
                claims.update(between_nodes_after=float(c["between"]), between_nodes_before=float(c["before"]))
            for key, realised in claims.items():
                if r[key] != realised:
                    failures.append(f"{name}: the library claims {key} {r[key]}, the placement realised {realised}")
            if int(c["between"]) != int(c["optimum"]):
                failures.append(f"{name}: weight {c['between']} between places, the optimum is {c['optimum']}")
            if r["reordered"] != (c["identity"] == "0"):
                failures.append(f"{name}: reordered {r['reordered']} but identity={c['identity']}")
            if not r["reordered"] and int(c["before"]) != int(c["optimum"]):
                failures.append(f"{name}: the order was kept although it was not optimal ({r['note']})")
            print(f"{name}: {c['call']}: weight between {'nodes' if model == 'node' else 'cores'} "
                  f"{c['before']} -> {c['between']} (optimum {c['optimum']}), modelled cost "
                  f"{r['cost_before']:.0f} -> {r['cost_after']:.0f} = {unit} x the weight, "
                  f"{'reordered' if r['reordered'] else 'kept: ' + r['note']}")
    for f in failures:
        print("FAIL:", f)
    print(f"{len(cases)} case(s), {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
