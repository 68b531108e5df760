// The validation suite's cases, as data: one row per case, in the order `mpimon validate --list`
// prints them; the one-sided and collective cases are one row per operation of their lists, the
// workloads' one per row of the workloads table. To add a case, add its row here (and, if it pins a defect, the defect
// to analysis/models/src/defects.cpp).

#include "mpimon/harness/validation_cases.hpp"

#include <algorithm>

#include "mpimon/models/workloads.hpp"

namespace mpimon::harness {

namespace {

const char* const kP2pProgram = "mpimon-p2p-ledger";
const char* const kRmaProgram = "mpimon-rma-ledger";
const char* const kCollProgram = "mpimon-coll-ledger";
const char* const kMpitProgram = "mpimon-mpit-ledger";
const char* const kWorkloadProgram = "mpimon-workload";

// Must match the operations of mpimon-coll-ledger (checked by the test cli.validate_lists).
const char* const kCollectives[] = {"allgather",
                                    "allgatherv",
                                    "allreduce",
                                    "alltoall",
                                    "alltoallv",
                                    "alltoallw",
                                    "barrier",
                                    "bcast",
                                    "bcast_on_freed_comm",
                                    "distgraph_neighbor_alltoall",
                                    "exscan",
                                    "gather",
                                    "gatherv",
                                    "iallgather",
                                    "iallgatherv",
                                    "iallreduce",
                                    "ialltoall",
                                    "ialltoallv",
                                    "ialltoallw",
                                    "ibarrier",
                                    "ibcast",
                                    "iexscan",
                                    "igather",
                                    "igatherv",
                                    "ineighbor_allgather",
                                    "ineighbor_allgatherv",
                                    "ineighbor_alltoall",
                                    "ineighbor_alltoallv",
                                    "ineighbor_alltoallw",
                                    "ireduce",
                                    "ireduce_scatter",
                                    "ireduce_scatter_block",
                                    "iscan",
                                    "iscatter",
                                    "iscatterv",
                                    "neighbor_allgather",
                                    "neighbor_allgatherv",
                                    "neighbor_alltoall",
                                    "neighbor_alltoallv",
                                    "neighbor_alltoallw",
                                    "reduce",
                                    "reduce_scatter",
                                    "reduce_scatter_block",
                                    "scan",
                                    "scatter",
                                    "scatterv"};

const char* const kRmaOps[] = {"put", "get", "accumulate", "get_accumulate", "fetch_and_op", "compare_and_swap"};
const char* const kRmaSyncs[] = {"fence", "lock", "pscw"};

LedgerCheck classes_only(std::vector<TrafficClass> classes, bool records) {
  LedgerCheck c;
  c.classes = std::move(classes);
  c.histograms = false;
  c.communicator_records = records;
  return c;
}

// What the one-sided cases compare: S and R exact.
LedgerCheck one_sided_check() { return classes_only({TrafficClass::osc_sent, TrafficClass::osc_recv}, false); }

void append(std::vector<ValidationCase>& to, std::vector<ValidationCase> rows) {
  to.insert(to.end(), std::make_move_iterator(rows.begin()), std::make_move_iterator(rows.end()));
}

std::vector<ValidationCase> point_to_point_cases() {
  const LedgerCheck p2p = point_to_point_check();
  return {
      {.name = "p2p",
       .description = "every send mode, 0 B to 256 KiB, self-sends, MPI_PROC_NULL, a derived datatype: E and "
                      "histograms exact, I empty",
       .program = kP2pProgram,
       .process_counts = {1, 2, 3, 4},
       .modes = {1, 2},
       .check = p2p},
      {.name = "p2p.pml_ob1_monitoring",
       .description = "the same with --mca pml ob1,monitoring (the working way to pin a PML)",
       .program = kP2pProgram,
       .process_counts = {2},
       .modes = {1},
       .mca = {{"pml", "ob1,monitoring"}},
       .check = p2p},
      // Communicator splitting sends internal messages (in E with mode 1): a control run removes them.
      {.name = "p2p.subcomm",
       .description =
           "the same on two halves of the world, communicator ranks reversed: peers in MPI_COMM_WORLD numbering",
       .program = kP2pProgram,
       .args = {"--subcomm"},
       .control = true,
       .process_counts = {3, 4},
       .modes = {1, 2},
       .check = p2p},
      {.name = "defect.persistent_send",
       .description = "persistent sends (MPI_Send_init + MPI_Start) are not counted",
       .program = kP2pProgram,
       .args = {"persistent"},
       .process_counts = {2},
       .modes = {1, 2},
       .check = p2p,
       .defect = "persistent-send-uncounted"},
      // A missing pml/monitoring must not read as the defect: the case needs the component.
      {.name = "defect.pml_list",
       .description = "--mca pml ob1 (no monitoring in the list) silently disables monitoring",
       .program = kP2pProgram,
       .process_counts = {2},
       .modes = {1},
       .mca = {{"pml", "ob1"}},
       .check = p2p,
       .defect = "pml-list-disables-monitoring",
       .required_component = "pml:monitoring"},
  };
}

// One-sided: the component is named, since what reaches the PML differs between them. rdma (and
// sm) refuse a window on a single process (MPI_ERR_WIN, with or without monitoring), hence
// np >= 2; osc monitoring's own refusal at np 1 is pinned by defect.one_process_window.
std::vector<ValidationCase> one_sided_cases() {
  std::vector<ValidationCase> cases;
  for (const std::string component : {"rdma", "pt2pt"}) {
    for (const std::string op : kRmaOps) {
      for (const std::string sync : kRmaSyncs) {
        cases.push_back({.name = "rma." + component + "." + op + "." + sync,
                         .description = "MPI_" + op + " from every rank to every rank in a " + sync + " epoch, osc/" +
                                        component + ": osc_sent and osc_recv exact",
                         .program = kRmaProgram,
                         .args = {op, sync},
                         .control = true,
                         .process_counts = component == "rdma" ? std::vector<int>{2, 3} : std::vector<int>{3},
                         .modes = {2},
                         .mca = {{"osc", component + ",monitoring"}},
                         .check = one_sided_check(),
                         .required_component = "osc:" + component});
      }
    }
  }
  return cases;
}

// The defects of component lists and of one-process windows, on the one-sided program.
std::vector<ValidationCase> component_defect_cases() {
  const LedgerCheck one_sided = one_sided_check();
  return {
      {.name = "defect.osc_list",
       .description = "--mca osc rdma (no monitoring in the list) silently disables one-sided monitoring",
       .program = kRmaProgram,
       .args = {"put", "fence"},
       .control = true,
       .process_counts = {2},
       .modes = {2},
       .mca = {{"osc", "rdma"}},
       .check = one_sided,
       .defect = "osc-list-disables-monitoring",
       .required_component = "osc:monitoring"},
      {.name = "defect.one_process_window",
       .description = "MPI_Win_create on one process with osc monitoring: the wrapped component refuses the window",
       .program = kRmaProgram,
       .args = {"put", "fence"},
       .process_counts = {1},
       .modes = {2},
       .check = one_sided,
       .defect = "one-process-window-refused"},
      {.name = "defect.coll_list_crash",
       .description = "--mca coll without monitoring in the list: segfault when a communicator is freed",
       .program = kRmaProgram,
       .args = {"put", "fence"},
       .process_counts = {2},
       .modes = {2},
       .mca = {{"coll", "tuned,self,libnbc,basic"}},
       .check = one_sided,
       .defect = "coll-list-crash"},
  };
}

// The defect a collective case pins: the known defect that names it (docs/defects.md).
std::string collective_defect(const std::string& op) {
  for (const auto& d : known_defects()) {
    if (std::find(d.pinned.begin(), d.pinned.end(), "coll." + op) != d.pinned.end()) return d.id;
  }
  return "";
}

std::vector<ValidationCase> collective_cases() {
  std::vector<ValidationCase> cases;
  for (const std::string op : kCollectives) {
    cases.push_back({.name = "coll." + op,
                     .description = "MPI_" + op +
                                    " once on a named communicator: C matrix and O2A/A2O/A2A records as RR-9038 "
                                    "documents them",
                     .program = kCollProgram,
                     .args = {op},
                     .control = true,
                     .process_counts = {4},
                     .modes = {2},
                     .check = classes_only({TrafficClass::coll}, true),
                     .defect = collective_defect(op)});
  }
  return cases;
}

// MPI_T: the counters read in-process around known traffic. The variables of mpit.pml and the
// flushes are pml/monitoring's: without the component, UNSUPPORTED is not the defect. On Open MPI
// 5.0.7 the use after free of mpit.flush_free shows either as a crash or as a flush that writes the
// freed record again (members "(null)"): the rule crash_or_report accepts exactly these two.
std::vector<ValidationCase> mpit_cases() {
  const LedgerCheck in_process = classes_only({}, false);
  return {
      {.name = "mpit.coll_osc",
       .description = "coll_monitoring_messages_*, osc_monitoring_messages_* and coll_monitoring_a2a_count read "
                      "through MPI_T around known traffic: deltas = ledger",
       .program = kMpitProgram,
       .args = {"coll_osc"},
       .self_checking = true,
       .process_counts = {2, 3},
       .modes = {2},
       .check = in_process},
      {.name = "mpit.pml",
       .description = "pml_monitoring_messages_count/size read through MPI_T: deltas = ledger",
       .program = kMpitProgram,
       .args = {"pml"},
       .self_checking = true,
       .process_counts = {2, 3},
       .modes = {2},
       .check = in_process,
       .defect = "pml-mpit-invalid-after-init",
       .required_component = "pml:monitoring"},
      {.name = "mpit.stop",
       .description = "stopping one MPI_T handle must leave another counting",
       .program = kMpitProgram,
       .args = {"stop"},
       .self_checking = true,
       .process_counts = {2},
       .modes = {2},
       .check = in_process,
       .defect = "stopping-one-handle-stops-all"},
      {.name = "mpit.flush",
       .description = "two phases flushed to files with pml_monitoring_flush, merged by mpimon-merge: one group "
                      "per phase, each = its ledger",
       .program = kMpitProgram,
       .args = {"flush"},
       .self_checking = true,
       .process_counts = {2},
       .modes = {2},
       .check = in_process,
       .defect = "pml-mpit-invalid-after-init",
       .flushed_phases = 2,
       .required_component = "pml:monitoring"},
      {.name = "mpit.flush_free",
       .description = "three phases flushed with pml_monitoring_flush around a communicator freed with no "
                      "collective on it: each phase = its ledger, and no run crashes",
       .program = kMpitProgram,
       .args = {"flush_free"},
       .self_checking = true,
       .process_counts = {2},
       .modes = {2},
       .check = in_process,
       .defect = "flush-after-comm-free",
       .flushed_phases = 3,
       .required_component = "pml:monitoring"},
  };
}

// The application workloads (docs/workloads.md), small class, one case per row of the workloads
// table: everything they send is in their ledger. A workload that calls no collective sends its
// reports by point-to-point, so E and its histograms are exact and I is empty, and mode 1 (all
// point-to-point in E) must give the same E as mode 2; CG's allreduces are compared as C entries
// and MPI_COMM_WORLD's A2A record, and their decomposition fills I.
std::vector<ValidationCase> workload_cases() {
  std::vector<ValidationCase> cases;
  for (const auto& w : kWorkloadKinds) {
    ValidationCase c{.name = "workload." + std::string(w.name),
                     .description = std::string(w.summary) +
                                    (w.collectives ? ": E and C exact" : ": E and histograms exact, I empty"),
                     .program = kWorkloadProgram,
                     .args = {"--workload", std::string(w.name)},
                     .modes = w.collectives ? std::vector{2} : std::vector{1, 2},
                     .check = w.collectives ? classes_only({TrafficClass::external, TrafficClass::coll}, true)
                                            : point_to_point_check(),
                     .ledger_option = "--ledger"};
    for (int np : w.validation_nps) {
      if (np > 0) c.process_counts.push_back(np);
    }
    cases.push_back(std::move(c));
  }
  // A variant of a workload's options that the monitoring must also see exactly.
  cases.push_back({.name = "workload.stencil27",
                   .description = "the stencil with 27 points (faces, edges, corners; 26 messages per rank and "
                                  "iteration): E and histograms exact, I empty",
                   .program = kWorkloadProgram,
                   .args = {"--workload", "stencil", "--points", "27"},
                   .process_counts = {2, 4},
                   .modes = {1, 2},
                   .check = point_to_point_check(),
                   .ledger_option = "--ledger"});
  return cases;
}

std::vector<ValidationCase> build_cases() {
  std::vector<ValidationCase> cases;
  for (auto group :
       {point_to_point_cases, one_sided_cases, component_defect_cases, collective_cases, mpit_cases, workload_cases}) {
    append(cases, group());
  }
  for (auto& c : cases) {
    if (!c.defect.empty()) c.defect_present_on = known_defect(c.defect).series;
  }
  return cases;
}

}  // namespace

LedgerCheck point_to_point_check() {
  LedgerCheck c;
  c.classes = {TrafficClass::external};
  c.must_be_empty = {TrafficClass::internal};
  return c;
}

const std::vector<ValidationCase>& validation_cases() {
  static const std::vector<ValidationCase> cases = build_cases();
  return cases;
}

}  // namespace mpimon::harness
