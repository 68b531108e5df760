#include "mpimon/models/defects.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "mpimon/base/error.hpp"

namespace mpimon {

namespace {

const std::vector<std::string> kBothSeries = {"4.1", "5.0"};

std::vector<KnownDefect> build_table() {
  using R = DefectRule;
  return {
      {"persistent-send-uncounted",
       kBothSeries,
       R::ledger_transform,
       "persistent sends are missing from E and its histograms (the pinned run sends only persistent messages)",
       {"defect.persistent_send"},
       "messages sent with MPI_Send_init + MPI_Start are not counted: E undercounts codes built on persistent "
       "requests"},
      {"pml-list-disables-monitoring",
       kBothSeries,
       R::no_dump,
       "no rank writes a dump and the run exits 0",
       {"defect.pml_list"},
       "with --mca pml LIST without monitoring nothing is recorded and nothing says so: check every dump exists"},
      {"osc-list-disables-monitoring",
       kBothSeries,
       R::ledger_transform,
       "the one-sided (S/R) traffic is missing; the rest is exact",
       {"defect.osc_list"},
       "with --mca osc LIST without monitoring, S and R hold nothing: one-sided traffic is silently not counted"},
      {"coll-list-crash",
       kBothSeries,
       R::crash,
       "the run dies of a segmentation fault in the monitoring's clean-up of a freed communicator",
       {"defect.coll_list_crash"},
       "with --mca coll LIST without monitoring the program crashes at the first communicator freed",
       {R"(mca_common_monitoring_coll_cache_name)", R"(mca_pml_monitoring_del_comm)"}},
      // osc/monitoring takes the best-placed osc component and does not fall back when it refuses
      // the window (sm and rdma refuse MPI_Win_create on one process; pt2pt and ucx accept it).
      {"one-process-window-refused",
       {"4.1"},
       R::refused,
       "MPI_Win_create on a one-process communicator fails with MPI_ERR_WIN; without osc monitoring it succeeds",
       {"defect.one_process_window"},
       "one-sided programs fail at MPI_Win_create on one process (np 1, or MPI_COMM_SELF) with monitoring on",
       {R"(MPI_Win_create)", R"(MPI_ERR_WIN: invalid window)"}},
      {"all-to-one-recorded-by-root",
       kBothSeries,
       R::ledger_transform,
       "every C entry is recorded by the root towards the process instead of by the process towards the root",
       {"coll.gather", "coll.gatherv", "coll.reduce", "coll.igather", "coll.igatherv", "coll.ireduce"},
       "C entries of gathers and reductions point from the root to each process: the direction is reversed"},
      {"scatterv-counts-root-itself",
       kBothSeries,
       R::ledger_transform,
       "the root records a C entry to itself with its own block and adds that block to its O2A record",
       {"coll.scatterv", "coll.iscatterv"},
       "scatterv roots show a C entry to themselves and an O2A one block too large"},
      {"scan-record-off-by-one",
       kBothSeries,
       R::ledger_transform,
       "every rank's A2A record holds one block more than it sent; the C entries are right",
       {"coll.scan", "coll.exscan", "coll.iscan", "coll.iexscan"},
       "A2A records of scans are one block too large on every rank (C entries are right)"},
      // The monitoring reads every topology as Cartesian: on a dist graph its "dimension count" is
      // half of a pointer, so a rank crashes on a NULL "dims" array when that half is positive.
      // Open MPI 5.0.7 also refuses the call without monitoring, with MPI_ERR_ARG or, in about a
      // third of the runs, MPI_ERR_INTERN (exit code 13 or 17).
      {"distgraph-neighbor-crash",
       kBothSeries,
       R::crash,
       "the run dies of a segmentation fault at address NULL in mca_coll_monitoring_neighbor_alltoall, which a run "
       "without monitoring does not show",
       {"coll.distgraph_neighbor_alltoall"},
       "MPI_Neighbor_alltoall on a dist-graph communicator crashes under monitoring",
       {R"(mca_coll_monitoring_neighbor_alltoall)", R"(address:? \(nil\))"},
       {},
       {{"5.0",
         {R"(An error occurred in MPI_Neighbor_alltoall)", R"(on communicator mpimon_graph)",
          R"(MPI_ERR_(ARG: invalid argument of some other kind|INTERN: internal error))"}}}},
      // The case's control run makes and frees the same communicators without the Bcast: their
      // context-id agreement (comm_cid.c: one-int iallreduces on the parent, MAX and MIN per round
      // and one MIN to activate, identical in both runs) is subtracted, and C is compared exactly.
      {"freed-communicator-record-lost",
       kBothSeries,
       R::ledger_transform,
       "the O2A/A2O/A2A records of the freed communicator mpimon_freed are missing; its C entries are right",
       {"coll.bcast_on_freed_comm"},
       "records of a communicator freed before another is created are lost from the dump"},
      {"pml-mpit-invalid-after-init",
       {"4.1"},
       R::exact_report,
       "the program reports the PML's MPI_T variables as invalid after MPI_Init, and nothing else",
       {"mpit.pml", "mpit.flush"},
       "no PML counters and no flushed phases through MPI_T: only the finalize dump is available",
       {R"(UNSUPPORTED pml_monitoring_(messages_count|messages_size|flush): MPI_T_ERR_INVALID_NAME after MPI_Init)"}},
      // common_monitoring.c keeps one on/off state per process, which the stop of any handle
      // clears: every put of every rank after the stop is missing from the osc handle.
      {"stopping-one-handle-stops-all",
       kBothSeries,
       R::exact_report,
       "after one MPI_T handle is stopped, another handle misses every put of every rank, and nothing else differs",
       {"mpit.stop"},
       "stopping any monitoring MPI_T handle stops all counting, including the dump",
       {R"(MISMATCH rank {rank} osc_monitoring_messages_sent_count\[{peer}\] after stopping another handle: read 0, ledger 1)"}},
      {"persistent-collective-external",
       kBothSeries,
       R::collective_model,
       "the collective's persistent sends are recorded in E instead of I (the sweep's model predicts it)",
       {"validation.collective.alltoall.linear.np3.ideal"},
       "with mode 2 the linear alltoall lands in E: E is not purely the application's own traffic"},
      // Reached through the MPI_T flush only, which Open MPI 4.1 does not provide after MPI_Init
      // (pml-mpit-invalid-after-init): on 4.1 the pinned case reports the flush unsupported.
      {"flush-after-comm-free",
       {"5.0"},
       R::crash_or_report,
       "the MPI_T flush after a communicator was freed reads the freed record: either the run dies of a "
       "segmentation fault in mca_common_monitoring_coll_flush (the run without monitoring does not), or every "
       "rank's last phase holds one more communicator record, whose member list is '(null)' (so the program "
       "cannot read its own dump of that phase), and nothing else differs",
       {"mpit.flush_free"},
       "an MPI_T flush (mpimon collect's phases) after a communicator is freed reads freed memory and can crash",
       {R"(mca_common_monitoring_coll_flush)"},
       {R"(MISMATCH rank {rank} phase 3: dump unreadable: .*communicator member '\(null\)' is not a non-negative integer)",
        R"(phase 3: rank {rank} flushed a record of communicator .* whose members are not ranks: \(null\))"}},
      {"composite-collectives-counted-twice",
       kBothSeries,
       R::ledger_transform,
       "the allgatherv is recorded, and so are its inner gatherv to rank 0 (recorded by the root, as every "
       "all-to-one) and bcast of all the blocks from rank 0: rank 0 has 2 more C entries to each process and an A2O "
       "and an O2A record",
       {"coll.allgatherv"},
       "allgatherv is recorded once per inner gatherv and bcast: C and the records are inflated"},
  };
}

Ledger copy_header(const Ledger& l) { return Ledger(l.rank(), l.nprocs()); }

// Each ledger with only the entries `keep` accepts; calls unchanged.
std::vector<Ledger> filter_entries(const std::vector<Ledger>& ideal, bool (*keep)(const LedgerEntry&)) {
  std::vector<Ledger> out;
  for (const auto& l : ideal) {
    Ledger t = copy_header(l);
    for (const auto& e : l.entries()) {
      if (keep(e)) t.record(e.traffic_class, e.peer, e.bytes);
    }
    for (const auto& c : l.calls()) t.record_call(c.kind, c.communicator, c.bytes);
    out.push_back(std::move(t));
  }
  return out;
}

// Open MPI 4.1 records all-to-one collectives at the root, one C entry towards each process.
std::vector<Ledger> reverse_collective_entries(const std::vector<Ledger>& ideal) {
  std::vector<Ledger> out;
  for (const auto& l : ideal) out.push_back(copy_header(l));
  for (const auto& l : ideal) {
    for (const auto& e : l.entries()) {
      if (e.traffic_class == TrafficClass::coll) {
        if (e.peer >= out.size()) raise_error(Error::Kind::input, "ledger", "peer beyond the ledgers' processes");
        out[e.peer].record(e.traffic_class, l.rank(), e.bytes);
      } else {
        out[l.rank()].record(e.traffic_class, e.peer, e.bytes);
      }
    }
    for (const auto& c : l.calls()) out[l.rank()].record_call(c.kind, c.communicator, c.bytes);
  }
  return out;
}

// Scatterv (coll_monitoring_scatterv.c) loops over every rank, the root included: the block the root
// keeps (the ledger's LOCAL line) becomes a C entry to itself and part of its O2A record.
std::vector<Ledger> root_records_own_block(const std::vector<Ledger>& ideal) {
  std::vector<Ledger> out;
  for (const auto& l : ideal) {
    Ledger t = copy_header(l);
    for (const auto& e : l.entries()) t.record(e.traffic_class, e.peer, e.bytes);
    std::map<std::string, std::uint64_t> own;
    for (const auto& b : l.locals()) {
      t.record(TrafficClass::coll, l.rank(), b.bytes);
      own[b.communicator] += b.bytes;
    }
    for (const auto& c : l.calls()) {
      std::uint64_t extra = 0;
      if (c.kind == CollectiveKind::one_to_all) extra = std::exchange(own[c.communicator], 0);
      t.record_call(c.kind, c.communicator, c.bytes + extra);
    }
    for (const auto& [name, left] : own) {
      if (left != 0) raise_error(Error::Kind::input, "ledger", "a root's own block on " + name + " without its call");
    }
    out.push_back(std::move(t));
  }
  return out;
}

// Open MPI's default blocking allgatherv (coll/base's basic_default: a gatherv to rank 0, then a
// bcast from rank 0 of one datatype covering every block) calls both through the communicator's
// collective table, where the monitoring records them again (coll_monitoring_gatherv.c and
// _bcast.c): the gatherv by the root, a C entry towards each other process with that process's
// block and an A2O record of their sum; the bcast a C entry towards each other process with all
// the blocks and an O2A record of that times P - 1. The pinned communicator spans MPI_COMM_WORLD
// in order, so its rank 0 is world rank 0; each rank's block is what its ledger sends each peer.
std::vector<Ledger> add_inner_gatherv_and_bcast(const std::vector<Ledger>& ideal) {
  const std::size_t n = ideal.size();
  std::vector<std::uint64_t> block(n, 0);
  std::string communicator;
  for (std::size_t r = 0; r < n; ++r) {
    const Ledger& l = ideal[r];
    if (l.rank() != r || l.nprocs() != n) raise_error(Error::Kind::input, "ledger", "ledgers not in rank order");
    std::set<std::uint64_t> sizes;
    for (const auto& e : l.entries()) {
      if (e.traffic_class == TrafficClass::coll) sizes.insert(e.bytes);
    }
    if (sizes.size() > 1) raise_error(Error::Kind::input, "ledger", "an allgatherv sends one block size per rank");
    if (!sizes.empty()) block[r] = *sizes.begin();
    for (const auto& c : l.calls()) {
      if (c.kind != CollectiveKind::all_to_all || (!communicator.empty() && c.communicator != communicator)) {
        raise_error(Error::Kind::input, "ledger", "expected all-to-all calls on one communicator");
      }
      communicator = c.communicator;
    }
  }
  std::vector<Ledger> out = ideal;
  if (n < 2 || communicator.empty()) return out;
  std::uint64_t all = 0, gathered = 0;
  for (std::size_t r = 0; r < n; ++r) all += block[r];
  for (std::size_t p = 1; p < n; ++p) {
    out[0].record(TrafficClass::coll, static_cast<std::uint32_t>(p), block[p]);  // gatherv, by the root
    out[0].record(TrafficClass::coll, static_cast<std::uint32_t>(p), all);       // bcast
    gathered += block[p];
  }
  out[0].record_call(CollectiveKind::all_to_one, communicator, gathered);
  out[0].record_call(CollectiveKind::one_to_all, communicator, all * (n - 1));
  return out;
}

// Scan and exscan: rank r sends its block to each higher rank; its A2A record holds one block more.
std::vector<Ledger> add_one_block_to_all_to_all(const std::vector<Ledger>& ideal) {
  std::uint64_t block = 0;
  for (const auto& l : ideal) {
    for (const auto& e : l.entries()) {
      if (e.traffic_class == TrafficClass::coll) block = e.bytes;
    }
  }
  std::vector<Ledger> out;
  for (const auto& l : ideal) {
    Ledger t = copy_header(l);
    for (const auto& e : l.entries()) t.record(e.traffic_class, e.peer, e.bytes);
    for (const auto& c : l.calls()) {
      t.record_call(c.kind, c.communicator, c.kind == CollectiveKind::all_to_all ? c.bytes + block : c.bytes);
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Ledger> drop_calls_on(const std::vector<Ledger>& ideal, const std::string& communicator) {
  std::vector<Ledger> out;
  for (const auto& l : ideal) {
    Ledger t = copy_header(l);
    for (const auto& e : l.entries()) t.record(e.traffic_class, e.peer, e.bytes);
    for (const auto& c : l.calls()) {
      if (c.communicator != communicator) t.record_call(c.kind, c.communicator, c.bytes);
    }
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

const std::vector<KnownDefect>& known_defects() {
  static const std::vector<KnownDefect> table = build_table();
  return table;
}

const KnownDefect& known_defect(const std::string& id) {
  for (const auto& d : known_defects()) {
    if (d.id == id) return d;
  }
  raise_error(Error::Kind::input, id, "not a known defect (docs/defects.md)");
}

std::string defect_link(const std::string& id) { return "docs/defects.md#" + id; }

std::vector<Ledger> apply_defect(const std::string& id, const std::vector<Ledger>& ideal) {
  if (id == "persistent-send-uncounted") {
    return filter_entries(ideal, [](const LedgerEntry& e) { return e.traffic_class != TrafficClass::external; });
  }
  if (id == "osc-list-disables-monitoring") {
    return filter_entries(ideal, [](const LedgerEntry& e) {
      return e.traffic_class != TrafficClass::osc_sent && e.traffic_class != TrafficClass::osc_recv;
    });
  }
  if (id == "all-to-one-recorded-by-root") return reverse_collective_entries(ideal);
  if (id == "scan-record-off-by-one") return add_one_block_to_all_to_all(ideal);
  if (id == "scatterv-counts-root-itself") return root_records_own_block(ideal);
  if (id == "composite-collectives-counted-twice") return add_inner_gatherv_and_bcast(ideal);
  if (id == "freed-communicator-record-lost") return drop_calls_on(ideal, "mpimon_freed");
  raise_error(Error::Kind::input, id, "has no ledger rule");
}

std::vector<DefectWarning> defects_affecting(const RecordedFacts& facts) {
  // Where the file does not name its Open MPI, a defect seen on every established series applies.
  const auto applies = [&](const std::string& id) {
    const auto& series = known_defect(id).series;
    if (facts.open_mpi_series.empty()) return series.size() == 2;
    return std::find(series.begin(), series.end(), facts.open_mpi_series) != series.end();
  };
  const auto& loaded = facts.monitoring_components;
  const bool osc_left_out = !loaded.empty() && std::find(loaded.begin(), loaded.end(), "osc") == loaded.end();
  std::vector<DefectWarning> out;
  const auto add = [&](const std::string& id, bool relevant, const std::string& why) {
    if (relevant && applies(id)) out.push_back({id, why});
  };
  add("persistent-send-uncounted", facts.point_to_point, "point-to-point traffic recorded");
  add("osc-list-disables-monitoring", osc_left_out, "osc monitoring not loaded");
  add("all-to-one-recorded-by-root", facts.all_to_one_records, "all-to-one (A2O) collective records present");
  add("scatterv-counts-root-itself", facts.one_to_all_records, "one-to-all (O2A) collective records present");
  add("scan-record-off-by-one", facts.all_to_all_records, "all-to-all (A2A) collective records present");
  add("composite-collectives-counted-twice", facts.all_to_all_records, "all-to-all (A2A) collective records present");
  add("persistent-collective-external", facts.point_to_point && facts.internal_distinguished,
      "E and I recorded separately (pml_monitoring_enable 2)");
  return out;
}

}  // namespace mpimon
