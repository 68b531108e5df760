// mpimon-overhead-bench: the micro-benchmark program that `mpimon bench overhead` launches with
// monitoring off and on (docs/benchmarks.md). One Google Benchmark run per (operation, size); each
// run executes a fixed loop of W untimed and N timed iterations, identical on every rank, and
// reports the per-iteration maximum over ranks. Its options: usage() (overhead_bench_options.cpp),
// what --help prints; Google Benchmark's flags (e.g. --benchmark_out=F.json) pass through.
//
// The parts: overhead_bench_options.cpp (the command line), overhead_bench_context.cpp (provenance),
// overhead_bench_run.cpp (one benchmark's loop); this file starts MPI and MPI_T and runs them.

#include <dlfcn.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>

#include "mpimon/mpi/mpi_support.hpp"
#include "overhead_bench.hpp"

using namespace mpimon::bench;
using mpimon::is_rma;
using mpimon::mpi::check;

namespace {

class NullReporter final : public benchmark::BenchmarkReporter {
 public:
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};

// Ends MPI_T before MPI_Finalize (Open MPI 4.1 crashes in MPI_T_finalize after it).
struct MpitGuard {
  bool active = false;
  ~MpitGuard() {
    if (active) MPI_T_finalize();
  }
};

}  // namespace

int main(int argc, char** argv) {
  mpimon::mpi::Session mpi(argc, argv);
  const int rank = mpi.rank(), np = mpi.size();

  Options options;
  std::string usage_error;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& e) {
    usage_error = e.what();
  }
  // Every rank parses the same command line, so all reach the same verdict and leave together.
  if (!usage_error.empty()) {
    if (rank == 0) std::fprintf(stderr, "mpimon-overhead-bench: error: %s\n%s", usage_error.c_str(), usage().c_str());
    return 2;
  }
  if (options.help) {
    if (rank == 0) std::printf("%s", usage().c_str());
    return 0;
  }

  // --mpit-off: starting then stopping one monitoring handle switches all monitoring off for the
  // rest of the run (docs/defects.md, stopping-one-handle-stops-all). The handle is kept until
  // the end, freed, never restarted.
  MpitGuard mpit;
  std::optional<mpimon::mpi::PvarSession> pvars;
  std::optional<Switch> switcher;
  if (options.interleave > 0 && options.switch_kind == "delay") {
    using SetActive = int (*)(int);
    void* symbol = dlsym(RTLD_DEFAULT, "mpimon_pmpi_delay_set_active");
    if (!agree(symbol != nullptr, "--switch delay: the calibration library libmpimon-pmpi-delay.so is not preloaded",
               rank, np))
      return 3;
    switcher.emplace(reinterpret_cast<SetActive>(symbol));
    switcher->set(false);
  }
  if (options.mpit_off || (options.interleave > 0 && options.switch_kind == "mpit")) {
    int provided = 0;
    check(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), "MPI_T_init_thread");
    mpit.active = true;
    int error = MPI_SUCCESS;
    const auto index = mpimon::mpi::find_pvar("coll_monitoring_messages_count", MPI_T_PVAR_CLASS_SIZE, &error);
    if (!agree(index.has_value(),
               std::string(options.mpit_off ? "--mpit-off" : "--interleave") +
                   ": MPI_T has no coll_monitoring_messages_count (" + mpimon::mpi::mpit_error_name(error) +
                   "): the monitoring components are not loaded",
               rank, np))
      return 3;
    pvars.emplace();
    if (options.mpit_off) {
      pvars->stop(pvars->start(*index, MPI_COMM_WORLD));
    } else {
      switcher.emplace(*pvars, *index);
      switcher->set(false);  // counting only inside on-blocks
    }
  }

  // Google Benchmark sees its own flags only; ranks > 0 never get the output file flags (each
  // rank would otherwise truncate and write the same file) and print nothing on stdout.
  std::vector<std::string> gb_args{argv[0]};
  for (const auto& a : options.benchmark_args) {
    const bool out_flag = a.starts_with("--benchmark_out=") || a.starts_with("--benchmark_out_format=");
    if (rank == 0 || !out_flag) gb_args.push_back(a);
  }
  std::vector<char*> gb_argv;
  for (auto& a : gb_args) gb_argv.push_back(a.data());
  gb_argv.push_back(nullptr);
  int gb_argc = static_cast<int>(gb_args.size());
  if (rank != 0 && !std::freopen("/dev/null", "w", stdout)) return 4;
  benchmark::Initialize(&gb_argc, gb_argv.data());
  if (gb_argc > 1) {
    if (rank == 0)
      std::fprintf(stderr, "mpimon-overhead-bench: error: unknown argument '%s'\n%s", gb_argv[1], usage().c_str());
    return 2;
  }

  // Files rank 0 writes are opened before any benchmark, so a bad path fails fast on all ranks.
  std::FILE* samples = nullptr;
  std::FILE* blocks = nullptr;
  std::string file_error;
  if (rank == 0) {
    for (const auto& a : options.benchmark_args)
      if (a.starts_with("--benchmark_out=") && !std::ofstream(a.substr(std::strlen("--benchmark_out="))))
        file_error = "cannot write " + a.substr(std::strlen("--benchmark_out="));
    if (!options.samples.empty() && !(samples = std::fopen(options.samples.c_str(), "w")))
      file_error = "cannot write --samples file " + options.samples + ": " + std::strerror(errno);
    if (!options.blocks.empty() && !(blocks = std::fopen(options.blocks.c_str(), "w")))
      file_error = "cannot write --blocks file " + options.blocks + ": " + std::strerror(errno);
  }
  if (!agree(file_error.empty(), file_error, rank, np)) return 2;

  std::uint64_t seed = options.seed;
  check(MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  const std::string binding = gather_binding(rank, np);

  // The (op, size) list in a shuffled order, identical on every rank: Fisher-Yates driven by
  // mt19937_64(seed), written out so that no standard library's shuffle is involved.
  std::vector<std::pair<Op, int>> configs;
  std::string skipped;
  auto skip = [&](const std::string& what) {
    if (rank == 0) std::fprintf(stderr, "mpimon-overhead-bench: skipping %s\n", what.c_str());
    skipped += (skipped.empty() ? "" : "; ") + what;
  };
  std::string rma_error;
  if (std::any_of(options.ops.begin(), options.ops.end(), is_rma)) rma_error = window_error();
  for (Op op : options.ops) {
    if (op == Op::pingpong && np % 2 != 0) {
      skip("pingpong (needs an even number of processes, np = " + std::to_string(np) + ")");
      continue;
    }
    if (is_rma(op) && !rma_error.empty()) {
      skip(std::string(op_name(op)) + " (MPI_Win_create fails here: " + rma_error + ")");
      continue;
    }
    for (int size : options.sizes) configs.emplace_back(op, size);
  }
  std::mt19937_64 rng(seed);
  for (std::size_t i = configs.size(); i > 1; --i) std::swap(configs[i - 1], configs[rng() % i]);

  std::optional<mpimon::bench::BenchClock> clock;
  try {
    clock = mpimon::bench::BenchClock::choose(options.clock, rank, np);
  } catch (const std::runtime_error& e) {
    if (rank == 0) std::fprintf(stderr, "mpimon-overhead-bench: error: %s\n", e.what());
    return 2;
  }
  const RunSettings settings{options.iterations,
                             options.warmup,
                             rank,
                             np,
                             *clock,
                             options.interleave,
                             switcher ? &*switcher : nullptr,
                             blocks,
                             samples};
  for (const auto& [op, size] : configs) {
    const std::string name = std::string(op_name(op)) + "/" + std::to_string(size);
    benchmark::RegisterBenchmark(
        name.c_str(),
        [op = op, size = size, &settings](benchmark::State& state) { run_benchmark(state, op, size, settings); })
        ->Iterations(1)
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond);
  }

  std::string ops_text;
  for (Op op : options.ops) ops_text += (ops_text.empty() ? "" : ",") + std::string(op_name(op));
  benchmark::AddCustomContext("mpi_library", mpi_library_version());
  benchmark::AddCustomContext("np", std::to_string(np));
  benchmark::AddCustomContext("mca", mca_settings());
  benchmark::AddCustomContext("monitoring", monitoring_state(options));
  benchmark::AddCustomContext("binding", binding);
  benchmark::AddCustomContext("timer", clock->describe());
  benchmark::AddCustomContext("clock", clock->name());
  benchmark::AddCustomContext("tsc_ticks_per_ns", clock->tsc() ? std::to_string(clock->ticks_per_ns()) : "none");
  benchmark::AddCustomContext("clock_note", clock->note());
  benchmark::AddCustomContext("iterations", std::to_string(options.iterations));
  benchmark::AddCustomContext("warmup", std::to_string(options.warmup));
  benchmark::AddCustomContext("seed", std::to_string(seed));
  benchmark::AddCustomContext("sizes", join(options.sizes));
  benchmark::AddCustomContext("ops", ops_text);
  benchmark::AddCustomContext("skipped", skipped.empty() ? "none" : skipped);
  benchmark::AddCustomContext("rma_sync", kRmaSync);
  benchmark::AddCustomContext("calibration", calibration_description());
  benchmark::AddCustomContext("sample", "per iteration: maximum over ranks of the local time, in ns");
  benchmark::AddCustomContext(
      "design", options.interleave == 0
                    ? "pairs: one arm per launch"
                    : "interleaved: blocks of " + std::to_string(options.interleave) +
                          " iterations, ABBA (on, off, off, on, ...), switched by " +
                          (options.switch_kind == "mpit"
                               ? std::string("MPI_T (start/stop of a coll_monitoring_messages_count handle)")
                               : std::string("the calibration library (mpimon_pmpi_delay_set_active)")));

  if (rank == 0) {
    benchmark::RunSpecifiedBenchmarks();
  } else {
    NullReporter null;
    benchmark::RunSpecifiedBenchmarks(&null);
  }
  benchmark::Shutdown();
  // Counting back on: Open MPI skips the finalize dump when the state is off at MPI_Finalize.
  if (switcher) switcher->set(true);

  int status = 0;
  if (blocks && std::fclose(blocks) != 0) {
    std::fprintf(stderr, "mpimon-overhead-bench: error: writing %s failed\n", options.blocks.c_str());
    status = 1;
  }
  if (samples && std::fclose(samples) != 0) {
    std::fprintf(stderr, "mpimon-overhead-bench: error: writing %s failed\n", options.samples.c_str());
    status = 1;
  }
  return status;
}
