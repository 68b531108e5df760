#!/usr/bin/env bash
# End-to-end tests of the mpimon commands, run as a user would run them.
# Usage: cli_test.sh SCENARIO MPIMON MPIMON_MERGE DATA_DIR
# Expected values come from the input files themselves (summed with awk) or from Open MPI's own
# profile2mat, never from mpimon's output.
set -u
scenario=$1 mpimon=$2 merge=$3 data=$4
source "$(dirname "${BASH_SOURCE[0]}")/test_lib.sh"

copy_sample() {  # copy_sample NAME -> prof/NAME.RANK.prof
  mkdir -p prof
  cp "$data"/real/"$1".*.prof prof/
}

# Expected merged matrix from the .prof text itself: "rank peer value" per line of the given classes.
awk_matrix() {  # awk_matrix CLASSES_REGEX FIELD(4=bytes,5=count) FILES...
  local classes=$1 field=$2
  shift 2
  awk -F'\t' -v re="^($classes)\$" -v f="$field" '$1 ~ re { split($f, a, " "); m[$2" "$3] += a[1] }
       END { for (k in m) print k, m[k] }' "$@" | sort -n -k1,1 -k2,2
}

case $scenario in
help)
  run "$mpimon" --help
  expect_eq "$rc" 0 "mpimon --help exit code"
  for c in merge show export; do expect_contains "$out" "  $c" "mpimon --help lists $c"; done
  for c in merge show "export" "export treematch" "export mat" "export scotch" "export metis" "export pairs"; do
    # shellcheck disable=SC2086
    run "$mpimon" $c --help
    expect_eq "$rc" 0 "mpimon $c --help exit code"
    expect_contains "$out" "Usage: mpimon $c" "mpimon $c --help"
  done
  run "$merge" --help
  expect_eq "$rc" 0 "mpimon-merge --help"
  expect_contains "$out" "Usage: mpimon-merge [-o OUT.h5] [--files-from LIST] FILES|DIRS..." "mpimon-merge --help"
  run "$mpimon" frobnicate
  expect_eq "$rc" 2 "unknown command exit code"
  expect_contains "$err" "mpimon: error: unknown command 'frobnicate'" "unknown command message"
  run "$merge"
  expect_eq "$rc" 2 "mpimon-merge without files"
  expect_contains "$err" "mpimon-merge: error: no input: give .prof files, directories of them, or --files-from LIST" \
    "missing files message"
  run "$merge" --layout diagonal x.0.prof
  expect_eq "$rc" 2 "bad --layout"
  expect_contains "$err" "--layout must be auto, dense or csr, not 'diagonal'" "bad --layout message"
  run "$mpimon" --version
  expect_contains "$out" "mpimon " "--version"
  ;;

merge)
  copy_sample mode2_sample
  run "$merge" -o out.h5 prof/mode2_sample.0.prof prof/mode2_sample.1.prof prof/mode2_sample.2.prof
  expect_eq "$rc" 0 "mpimon-merge exit code ($err)"
  check && [ -s out.h5 ] || fail "out.h5 not written"
  expect_contains "$out" "wrote out.h5: 1 dump from 3 files" "summary header"
  expect_contains "$out" "dump mode2_sample: 3 processes, all 3 ranks present, internal/external distinguished" "summary dump line"
  # The summary's totals must equal the sums of the files' own lines.
  for cls in E:external I:internal S:osc_sent R:osc_recv C:coll; do
    letter=${cls%%:*} name=${cls#*:}
    msgs=$(awk -F'\t' -v c="$letter" '$1 == c { split($5, a, " "); s += a[1] } END { print s + 0 }' prof/*.prof)
    bytes=$(awk -F'\t' -v c="$letter" '$1 == c { split($4, a, " "); s += a[1] } END { print s + 0 }' prof/*.prof)
    line=$(grep -E "^  $name " <<<"$out" | tr -s ' ')
    expect_eq "$(cut -d' ' -f3,4 <<<"$line")" "$msgs $bytes" "summary totals of $name"
  done
  run "$mpimon" merge -o again.h5 --quiet prof/*.prof
  expect_eq "$rc" 0 "mpimon merge exit code"
  expect_eq "$out" "" "--quiet prints nothing"
  run "$merge" --progress -o p.h5 prof/*.prof
  expect_contains "$err" "merging: 3/3 files (100%)" "--progress line"
  check && [ -z "$(ls | grep tmp-)" ] || fail "temporary files left: $(ls)"
  ;;

bad_input)
  copy_sample mode2_sample
  check_rejected() {  # check_rejected EXPECTED_STDERR FILES...
    local expected=$1
    shift
    rm -f bad.h5
    run "$merge" -o bad.h5 "$@"
    expect_eq "$rc" 1 "exit code for: $expected"
    expect_eq "$err" "mpimon-merge: error: $expected" "message"
    check && [ ! -e bad.h5 ] || fail "bad.h5 written for: $expected"
    check && [ -z "$(ls | grep tmp-)" ] || fail "temporary left for: $expected"
  }
  head -c 300 prof/mode2_sample.1.prof >trunc.1.prof
  cp prof/mode2_sample.0.prof trunc.0.prof
  check_rejected "trunc.1.prof:3: last line has no newline: the file looks truncated" trunc.0.prof trunc.1.prof
  check_rejected "missing.0.prof: no such file" missing.0.prof
  mkdir -p other && cp prof/mode2_sample.1.prof other/
  check_rejected "other/mode2_sample.1.prof: second file for rank 1 of dump 'mode2_sample' (the first is prof/mode2_sample.1.prof)" \
    prof/mode2_sample.1.prof other/mode2_sample.1.prof
  printf '\177ELF\002\001\001\000\000' >elf.0.prof
  check_rejected "elf.0.prof: binary data (NUL byte at offset 7), not a .prof file" elf.0.prof
  sed 's/^I\t1\t0\t/I\t2\t0\t/' prof/mode2_sample.1.prof >wrong.1.prof
  check_rejected "wrong.1.prof:2: line recorded by rank 2 in the file of rank 1" wrong.1.prof
  : >empty.0.prof
  check_rejected "empty.0.prof: empty file" empty.0.prof
  echo "not a dump" >notes.txt
  check_rejected "notes.txt: file name must have the form NAME.RANK.prof (as Open MPI writes it)" notes.txt
  # An existing output survives a failed merge.
  echo precious >keep.h5
  run "$merge" -o keep.h5 empty.0.prof
  expect_eq "$(cat keep.h5)" "precious" "existing output kept"
  ;;

export_treematch)
  copy_sample mode2_sample
  check && "$merge" -q -o out.h5 prof/*.prof || fail "merge"
  run "$mpimon" export treematch out.h5 --metric count
  expect_eq "$rc" 0 "export treematch ($err)"
  # Independent expectation: fold the E and I counts of the files, zero diagonal.
  expected=$(awk_matrix 'E|I' 5 prof/*.prof | awk '{ m[$1" "$2] += $3; m[$2" "$1] += $3 }
      END { for (i = 0; i < 3; i++) { row = ""; for (j = 0; j < 3; j++) row = row (j ? " " : "") (i == j ? 0 : m[i" "j] + 0); print row } }')
  expect_eq "$out" "$expected" "treematch matrix (count)"
  run "$mpimon" export treematch out.h5 --classes osc_sent -o tm.mat
  expect_eq "$rc" 0 "export to file"
  expect_eq "$(wc -l <tm.mat)" 3 "treematch rows"
  run "$mpimon" export treematch out.h5 --classes bogus
  expect_eq "$rc" 2 "bad class"
  expect_contains "$err" "unknown class 'bogus'" "bad class message"
  run "$mpimon" export treematch out.h5 --dump nope -o none.mat
  expect_eq "$rc" 1 "unknown dump"
  expect_eq "$err" "mpimon export treematch: error: out.h5: no dump named 'nope'" "unknown dump message"
  check && [ ! -e none.mat ] || fail "partial output after a failed export"
  # Above 8192 processes the dense exports refuse unless --force (a peer at rank 9000: 9001 x 9001).
  mkdir -p big
  printf '# POINT TO POINT\nE\t0\t9000\t64 bytes\t2 msgs sent\n# OSC\n# COLLECTIVES\n' >big/big.0.prof
  check && "$merge" -q -o big.h5 big || fail "merge of the 9001-process dump"
  run "$mpimon" export treematch big.h5 -o big.mat
  expect_eq "$rc" 2 "treematch above the limit"
  expect_eq "$(head -1 <<<"$err")" "mpimon export treematch: error: TreeMatch's matrix is a dense format: 9001 x 9001 = 8.1e+07 entries, at least 162.0 MB of text even where no traffic flows (the limit is 8192 processes); use 'mpimon export scotch' or 'mpimon export metis' (a sparse graph, as large as the traffic), or --force to write it anyway" "treematch refusal message"
  check && [ ! -e big.mat ] || fail "big.mat written"
  run "$mpimon" export mat big.h5 -o bigdir
  expect_eq "$rc" 2 "profile2mat above the limit"
  expect_contains "$err" "profile2mat's .mat is a dense format: 9001 x 9001" "profile2mat refusal message"
  run "$mpimon" export treematch big.h5 --force --metric count -o big.mat
  expect_eq "$rc" 0 "treematch --force ($err)"
  expect_eq "$(wc -l <big.mat)" 9001 "forced treematch rows"
  expect_eq "$(sed -n 9001p big.mat | cut -d' ' -f1)" 2 "forced treematch entry (9000, 0)"
  ;;

merge_inputs)
  # Directories and --files-from give the same file as the files themselves (compared by the
  # matrices h5dump prints, and by the source_files attribute: rank order whatever the input order).
  # Without h5dump those comparisons are a part not checked (the test is then a skip), decided here.
  h5dump_usable=yes
  if [ -z "${H5DUMP:-}" ] || [ ! -x "$H5DUMP" ]; then
    h5dump_usable=
    skip_part "the merges compared through h5dump: h5dump not installed (hdf5-tools, ci/install-deps.sh)"
  fi
  copy_sample mode2_sample
  copy_sample mode1_sample
  echo "not a dump" >prof/notes.txt
  cp prof/mode2_sample.0.prof prof/all.prof  # the concatenation profile2mat reads: not NAME.RANK.prof
  check && "$merge" -q -o files.h5 prof/mode1_sample.*.prof prof/mode2_sample.*.prof || fail "merge of the files"
  run "$merge" -o dir.h5 prof
  expect_eq "$rc" 0 "merge of a directory ($err)"
  expect_contains "$out" "wrote dir.h5: 2 dumps from 6 files" "directory: summary"
  ls prof/*_sample.*.prof | sort -r >list.txt  # reversed: the merge sorts by dump and rank
  run "$merge" -q -o list.h5 --files-from list.txt
  expect_eq "$rc" 0 "--files-from FILE ($err)"
  run "$mpimon" merge -q -o stdin.h5 --files-from - <list.txt
  expect_eq "$rc" 0 "mpimon merge --files-from - ($err)"
  printf 'prof/mode2_sample.2.prof\r\n\nprof/mode2_sample.1.prof\n' >crlf.txt
  run "$merge" -q -o mixed.h5 prof/mode2_sample.0.prof --files-from crlf.txt
  expect_eq "$rc" 0 "files and a CRLF list together ($err)"
  if [ -n "$h5dump_usable" ]; then
    for f in dir list stdin; do
      for d in mode1_sample mode2_sample; do
        for m in external/bytes internal/count coll/bytes; do
          expect_eq "$("$H5DUMP" -d /$d/$m -y $f.h5 | tail -n +2)" "$("$H5DUMP" -d /$d/$m -y files.h5 | tail -n +2)" \
            "$f.h5 $d/$m equals the merge of the files"
        done
        expect_eq "$("$H5DUMP" -a /$d/source_files $f.h5 | grep -o 'prof/[a-z0-9_.]*' | tr '\n' ' ')" \
          "prof/$d.0.prof prof/$d.1.prof prof/$d.2.prof " "$f.h5: $d sources in rank order"
      done
    done
    expect_eq "$("$H5DUMP" -d /mode2_sample/external/bytes -y mixed.h5 | tail -n +2)" \
      "$("$H5DUMP" -d /mode2_sample/external/bytes -y files.h5 | tail -n +2)" "files + list"
  fi
  # Errors name the list and its line; nothing is written.
  printf 'prof/mode2_sample.0.prof\nprof/missing.1.prof\n' >bad.txt
  run "$merge" -o bad.h5 --files-from bad.txt
  expect_eq "$rc" 1 "missing file in the list"
  expect_eq "$err" "mpimon-merge: error: bad.txt:2: no such file: prof/missing.1.prof" "missing file message"
  run "$merge" -o bad.h5 --files-from - <bad.txt
  expect_eq "$err" "mpimon-merge: error: standard input:2: no such file: prof/missing.1.prof" "stdin message"
  mkdir -p empty
  run "$merge" -o bad.h5 empty
  expect_eq "$rc" 1 "empty directory"
  expect_eq "$err" "mpimon-merge: error: empty: directory holds no NAME.RANK.prof file" "empty directory message"
  run "$merge" -o bad.h5 --files-from nolist.txt
  expect_eq "$rc" 1 "missing list"
  expect_contains "$err" "mpimon-merge: error: nolist.txt: cannot read the list of files" "missing list message"
  check && [ ! -e bad.h5 ] || fail "bad.h5 written"
  check && [ -z "$(ls | grep tmp-)" ] || fail "temporary files left: $(ls)"
  ;;

export_graph)
  copy_sample mode2_sample
  check && "$merge" -q -o out.h5 prof/*.prof || fail "merge"
  # Independent expectation: the E and I byte totals of the files, folded, no diagonal, no zero.
  awk_matrix 'E|I' 4 prof/*.prof | awk '$1 != $2 { w[$1" "$2] += $3; w[$2" "$1] += $3 }
      END { for (k in w) if (w[k] > 0) print k, w[k] }' | sort -n -k1,1 -k2,2 >edges.txt
  expected_scotch=$(awk -v n=3 '{ deg[$1]++; adj[$1] = adj[$1] "\t" $3 " " $2; arcs++ }
      END { print 0; print n, arcs; print "0 010"; for (i = 0; i < n; i++) print (deg[i] + 0) adj[i] }' edges.txt)
  run "$mpimon" export scotch out.h5 -o g.grf
  expect_eq "$rc" 0 "export scotch ($err)"
  expect_eq "$(cat g.grf)" "$expected_scotch" "scotch graph"
  expected_metis=$(awk -v n=3 '{ adj[$1] = adj[$1] (adj[$1] == "" ? "" : " ") ($2 + 1) " " $3; arcs++ }
      END { print n, arcs / 2, "001"; for (i = 0; i < n; i++) print adj[i] }' edges.txt)
  run "$mpimon" export metis out.h5
  expect_eq "$rc" 0 "export metis ($err)"
  expect_eq "$out" "$expected_metis" "metis graph"
  run "$mpimon" export metis out.h5 --classes bogus
  expect_eq "$rc" 2 "bad class"
  run "$mpimon" export scotch out.h5 --dump nope -o none.grf
  expect_eq "$rc" 1 "unknown dump"
  check && [ ! -e none.grf ] || fail "partial output after a failed export"
  # The peer tools read and use what was written (Debian packages scotch and metis).
  total=$(awk '{ s += $3 } END { print s / 2 }' edges.txt)
  if command -v gtst >/dev/null && command -v scotch_gmap >/dev/null; then
    run gtst g.grf
    expect_eq "$rc" 0 "gtst reads the graph ($out $err)"
    expect_contains "$out" "S	Vertex	nbr=3" "gtst: vertices"
    expect_contains "$out" "S	Edge	nbr=$(($(wc -l <edges.txt) / 2))" "gtst: edges"
    expect_contains "$out" "S	Edge load	min=$(sort -n -k3,3 edges.txt | head -1 | cut -d' ' -f3)	" "gtst: lightest edge"
    expect_contains "$out" "sum=$((${total%.*} * 2))	" "gtst: weight of all arcs"
    echo "cmplt 2" >two.tgt
    run scotch_gmap g.grf two.tgt g.map
    expect_eq "$rc" 0 "scotch_gmap maps the graph ($err)"
    expect_eq "$(head -1 g.map)" 3 "scotch_gmap: one line per process"
  else
    skip_part "Scotch's gtst/scotch_gmap not installed (package scotch): the graph read by Scotch"
  fi
  if command -v gpmetis >/dev/null && command -v graphchk >/dev/null; then
    "$mpimon" export metis out.h5 -o g.graph
    run graphchk g.graph
    expect_eq "$rc" 0 "graphchk reads the graph"
    expect_contains "$out" "The format of the graph is correct" "graphchk verdict ($out)"
    run gpmetis g.graph 2
    expect_eq "$rc" 0 "gpmetis partitions the graph ($err)"
    expect_eq "$(wc -l <g.graph.part.2)" 3 "gpmetis: one part per process"
  else
    skip_part "METIS's gpmetis/graphchk not installed (package metis): the graph read by METIS"
  fi
  echo "edge weight total (from the files): $total"
  # export pairs: every directed pair of the classes, bytes and messages as the .prof lines add them up
  # (awk), by sender then receiver; a class list of one; the same refusals as the other exports.
  for classes in external,internal internal; do
    re=$([ "$classes" = internal ] && echo I || echo 'E|I')
    expected=$(join -j1 <(awk_matrix "$re" 4 prof/*.prof | awk '{ print $1 "," $2, $3 }' | sort) \
      <(awk_matrix "$re" 5 prof/*.prof | awk '{ print $1 "," $2, $3 }' | sort) |
      awk '$2 > 0 || $3 > 0 { print $1 "," $2 "," $3 }' | sort -t, -n -k1,1 -k2,2)
    run "$mpimon" export pairs out.h5 --classes "$classes" -o pairs.csv
    expect_eq "$rc" 0 "export pairs --classes $classes ($err)"
    expect_eq "$(head -1 pairs.csv)" "from,to,bytes,messages" "export pairs: the header"
    expect_eq "$(tail -n +2 pairs.csv)" "$expected" "export pairs --classes $classes: the pairs of the .prof files"
  done
  check && [ "$(tail -n +2 pairs.csv | wc -l)" -gt 0 ] || fail "export pairs: no pair (the comparison is vacuous)"
  run "$mpimon" export pairs out.h5 --classes bogus -o bad.csv
  expect_eq "$rc" 2 "export pairs: a bad class"
  run "$mpimon" export pairs out.h5 --dump nope -o bad.csv
  expect_eq "$rc" 1 "export pairs: an unknown dump"
  check && [ ! -e bad.csv ] || fail "export pairs: partial output after a failed export"
  ;;

profile2mat_compat)
  if [ -z "${PROFILE2MAT:-}" ] || [ ! -x "$PROFILE2MAT" ]; then
    skip_test "profile2mat not installed (package openmpi-bin)"
  fi
  for sample in mode1_sample mode2_sample; do
    check && bash "$(dirname "$0")/compare_profile2mat.sh" "$mpimon" "$merge" "$PROFILE2MAT" "$data"/real/$sample.*.prof ||
      fail "profile2mat compatibility on $sample"
  done
  ;;

show)
  copy_sample mode2_sample
  check && "$merge" -q -o out.h5 prof/*.prof || fail "merge"
  run "$mpimon" show out.h5 --top 2
  expect_eq "$rc" 0 "show ($err)"
  expect_contains "$out" "dump mode2_sample" "show dump"
  expect_contains "$out" "processes: 3 (3 rank files present)" "show processes"
  # The top talker is the pair with most E+I bytes, computed from the files.
  top=$(awk_matrix 'E|I' 4 prof/*.prof | sort -k3,3nr | head -1)
  read -r from to bytes <<<"$top"
  expect_contains "$(tr -s ' ' <<<"$out")" " $from $to $bytes " "top talker"
  run "$mpimon" show missing.h5
  expect_eq "$rc" 1 "show of a missing file"
  expect_eq "$err" "mpimon show: error: missing.h5: not a readable HDF5 file" "show missing message"
  ;;

h5dump)
  if [ -z "${H5DUMP:-}" ] || [ ! -x "$H5DUMP" ]; then
    skip_test "h5dump not installed (package hdf5-tools)"
  fi
  copy_sample mode2_sample
  check && "$merge" -q -o out.h5 prof/*.prof || fail "merge"
  attrs=$("$H5DUMP" -A -g / out.h5)
  expect_contains "$attrs" '"mpimon-matrices"' "format attribute"
  # h5dump's view of a matrix row equals the file's E line.
  row=$("$H5DUMP" -d /mode2_sample/external/bytes -s 0,0 -c 1,3 -y -w 0 out.h5 | tr -d ' \n' | grep -o 'DATA{[^}]*}')
  expect_eq "$row" "DATA{0,1000,0}" "h5dump external bytes row 0"
  ;;

*)
  echo "unknown scenario $scenario"
  exit 2
  ;;
esac

finish "$scenario"
