// MPI_T ground truth: reads Open MPI's monitoring performance variables around known traffic and
// compares them with the ledger of that traffic, in the program itself (the variables live in
// the processes). Prints one line per finding, which `mpimon validate` reads:
//   UNSUPPORTED <variable>: <why>          the variable cannot be used with this Open MPI
//   MISMATCH rank R <variable>[peer]: read X, ledger Y
//   CHECKED rank R: N values
// Usage: mpimon-mpit-ledger LEDGER_PREFIX pml|coll_osc|stop|flush|flush_free
//   pml       pml_monitoring_messages_count/size against the point-to-point ledger
//   coll_osc  coll_monitoring_messages_*, osc_monitoring_messages_*, coll_monitoring_a2a_count
//   stop      stops the handle of coll_monitoring_messages_count, then checks that
//             osc_monitoring_messages_sent_count still counts (MPI_T: handles are independent)
//   flush     two phases flushed with pml_monitoring_flush to LEDGER_PREFIX.phase_K.RANK.prof,
//             each compared with its phase's ledger, which is also written next to it
//             (LEDGER_PREFIX.phase_K.RANK.ledger) for mpimon validate to check the merged phases
//   flush_free  as flush with three phases, a communicator duplicated before phase 1 and freed
//             with no collective on it before phase 2: on Open MPI 5.0.7 the flush ending phase 3
//             reads the freed communicator's record (docs/defects.md#flush-after-comm-free)
// Run with pml_monitoring_enable=2 (the pml counters then hold external traffic only).

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "mpimon/base/error.hpp"
#include "mpimon/matrices/prof.hpp"
#include "mpimon/models/ledger.hpp"
#include "mpimon/mpi/mpi_support.hpp"
#include "mpimon/mpi/mpit.hpp"

namespace {

using mpimon::Ledger;
using mpimon::TrafficClass;

struct Watched {
  const char* name;
  int var_class;
  TrafficClass traffic;
  bool bytes;  // else counts
};

int g_rank = 0, g_size = 1;
constexpr int kBlock = 5;

void say(const std::string& line) {
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// Point-to-point: 100 x (peer + 1) + phase bytes to every rank, itself included.
void send_to_everyone(Ledger& ledger, int phase) {
  std::vector<std::vector<char>> in(static_cast<std::size_t>(g_size)), out(in.size());
  std::vector<MPI_Request> requests;
  for (int p = 0; p < g_size; ++p) {
    const std::size_t incoming = static_cast<std::size_t>(100 * (g_rank + 1) + phase);
    const std::size_t outgoing = static_cast<std::size_t>(100 * (p + 1) + phase);
    in[static_cast<std::size_t>(p)].resize(incoming);
    out[static_cast<std::size_t>(p)].resize(outgoing);
    MPI_Request r;
    mpimon::mpi::check(MPI_Irecv(in[static_cast<std::size_t>(p)].data(), static_cast<int>(incoming), MPI_BYTE, p, 7,
                                 MPI_COMM_WORLD, &r),
                       "MPI_Irecv");
    requests.push_back(r);
    mpimon::mpi::check(MPI_Isend(out[static_cast<std::size_t>(p)].data(), static_cast<int>(outgoing), MPI_BYTE, p, 7,
                                 MPI_COMM_WORLD, &r),
                       "MPI_Isend");
    requests.push_back(r);
    ledger.record(TrafficClass::external, static_cast<std::uint32_t>(p), outgoing);
  }
  mpimon::mpi::check(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                     "MPI_Waitall");
}

std::uint64_t ledger_value(const Ledger& ledger, TrafficClass c, int peer, bool bytes) {
  std::uint64_t v = 0;
  for (const auto& e : ledger.entries()) {
    if (e.traffic_class == c && e.peer == static_cast<std::uint32_t>(peer)) v += bytes ? e.bytes : 1;
  }
  return v;
}

// Starts a handle for each watched variable that exists; reports the others.
std::vector<std::pair<const Watched*, std::size_t>> start_all(mpimon::mpi::PvarSession& session,
                                                              const std::vector<Watched>& watched) {
  std::vector<std::pair<const Watched*, std::size_t>> started;
  for (const auto& w : watched) {
    int error = 0;
    auto index = mpimon::mpi::find_pvar(w.name, w.var_class, &error);
    if (!index) {
      if (g_rank == 0)
        say(std::string("UNSUPPORTED ") + w.name + ": " + mpimon::mpi::mpit_error_name(error) + " after MPI_Init");
      continue;
    }
    started.emplace_back(&w, session.start(*index, MPI_COMM_WORLD));
  }
  return started;
}

void check_counters(const std::vector<Watched>& watched, bool with_rma_and_collective) {
  mpimon::mpi::PvarSession session;
  auto started = start_all(session, watched);
  MPI_Win win;
  std::vector<int> window(1024, 0), origin(1024, 1);
  if (with_rma_and_collective) {
    mpimon::mpi::check(MPI_Win_create(window.data(), 4096, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                       "MPI_Win_create");
  }
  // The a2a record counts calls on the bound communicator since its handle started.
  std::optional<std::size_t> a2a_handle;
  if (with_rma_and_collective) {
    if (auto index = mpimon::mpi::find_pvar("coll_monitoring_a2a_count", MPI_T_PVAR_CLASS_COUNTER)) {
      a2a_handle = session.start(*index, MPI_COMM_WORLD);
    } else if (g_rank == 0) {
      say("UNSUPPORTED coll_monitoring_a2a_count: not found after MPI_Init");
    }
  }
  std::vector<std::vector<std::uint64_t>> before;
  for (auto& [w, h] : started) before.push_back(session.read(h));

  Ledger ledger(static_cast<std::uint32_t>(g_rank), static_cast<std::uint32_t>(g_size));
  send_to_everyone(ledger, 0);
  if (with_rma_and_collective) {
    std::vector<int> send(static_cast<std::size_t>(kBlock * g_size), 1), recv(send.size());
    mpimon::mpi::check(MPI_Alltoall(send.data(), kBlock, MPI_INT, recv.data(), kBlock, MPI_INT, MPI_COMM_WORLD),
                       "MPI_Alltoall");
    for (int p = 0; p < g_size; ++p) {
      if (p != g_rank) ledger.record(TrafficClass::coll, static_cast<std::uint32_t>(p), kBlock * sizeof(int));
      mpimon::mpi::check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, p, 0, win), "MPI_Win_lock");
      mpimon::mpi::check(MPI_Put(origin.data(), 3 + p, MPI_INT, p, 0, 3 + p, MPI_INT, win), "MPI_Put");
      mpimon::mpi::check(MPI_Win_unlock(p, win), "MPI_Win_unlock");
      ledger.record(TrafficClass::osc_sent, static_cast<std::uint32_t>(p), (3 + p) * sizeof(int));
    }
  }

  std::size_t values = 0;
  for (std::size_t k = 0; k < started.size(); ++k) {
    const Watched& w = *started[k].first;
    auto after = session.read(started[k].second);
    for (int p = 0; p < g_size && static_cast<std::size_t>(p) < after.size(); ++p) {
      std::uint64_t read = after[static_cast<std::size_t>(p)] - before[k][static_cast<std::size_t>(p)];
      std::uint64_t expected = ledger_value(ledger, w.traffic, p, w.bytes);
      ++values;
      if (read != expected) {
        say("MISMATCH rank " + std::to_string(g_rank) + " " + w.name + "[" + std::to_string(p) + "]: read " +
            std::to_string(read) + ", ledger " + std::to_string(expected));
      }
    }
  }
  if (a2a_handle) {
    auto calls = session.read(*a2a_handle);
    ++values;
    if (calls.empty() || calls[0] != 1) {
      say("MISMATCH rank " + std::to_string(g_rank) + " coll_monitoring_a2a_count: read " +
          (calls.empty() ? std::string("nothing") : std::to_string(calls[0])) + ", made 1");
    }
  }
  say("CHECKED rank " + std::to_string(g_rank) + ": " + std::to_string(values) + " values");
  if (with_rma_and_collective) MPI_Win_free(&win);
}

// Handles are independent in MPI_T: stopping one must not stop another.
void check_stop_is_per_handle() {
  auto coll = mpimon::mpi::find_pvar("coll_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE);
  auto osc = mpimon::mpi::find_pvar("osc_monitoring_messages_sent_count", MPI_T_PVAR_CLASS_SIZE);
  if (!coll || !osc) {
    if (g_rank == 0) say("UNSUPPORTED coll/osc monitoring variables: not found after MPI_Init");
    return;
  }
  std::vector<int> window(1024, 0), origin(1024, 1);
  MPI_Win win;
  mpimon::mpi::check(MPI_Win_create(window.data(), 4096, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win),
                     "MPI_Win_create");
  mpimon::mpi::PvarSession session;
  const std::size_t coll_handle = session.start(*coll, MPI_COMM_WORLD);
  const std::size_t osc_handle = session.start(*osc, MPI_COMM_WORLD);
  auto before = session.read(osc_handle);
  session.stop(coll_handle);
  std::size_t values = 0;
  for (int p = 0; p < g_size; ++p) {
    mpimon::mpi::check(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, p, 0, win), "MPI_Win_lock");
    mpimon::mpi::check(MPI_Put(origin.data(), 3, MPI_INT, p, 0, 3, MPI_INT, win), "MPI_Put");
    mpimon::mpi::check(MPI_Win_unlock(p, win), "MPI_Win_unlock");
  }
  auto after = session.read(osc_handle);
  for (int p = 0; p < g_size; ++p) {
    std::uint64_t read = after[static_cast<std::size_t>(p)] - before[static_cast<std::size_t>(p)];
    ++values;
    if (read != 1) {
      say("MISMATCH rank " + std::to_string(g_rank) + " osc_monitoring_messages_sent_count[" + std::to_string(p) +
          "] after stopping another handle: read " + std::to_string(read) + ", ledger 1");
    }
  }
  say("CHECKED rank " + std::to_string(g_rank) + ": " + std::to_string(values) + " values");
  MPI_Win_free(&win);
}

// Phases: the flush variable's handle names the file; stopping it writes NAME.RANK.prof.
void check_flush(const std::string& prefix, bool free_between) {
  int error = 0;
  auto index = mpimon::mpi::find_pvar("pml_monitoring_flush", MPI_T_PVAR_CLASS_GENERIC, &error);
  if (!index) {
    if (g_rank == 0)
      say("UNSUPPORTED pml_monitoring_flush: " + mpimon::mpi::mpit_error_name(error) + " after MPI_Init");
    return;
  }
  MPI_T_pvar_session session;
  mpimon::mpi::check(MPI_T_pvar_session_create(&session), "MPI_T_pvar_session_create");
  MPI_T_pvar_handle handle;
  int elements = 0;
  mpimon::mpi::check(MPI_T_pvar_handle_alloc(session, *index, nullptr, &handle, &elements), "MPI_T_pvar_handle_alloc");
  std::size_t values = 0;
  MPI_Comm dup = MPI_COMM_NULL;
  if (free_between) {
    mpimon::mpi::check(MPI_Comm_dup(MPI_COMM_WORLD, &dup), "MPI_Comm_dup");
    // The duplication agrees on a context id through internal messages: flushed to a setup phase
    // (PREFIX.phase_0, not compared), so that phase 1 holds only what its ledger says.
    const std::string setup = prefix + ".phase_0";
    mpimon::mpi::check(MPI_T_pvar_write(session, handle, setup.c_str()), "MPI_T_pvar_write");
    mpimon::mpi::check(MPI_T_pvar_start(session, handle), "MPI_T_pvar_start");
    mpimon::mpi::check(MPI_T_pvar_stop(session, handle), "MPI_T_pvar_stop");
  }
  // Freed between phases 1 and 2 without a collective on it: the flush ending phase 2 releases
  // its record, and the flush ending phase 3 reads it again.
  const int phases = free_between ? 3 : 2;
  for (int phase = 1; phase <= phases; ++phase) {
    if (phase == 2 && free_between) mpimon::mpi::check(MPI_Comm_free(&dup), "MPI_Comm_free");
    const std::string name = prefix + ".phase_" + std::to_string(phase);
    mpimon::mpi::check(MPI_T_pvar_write(session, handle, name.c_str()), "MPI_T_pvar_write");
    mpimon::mpi::check(MPI_T_pvar_start(session, handle), "MPI_T_pvar_start");
    Ledger ledger(static_cast<std::uint32_t>(g_rank), static_cast<std::uint32_t>(g_size));
    send_to_everyone(ledger, phase);
    mpimon::mpi::check(MPI_T_pvar_stop(session, handle), "MPI_T_pvar_stop");
    ledger.write(name);  // NAME.RANK.ledger next to NAME.RANK.prof: mpimon validate merges and compares them
    const std::string file = name + "." + std::to_string(g_rank) + ".prof";
    if (!std::filesystem::exists(file)) {
      say("MISMATCH rank " + std::to_string(g_rank) + " phase " + std::to_string(phase) + ": " + file + " not written");
      continue;
    }
    mpimon::RankProfile profile;
    try {
      profile = mpimon::read_prof_file(file, static_cast<std::uint32_t>(g_rank));
    } catch (const mpimon::Error& e) {  // Open MPI 5.0.7's flush of a freed record (flush-after-comm-free)
      say("MISMATCH rank " + std::to_string(g_rank) + " phase " + std::to_string(phase) +
          ": dump unreadable: " + e.what());
      continue;
    }
    for (int p = 0; p < g_size; ++p) {
      std::uint64_t count_read = 0, bytes_read = 0;
      for (const auto& r : profile.pairs) {
        if (r.traffic_class == TrafficClass::external && r.peer == static_cast<std::uint32_t>(p)) {
          count_read = r.count;
          bytes_read = r.bytes;
        }
      }
      values += 2;
      const std::uint64_t count = ledger_value(ledger, TrafficClass::external, p, false);
      const std::uint64_t bytes = ledger_value(ledger, TrafficClass::external, p, true);
      if (count_read != count || bytes_read != bytes) {
        say("MISMATCH rank " + std::to_string(g_rank) + " phase " + std::to_string(phase) + " E[" + std::to_string(p) +
            "]: dump " + std::to_string(count_read) + " msgs " + std::to_string(bytes_read) + " bytes, ledger " +
            std::to_string(count) + " msgs " + std::to_string(bytes) + " bytes");
      }
    }
  }
  MPI_T_pvar_handle_free(session, &handle);
  MPI_T_pvar_session_free(&session);
  say("CHECKED rank " + std::to_string(g_rank) + ": " + std::to_string(values) + " values");
}

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session mpi(argc, argv);
  g_rank = mpi.rank();
  g_size = mpi.size();
  if (argc < 3) mpimon::mpi::abort_job("usage: mpimon-mpit-ledger LEDGER_PREFIX pml|coll_osc|stop|flush|flush_free");
  const std::string prefix = argv[1], what = argv[2];
  std::filesystem::create_directories(std::filesystem::path(prefix).parent_path());
  int provided = 0;
  mpimon::mpi::check(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), "MPI_T_init_thread");
  const int size_class = MPI_T_PVAR_CLASS_SIZE;
  if (what == "pml") {
    check_counters({{"pml_monitoring_messages_count", size_class, TrafficClass::external, false},
                    {"pml_monitoring_messages_size", size_class, TrafficClass::external, true}},
                   false);
  } else if (what == "coll_osc") {
    check_counters({{"coll_monitoring_messages_count", size_class, TrafficClass::coll, false},
                    {"coll_monitoring_messages_size", size_class, TrafficClass::coll, true},
                    {"osc_monitoring_messages_sent_count", size_class, TrafficClass::osc_sent, false},
                    {"osc_monitoring_messages_sent_size", size_class, TrafficClass::osc_sent, true},
                    {"osc_monitoring_messages_recv_count", size_class, TrafficClass::osc_recv, false},
                    {"osc_monitoring_messages_recv_size", size_class, TrafficClass::osc_recv, true}},
                   true);
  } else if (what == "stop") {
    check_stop_is_per_handle();
  } else if (what == "flush" || what == "flush_free") {
    check_flush(prefix, what == "flush_free");
  } else {
    mpimon::mpi::abort_job("unknown check '" + what + "'");
  }
  MPI_T_finalize();  // before MPI_Finalize (the Session's destructor)
  return 0;
}
