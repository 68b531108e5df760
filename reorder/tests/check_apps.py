#!/usr/bin/env python3
"""Reads what GROMACS and LAMMPS write, for the reordering's tests on real applications
(reorder/tests/apps_test.sh, docs/reorder.md). Independent of the library: it reads the
applications' own files.

  check_apps.py gromacs-energies LOG_A LOG_B [--step N] [--rtol R]
      the energies of step N (default 0) in two md.log files: each term of A against B within the
      relative tolerance R (default 2e-5); prints one line a term, exits 1 on a difference or when a
      log has no such step
  check_apps.py gromacs-ranks LOG
      GROMACS's "Cartesian rank R, coordinates X Y Z" line of rank 0 ("RANK X Y Z"), exits 1 if none
  check_apps.py lammps-grid PROCS
      LAMMPS's table of ranks (processors ... file PROCS): the grid, and the grid's neighbour pairs
      (periodic, +-1 every dimension, as MPI_Cart_create's graph has them, both directions) between
      different hosts: "grid PX PY PZ between N"
  check_apps.py lammps-thermo OUT
      the thermo table (Step Temp E_pair ...) of a LAMMPS screen output, one line a step
"""
import re
import sys

# The terms GROMACS prints that are sums of energies (not the pressure, a small difference of large
# terms, nor the constraint deviation).
ENERGY_TERMS = ("LJ (SR)", "Disper. corr.", "Coulomb (SR)", "Coul. recip.", "Potential", "Kinetic En.",
                "Total Energy", "Conserved En.", "Temperature")


def gromacs_energies(path, step):
    lines = open(path, errors="replace").read().splitlines()
    for i, line in enumerate(lines):
        if line.split() == ["Step", "Time"] and i + 1 < len(lines) and lines[i + 1].split()[:1] == [str(step)]:
            j = i + 2
            while j < len(lines) and "Energies (" not in lines[j]:
                j += 1
            terms = {}
            j += 1
            while j + 1 < len(lines) and lines[j].strip():
                names, values = lines[j], lines[j + 1]
                width = 15
                for k in range(0, len(names), width):
                    name = names[k:k + width].strip()
                    value = values[k:k + width].strip()
                    if name and value:
                        terms[name] = float(value)
                j += 2
            return terms
    return None


def cmd_gromacs_energies(args):
    step = int(args[args.index("--step") + 1]) if "--step" in args else 0
    rtol = float(args[args.index("--rtol") + 1]) if "--rtol" in args else 2e-5
    a, b = gromacs_energies(args[0], step), gromacs_energies(args[1], step)
    if not a or not b:
        print(f"no energies at step {step} in {args[0] if not a else args[1]}")
        return 1
    failures = 0
    compared = 0
    for name in ENERGY_TERMS:
        if name not in a and name not in b:
            continue
        if name not in a or name not in b:
            print(f"FAIL {name}: in one log only")
            failures += 1
            continue
        compared += 1
        x, y = a[name], b[name]
        ok = abs(x - y) <= rtol * max(abs(x), abs(y))
        failures += not ok
        print(f"{'OK' if ok else 'FAIL'} {name}: {x:.5e} {y:.5e} (relative {abs(x - y) / max(abs(x), abs(y), 1e-300):.1e})")
    if compared < 4:
        print(f"FAIL only {compared} energy terms found")
        failures += 1
    return 1 if failures else 0


def cmd_gromacs_ranks(args):
    for line in open(args[0], errors="replace"):
        m = re.search(r"Cartesian rank (\d+), coordinates (\d+) (\d+) (\d+)", line)
        if m:
            print(" ".join(m.groups()))
            return 0
    print("no Cartesian rank line")
    return 1


def cmd_lammps_grid(args):
    text = open(args[0]).read()
    m = re.search(r"Px Py Pz = (\d+) (\d+) (\d+)", text)
    if not m:
        print("no grid in " + args[0])
        return 1
    grid = tuple(int(x) for x in m.groups())
    host_at = {}
    for line in text.splitlines():
        f = re.match(r"(\d+) (\d+) (\d+): (\d+) (\d+) (\d+): (\S+)", line)
        if f:
            host_at[tuple(int(f.group(k)) - 1 for k in (4, 5, 6))] = f.group(7)
    if len(host_at) != grid[0] * grid[1] * grid[2]:
        print(f"{len(host_at)} ranks listed for a grid of {grid}")
        return 1
    between = 0
    for at, host in host_at.items():
        for d in range(3):
            if grid[d] == 1:
                continue  # its own neighbour: no edge (MPI_Cart_create's graph drops it)
            for step in (-1, 1):
                other = list(at)
                other[d] = (other[d] + step) % grid[d]
                between += host_at[tuple(other)] != host
    print(f"grid {grid[0]} {grid[1]} {grid[2]} between {between}")
    return 0


def cmd_lammps_thermo(args):
    rows, on = [], False
    for line in open(args[0], errors="replace"):
        words = line.split()
        if words[:1] == ["Step"]:
            on = True
            continue
        if on and words and re.fullmatch(r"\d+", words[0]):
            rows.append(" ".join(words))
        elif on:
            on = False
    print("\n".join(rows))
    return 0 if rows else 1


def main():
    commands = {"gromacs-energies": cmd_gromacs_energies, "gromacs-ranks": cmd_gromacs_ranks,
                "lammps-grid": cmd_lammps_grid, "lammps-thermo": cmd_lammps_thermo}
    if len(sys.argv) < 3 or sys.argv[1] not in commands:
        print(__doc__)
        return 2
    return commands[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
