#!/usr/bin/env python3
"""The figures README.md quotes from combined.csv (`ci/ompi5.sh bench` joins the two versions'
analyses there): the `on` arm's cost on a send of 0 B, per version, with its 95 % CI.

Usage: summarise.py [DIR]   (this folder by default) rewrites README.md's generated figures
(results/readme_figures.py checks them in CTest)."""
import csv
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
VERSIONS = ("4.1.4", "5.0.7")


def readme_figures(folder):
    with open(os.path.join(folder, "combined.csv")) as f:
        rows = list(csv.DictReader(f))
    send = next(r for r in rows if (r["arm"], r["op"], r["size"]) == ("on", "send", "0"))
    return {f"on-send-0-{v}": f"{float(send[f'difference_ns_{v}']):+.1f} ns [{float(send[f'difference_ci_low_ns_{v}']):.1f}, "
                             f"{float(send[f'difference_ci_high_ns_{v}']):.1f}]" for v in VERSIONS}


if __name__ == "__main__":
    folder = sys.argv[1] if len(sys.argv) > 1 else here
    sys.path.insert(0, os.path.join(here, ".."))
    import readme_figures as generated
    problems = generated.write(folder, readme_figures(folder))
    for problem in problems:
        print("summarise.py: README.md: " + problem, file=sys.stderr)
    sys.exit(1 if problems else 0)
