// The launch loop of `mpimon bench overhead` (and the gate's timing measure): pairs of launches
// of mpimon-overhead-bench, every launch appended to the results file as it ends.

#include "mpimon/harness/overhead_sweep.hpp"
#include "mpimon/results/arms.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>

#include "mpimon/base/error.hpp"
#include "mpimon/results/overhead.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

std::map<std::string, std::string> configuration_of(const Sweep& s) {
  std::vector<std::string> nps;
  for (auto n : s.nps) nps.push_back(std::to_string(n));
  auto config = harness_configuration(s.h);
  config.merge(std::map<std::string, std::string>{
      {"ops", s.ops},
      {"sizes", s.sizes},
      {"np", join(nps)},
      {"pairs", std::to_string(s.pairs)},
      {"arms", join(s.arms)},
      {"transports", join(s.transports)},
      {"transport_note",
       "tcp = --mca btl tcp,self: over loopback on one host, a stand-in for a distributed-memory network; "
       "across hosts when the launcher places the ranks on different nodes (launcher above)"},
      {"iterations", std::to_string(s.iterations)},
      {"warmup", std::to_string(s.warmup)},
      {"program", s.program},
      {"design",
       s.design + (s.design == "pairs" ? "" : " (blocks of " + std::to_string(s.block) + " iterations, ABBA)")},
      {"clock", s.clock + " (requested; each launch's clock is in its benchmark_json context)"},
      {"calibration_delay_ns", std::to_string(s.calibrate_ns)},
      {"calibration_loops", std::to_string(s.calibrate_loops)},
      {"summary_statistic",
       "per launch and benchmark: interquartile mean over iterations of the per-iteration "
       "maximum over ranks; pairs analysed with a paired t-test and Wilcoxon signed-rank"}});
  return config;
}

namespace {

// The command line of one launch, and where it leaves its outputs.
MpiLaunch launch_command(const Sweep& s, const LaunchKey& key, const fs::path& dir) {
  MpiLaunch l(s.h.launcher, key.np);
  bind_processes(l, key.np, s.h.bind);
  if (key.transport == "tcp") l.mca("btl", "tcp,self");
  const bool interleaved = is_interleaved_arm(key.arm);
  const bool counting = key.arm == interleaved_arm(kArmCounting);
  const bool monitored = key.arm == kArmOn || key.arm == kArmMpitOff || counting;
  if (monitored) {
    // The interleaved launch dumps too: the dump proves that monitoring ran.
    monitoring_on(l, s.h.monitoring_mode, key.arm != kArmMpitOff ? (dir / "prof" / "run").string() : "");
  } else {
    monitoring_off(l, s.h.mca);
  }
  if (!s.calibration_arm().empty()) {
    // Calibration: both arms load the delay library, so its wrapper costs the same in both and
    // the difference is the injected loop alone.
    const bool off = key.arm == kArmOff;
    l.environment("LD_PRELOAD", s.delay_library);
    if (s.calibrate_loops > 0) {
      l.environment("MPIMON_DELAY_LOOPS", std::to_string(off ? 0 : s.calibrate_loops));
    } else {
      l.environment("MPIMON_DELAY_NS", std::to_string(off ? 0 : s.calibrate_ns));
    }
    l.environment("MPIMON_DELAY_REPORT", (dir / "delay").string());
  }
  auto export_all = [&](const std::vector<std::string>& variables) {
    for (const auto& kv : variables) l.environment(kv.substr(0, kv.find('=')), kv.substr(kv.find('=') + 1));
  };
  export_all(s.environment);
  if (monitored) export_all(s.on_environment);
  user_mca(l, s.h.mca);
  std::vector<std::string> args{"--ops", s.ops, "--sizes", s.sizes, "--iterations", std::to_string(s.iterations),
                                "--warmup", std::to_string(s.warmup),
                                // the same seed for both arms of a pair: the same order of configurations
                                "--seed", std::to_string(s.h.seed * 1000003u + key.pair), "--samples",
                                (dir / "samples.txt").string(), "--benchmark_out=" + (dir / "bench.json").string(),
                                "--benchmark_out_format=json", "--clock", s.clock};
  if (key.arm == kArmMpitOff) args.push_back("--mpit-off");
  if (interleaved) {
    args.insert(args.end(), {"--interleave", std::to_string(s.block), "--switch", counting ? "mpit" : "delay",
                             "--blocks", (dir / "blocks.txt").string()});
  }
  return l.program(s.program, args);
}

// The delay library's cost per call as each rank measured it on its own (PREFIX.RANK: "calls
// loops delivered_ns"): their mean, and each rank's (the per-iteration sample is the maximum over
// ranks, so a rank whose loop runs slower weighs more than the mean says).
void read_delivered_cost(const std::string& prefix, std::uint32_t np, LaunchRecord& record) {
  long long calls = 0;
  double total = 0;
  std::string ranks;
  for (std::uint32_t r = 0; r < np; ++r) {
    const std::string path = prefix + "." + std::to_string(r);
    std::ifstream in(path);
    long long n = 0;
    unsigned long loops = 0;
    double ns = 0;
    if (!(in >> n >> loops >> ns)) raise_error(Error::Kind::input, path, "no delay report");
    calls += n;
    total += ns;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.4f", r == 0 ? "" : ",", ns);
    ranks += buf;
  }
  if (calls == 0) raise_error(Error::Kind::input, prefix, "no call went through the delay library");
  record.spin_mean_ns = total / np;
  record.spin_ranks_ns = ranks;
}

LaunchRecord run_launch(const Sweep& s, const LaunchKey& key, std::uint32_t position, std::string& output) {
  const ScratchDirectory scratch = launch_directory("bench");
  const fs::path& dir = scratch.path();
  LaunchRecord record;
  record.key = key;
  record.position = position;
  record.status = "ok";
  MpiLaunch launch = launch_command(s, key, dir);
  record.command = launch.text();
  const auto start = std::chrono::steady_clock::now();
  LaunchResult r = launch.run(std::chrono::seconds(s.h.timeout));
  output = r.output;
  record.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (std::string failed = failure_status(r, s.h.timeout); !failed.empty()) {
    record.status = failed;
  } else if ((key.arm == kArmOn || key.arm == interleaved_arm(kArmCounting)) &&
             !fs::exists(dir / "prof" / "run.0.prof")) {
    record.status = "monitoring did not run: no dump written";
  } else {
    try {
      record.benchmarks = read_bench_samples((dir / "samples.txt").string());
      record.benchmark_json = read_file((dir / "bench.json").string());
      if (is_interleaved_arm(key.arm)) record.blocks = read_file((dir / "blocks.txt").string());
      if (!s.calibration_arm().empty()) read_delivered_cost((dir / "delay").string(), key.np, record);
    } catch (const Error& e) {
      record.status = std::string("unreadable output: ") + e.what();
    }
  }
  return record;
}

}  // namespace

std::string Sweep::calibration_arm() const { return mpimon::calibration_arm(calibrate_ns, calibrate_loops); }

std::string Sweep::interleaved_arm() const {
  return mpimon::interleaved_arm(calibration_arm().empty() ? kArmCounting : calibration_arm());
}

FailedLaunches run_sweep(const std::string& name, const Sweep& s) {
  if (fs::exists(s.output) && !s.resume) {
    raise_error(Error::Kind::input, s.output, "exists: use --resume to continue it, or another -o");
  }
  if (!fs::exists(s.output)) OverheadResults::create(s.output, configuration_of(s));
  OverheadResults results(s.output);
  auto done = results.completed();

  // Every launch of the sweep, arms shuffled within each pair from the seed.
  std::vector<std::pair<LaunchKey, std::uint32_t>> plan;
  std::mt19937_64 rng(s.h.seed);
  for (const auto& t : s.transports) {
    for (auto np : s.nps) {
      for (std::uint32_t pair = 1; pair <= s.pairs; ++pair) {
        std::vector<std::string> order = arm_order(s.arms, rng);
        for (std::uint32_t pos = 0; pos < order.size(); ++pos) plan.push_back({{t, np, pair, order[pos]}, pos});
      }
    }
  }
  std::size_t todo = 0;
  for (const auto& [key, pos] : plan) todo += done.count(key) ? 0 : 1;
  std::fprintf(stderr, "%s: %zu launches planned, %zu already in %s\n", name.c_str(), plan.size(), plan.size() - todo,
               s.output.c_str());
  Progress progress(todo);
  FailedLaunches failed(s.logs.empty() ? logs_directory(s.output) : s.logs);
  for (const auto& [key, pos] : plan) {
    if (done.count(key)) continue;
    std::string output;
    LaunchRecord r = run_launch(s, key, pos, output);
    results.append(r);
    failed.ran();
    char what[160];
    std::snprintf(what, sizeof what, "%s np %u pair %u %-8s", key.transport.c_str(), key.np, key.pair, key.arm.c_str());
    progress.done(what, r.status, r.seconds);
    if (r.status == "ok") continue;
    std::snprintf(what, sizeof what, "%s np %u pair %u %s", key.transport.c_str(), key.np, key.pair, key.arm.c_str());
    failed.add(what, r.command, r.status, output);
    if (!s.keep_going) {
      failed.stopped = true;
      break;
    }
  }
  return failed;
}

}  // namespace mpimon::harness
