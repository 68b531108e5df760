#!/usr/bin/env bash
# A GROMACS run input for the reordering's tests and measurements (docs/reorder.md): a cubic box of
# SPC water (GROMACS's spc216.gro, filled by `gmx solvate`), PME electrostatics, velocities drawn
# at 300 K from a fixed seed, energies at every step. The topology is written here (SPC's charges
# and Lennard-Jones parameters, rigid by SETTLE), so nothing but the gromacs packages is needed and
# grompp reads no force-field directory.
# Usage: gromacs_input.sh OUTDIR [BOX_NM (default 4)] [STEPS (default 20)]
# Writes OUTDIR/md.tpr (and water.gro, topol.top, md.mdp); prints the number of waters.
set -euo pipefail
out=${1:?usage: gromacs_input.sh OUTDIR [BOX_NM] [STEPS]}
box=${2:-4}
steps=${3:-20}
[[ "$box" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "gromacs_input.sh: BOX_NM '$box' is not a length in nm" >&2; exit 2; }
[[ "$steps" =~ ^[0-9]+$ ]] || { echo "gromacs_input.sh: STEPS '$steps' is not a step count" >&2; exit 2; }
gmx=$(command -v gmx || command -v gmx_mpi) || { echo "gromacs_input.sh: no gmx or gmx_mpi (package gromacs)" >&2; exit 3; }
mkdir -p "$out"
cd "$out"
export GMX_MAXBACKUP=-1  # no #file.1# copies
cat >topol.top <<'EOF'
; SPC water (Berendsen et al. 1981), as GROMACS's own force fields give it.
[ defaults ]
; nbfunc comb-rule gen-pairs fudgeLJ fudgeQQ
1 2 no 1.0 1.0

[ atomtypes ]
; name mass charge ptype sigma(nm) epsilon(kJ/mol)
OW 15.9994 0.0 A 0.316557 0.650194
HW 1.008 0.0 A 0.0 0.0

[ moleculetype ]
SOL 2

[ atoms ]
1 OW 1 SOL OW 1 -0.82 15.9994
2 HW 1 SOL HW1 1 0.41 1.008
3 HW 1 SOL HW2 1 0.41 1.008

[ settles ]
1 1 0.1 0.16330

[ exclusions ]
1 2 3
2 1 3
3 1 2

[ system ]
SPC water, PME

[ molecules ]
EOF
"$gmx" -quiet solvate -cs spc216.gro -box "$box" "$box" "$box" -o water.gro -p topol.top >solvate.log 2>&1 ||
  { cat solvate.log >&2; exit 1; }
cat >md.mdp <<EOF
integrator     = md
dt             = 0.002
nsteps         = $steps
nstcalcenergy  = 1
nstenergy      = 1
nstlog         = 1
cutoff-scheme  = Verlet
coulombtype    = PME
rcoulomb       = 0.9
rvdw           = 0.9
fourierspacing = 0.12
tcoupl         = no
pcoupl         = no
gen-vel        = yes
gen-temp       = 300
gen-seed       = 1
EOF
"$gmx" -quiet grompp -f md.mdp -c water.gro -p topol.top -o md.tpr >grompp.log 2>&1 || { cat grompp.log >&2; exit 1; }
awk '/\[ molecules \]/ { m = 1; next } m && $1 == "SOL" { print $2 }' topol.top
