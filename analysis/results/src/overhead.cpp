#include "mpimon/results/overhead.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>

#include "mpimon/base/error.hpp"
#include "mpimon/json.hpp"
#include "mpimon/matrices/h5.hpp"
#include "mpimon/overhead_design/bench_files.hpp"
#include "mpimon/overhead_design/interleave.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/csv.hpp"
#include "results_file.hpp"

namespace mpimon {

std::vector<BenchmarkSamples> read_bench_samples(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot open");
  std::vector<BenchmarkSamples> out;
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    ++number;
    if (line.empty()) continue;
    SamplesLine read = parse_samples_line(line, path, number);
    BenchmarkSamples& b = out.emplace_back();
    b.op = std::move(read.op);
    b.size = read.size;
    b.ns = std::move(read.ns);
  }
  if (out.empty()) raise_input_error(path, 0, "no benchmark in the samples file");
  return out;
}

namespace {

// Quantile of sorted data, linear interpolation between order statistics (R's type 7).
double quantile(const std::vector<double>& sorted, double q) {
  const double h = (static_cast<double>(sorted.size()) - 1) * q;
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (h - static_cast<double>(lo)) * (sorted[hi] - sorted[lo]);
}

}  // namespace

SampleSummary summarize(const std::vector<double>& ns) {
  if (ns.empty()) raise_error(Error::Kind::input, "", "no samples to summarise");
  std::vector<double> s = ns;
  std::sort(s.begin(), s.end());
  SampleSummary r{
      quantile(s, 0.5), quantile(s, 0.25), quantile(s, 0.75),
      quantile(s, 0.1), quantile(s, 0.9),  std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size()),
      s.front(),        s.back(),          0};
  // The middle half: from the first to the third quartile's order statistics.
  const std::size_t lo = s.size() / 4, hi = std::max(lo + 1, s.size() - s.size() / 4);
  r.iqm =
      std::accumulate(s.begin() + static_cast<std::ptrdiff_t>(lo), s.begin() + static_cast<std::ptrdiff_t>(hi), 0.0) /
      static_cast<double>(hi - lo);
  r.samples = s.size();
  return r;
}

SampleSummary summary_of(const BenchmarkSamples& b) { return b.summary ? *b.summary : summarize(b.ns); }

namespace {

/// Each block's interquartile mean; the samples fill whole blocks of `length`.
std::vector<double> block_iqms(const std::vector<double>& samples, std::size_t length) {
  std::vector<double> out;
  for (auto first = samples.begin(); first != samples.end(); first += static_cast<std::ptrdiff_t>(length))
    out.push_back(summarize(std::vector<double>(first, first + static_cast<std::ptrdiff_t>(length))).iqm);
  return out;
}

}  // namespace

LaunchRecord compact(const LaunchRecord& launch) {
  LaunchRecord c = launch;
  c.command.clear();
  c.benchmark_json.clear();
  const auto blocks = launch.blocks.empty() ? std::vector<BenchmarkBlocks>{} : read_blocks(launch.blocks, "blocks");
  for (auto& b : c.benchmarks) {
    for (const auto& k : blocks) {
      if (k.op == b.op && k.size == b.size && !b.ns.empty() && b.ns.size() == k.states.size() * k.block_length)
        b.block_iqm = block_iqms(b.ns, k.block_length);
    }
    b.summary = summary_of(b);
    b.ns.clear();
    b.ns.shrink_to_fit();
  }
  return c;
}

void mark_compact_results(const std::string& path) {
  results_detail::mark_compact(
      path,
      "per-launch summaries only: no raw samples, no command lines, no benchmark JSON or workload "
      "reports");
}

std::vector<LaunchRecord> read_launches_csv(const std::string& path) {
  const results_detail::CsvFile csv(path);
  std::vector<LaunchRecord> out;
  std::uint64_t current = 0;
  for (std::size_t row = 0; row < csv.rows(); ++row) {
    const std::uint64_t launch = csv.integer(row, "launch");
    if (out.empty() || launch != current) {
      if (launch <= current) raise_input_error(path, csv.line(row), "launch numbers must increase");
      current = launch;
      LaunchRecord l;
      l.key = {csv.text(row, "transport"), static_cast<std::uint32_t>(csv.integer(row, "np")),
               static_cast<std::uint32_t>(csv.integer(row, "pair")), csv.text(row, "arm")};
      l.position = static_cast<std::uint32_t>(csv.integer(row, "position"));
      l.status = csv.text(row, "status");
      l.seconds = csv.number(row, "seconds");
      out.push_back(std::move(l));
    }
    if (csv.text(row, "op").empty()) continue;  // a launch without benchmarks (it failed)
    SampleSummary s{csv.number(row, "median_ns"), csv.number(row, "q1_ns"),  csv.number(row, "q3_ns"),
                    csv.number(row, "d1_ns"),     csv.number(row, "d9_ns"),  csv.number(row, "mean_ns"),
                    csv.number(row, "min_ns"),    csv.number(row, "max_ns"), csv.number(row, "iqm_ns"),
                    csv.integer(row, "samples")};
    out.back().benchmarks.push_back({csv.text(row, "op"), csv.integer(row, "size"), {}, s});
  }
  return out;
}

void write_launches_csv(const std::vector<LaunchRecord>& launches, std::ostream& out) {
  out << "launch,transport,np,pair,arm,position,status,seconds,op,size,samples,median_ns,q1_ns,q3_ns,d1_ns,d9_ns,"
         "mean_ns,min_ns,max_ns,iqm_ns\n";
  std::size_t index = 0;
  for (const auto& l : launches) {
    ++index;
    const std::string status = csv_text(l.status);
    std::string head = std::to_string(index) + ',' + l.key.transport + ',' + std::to_string(l.key.np) + ',' +
                       std::to_string(l.key.pair) + ',' + l.key.arm + ',' + std::to_string(l.position) + ',' + status +
                       ',' + csv_number(l.seconds);
    if (l.benchmarks.empty()) out << head << ",,,0,,,,,,,,,\n";
    for (const auto& b : l.benchmarks) {
      SampleSummary s = summary_of(b);
      out << head << ',' << b.op << ',' << b.size << ',' << s.samples << ',' << csv_number(s.median) << ','
          << csv_number(s.q1) << ',' << csv_number(s.q3) << ',' << csv_number(s.d1) << ',' << csv_number(s.d9) << ','
          << csv_number(s.mean) << ',' << csv_number(s.min) << ',' << csv_number(s.max) << ',' << csv_number(s.iqm)
          << '\n';
    }
  }
}

void OverheadResults::create(const std::string& path, const std::map<std::string, std::string>& configuration) {
  results_detail::create(path, kOverheadFormat, kOverheadFormatVersion, configuration);
}

OverheadResults::OverheadResults(std::string path) : path_(std::move(path)) {
  results_detail::check_format(path_, kOverheadFormat, kOverheadFormatVersion);
}

std::map<std::string, std::string> OverheadResults::configuration() const {
  return results_detail::read_configuration(path_);
}

namespace {

constexpr std::size_t kSummaryColumns = 9;  // median, q1, q3, d1, d9, mean, min, max, iqm

// A compact launch: the summary of each benchmark and its number of samples, no samples.
LaunchRecord read_compact_benchmarks(hid_t group, const std::string& where, LaunchRecord r,
                                     const std::vector<std::string>& ops, const std::vector<std::uint64_t>& sizes) {
  auto summary = h5::read_doubles(h5::open_dataset(group, "summary", where).get(), where + "/summary");
  auto counts = h5::read_uint64(h5::open_dataset(group, "samples_count", where).get(), where + "/samples_count");
  if (ops.size() != sizes.size() || counts.size() != ops.size() || summary.size() != kSummaryColumns * ops.size()) {
    raise_error(Error::Kind::format, where, "inconsistent benchmark arrays");
  }
  std::vector<double> block_iqm;
  std::vector<std::uint64_t> block_indptr(ops.size() + 1, 0);
  if (h5::exists(group, "block_iqm")) {
    block_iqm = h5::read_doubles(h5::open_dataset(group, "block_iqm", where).get(), where + "/block_iqm");
    block_indptr =
        h5::read_uint64(h5::open_dataset(group, "block_iqm_indptr", where).get(), where + "/block_iqm_indptr");
    if (block_indptr.size() != ops.size() + 1 || block_indptr.back() != block_iqm.size() ||
        !std::is_sorted(block_indptr.begin(), block_indptr.end())) {
      raise_error(Error::Kind::format, where, "inconsistent block_iqm arrays");
    }
  }
  for (std::size_t b = 0; b < ops.size(); ++b) {
    const double* v = summary.data() + kSummaryColumns * b;
    r.benchmarks.push_back({ops[b],
                            sizes[b],
                            {},
                            SampleSummary{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], counts[b]},
                            std::vector<double>(block_iqm.begin() + static_cast<std::ptrdiff_t>(block_indptr[b]),
                                                block_iqm.begin() + static_cast<std::ptrdiff_t>(block_indptr[b + 1]))});
  }
  return r;
}

LaunchRecord read_overhead_launch(hid_t group, const std::string& where) {
  LaunchRecord r;
  r.key.transport = h5::read_string_attribute(group, "transport", where);
  results_detail::read_launch_identity(group, where, r);
  r.seconds = std::stod(h5::read_string_attribute(group, "seconds", where));
  r.benchmark_json = h5::read_string_attribute(group, "benchmark_json", where);
  if (h5::has_attribute(group, "blocks")) r.blocks = h5::read_string_attribute(group, "blocks", where);
  if (h5::has_attribute(group, "spin_mean_ns")) {
    r.spin_mean_ns = std::stod(h5::read_string_attribute(group, "spin_mean_ns", where));
  }
  if (h5::has_attribute(group, "spin_ranks_ns"))
    r.spin_ranks_ns = h5::read_string_attribute(group, "spin_ranks_ns", where);
  auto ops = h5::read_strings(h5::open_dataset(group, "ops", where).get(), where + "/ops");
  auto sizes = h5::read_uint64(h5::open_dataset(group, "sizes", where).get(), where + "/sizes");
  if (!h5::exists(group, "samples")) return read_compact_benchmarks(group, where, std::move(r), ops, sizes);
  auto samples = h5::read_doubles(h5::open_dataset(group, "samples", where).get(), where + "/samples");
  auto indptr = h5::read_uint64(h5::open_dataset(group, "samples_indptr", where).get(), where + "/samples_indptr");
  if (ops.size() != sizes.size() || indptr.size() != ops.size() + 1 || indptr.back() != samples.size()) {
    raise_error(Error::Kind::format, where, "inconsistent benchmark arrays");
  }
  for (std::size_t b = 0; b < ops.size(); ++b) {
    if (indptr[b] > indptr[b + 1]) raise_error(Error::Kind::format, where, "samples_indptr decreases");
    r.benchmarks.push_back({ops[b], sizes[b],
                            std::vector<double>(samples.begin() + static_cast<std::ptrdiff_t>(indptr[b]),
                                                samples.begin() + static_cast<std::ptrdiff_t>(indptr[b + 1]))});
  }
  return r;
}

}  // namespace

std::vector<LaunchRecord> OverheadResults::launches() const {
  return results_detail::read_launches<LaunchRecord>(path_, read_overhead_launch);
}

std::set<LaunchKey> OverheadResults::completed() const { return results_detail::completed_keys(launches()); }

namespace {

void write_launch(hid_t g, const std::string& here, const LaunchRecord& launch) {
  h5::write_attribute(g, "transport", launch.key.transport);
  results_detail::write_launch_identity(g, launch);
  h5::write_attribute(g, "seconds", std::to_string(launch.seconds));
  h5::write_attribute(g, "benchmark_json", launch.benchmark_json);
  if (!launch.blocks.empty()) h5::write_attribute(g, "blocks", launch.blocks);
  auto write_ns = [&](const char* name, const std::optional<double>& ns) {
    if (!ns) return;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.6f", *ns);
    h5::write_attribute(g, name, std::string(buf));
  };
  write_ns("spin_mean_ns", launch.spin_mean_ns);
  if (!launch.spin_ranks_ns.empty()) h5::write_attribute(g, "spin_ranks_ns", launch.spin_ranks_ns);
  // Compact records (no samples, a summary) keep their summaries and sample counts only.
  const bool is_compact = std::any_of(launch.benchmarks.begin(), launch.benchmarks.end(),
                                      [](const BenchmarkSamples& b) { return b.summary && b.ns.empty(); });
  std::vector<std::string> ops;
  std::vector<std::uint64_t> sizes, indptr{0}, counts, block_indptr{0};
  std::vector<double> samples, summary, block_iqm;
  for (const auto& b : launch.benchmarks) {
    ops.push_back(b.op);
    sizes.push_back(b.size);
    samples.insert(samples.end(), b.ns.begin(), b.ns.end());
    indptr.push_back(samples.size());
    if (is_compact) block_iqm.insert(block_iqm.end(), b.block_iqm.begin(), b.block_iqm.end());
    block_indptr.push_back(block_iqm.size());
    SampleSummary s = summary_of(b);
    counts.push_back(s.samples);
    summary.insert(summary.end(), {s.median, s.q1, s.q3, s.d1, s.d9, s.mean, s.min, s.max, s.iqm});
  }
  h5::write_strings(g, "ops", ops, here);
  const hsize_t n[] = {sizes.size()};
  h5::write_dataset(g, "sizes", n, sizes, here);
  if (is_compact) {
    h5::write_dataset(g, "samples_count", n, counts, here);
    if (!block_iqm.empty()) {  // an interleaved launch: its blocks' interquartile means
      h5::write_doubles(g, "block_iqm", block_iqm, here);
      const hsize_t m[] = {block_indptr.size()};
      h5::write_dataset(g, "block_iqm_indptr", m, block_indptr, here);
    }
  } else {
    h5::write_doubles(g, "samples", samples, here);
    const hsize_t m[] = {indptr.size()};
    h5::write_dataset(g, "samples_indptr", m, indptr, here);
  }
  h5::write_doubles(g, "summary", summary, here);
  h5::Handle ds = h5::open_dataset(g, "summary", here);
  const std::string columns[] = {"median", "q1", "q3", "d1", "d9", "mean", "min", "max", "iqm"};
  h5::write_attribute(ds.get(), "columns", std::span<const std::string>(columns));
}

}  // namespace

void OverheadResults::append(const LaunchRecord& launch) {
  results_detail::append_launch(path_, [&](hid_t g, const std::string& here) { write_launch(g, here, launch); });
}

void OverheadResults::write_analysis(const std::vector<OverheadCell>& cells) {
  write_hdf5_table(overhead_columns(), cells, path_, "analysis");
}

std::vector<BenchmarkBlocks> read_blocks(const std::string& text, const std::string& where) {
  std::vector<BenchmarkBlocks> out;
  std::istringstream lines(text);
  std::size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (!line.empty()) out.push_back(parse_blocks_line(line, where, number));
  }
  return out;
}

namespace {

/// Why the blocks' bookkeeping does not hold, "" when it does: states in ABBA order and, where
/// counted, no record in an off block and some in every on block (the switch really switched).
std::string bookkeeping_problem(const BenchmarkBlocks& blocks) {
  const std::size_t n = blocks.states.size();
  if (blocks.states != abba_states(n))
    return "blocks " + blocks.states + " are not in ABBA order (" + abba_states(n) + ")";
  for (std::size_t k = 0; k < n; ++k) {
    const auto& c = blocks.counted[k];
    if (!c) continue;
    const bool on = blocks.states[k] == '1';
    if (on && *c == 0) return "block " + std::to_string(k + 1) + " was switched on but counted nothing";
    if (!on && *c != 0)
      return "block " + std::to_string(k + 1) + " was switched off but counted " + std::to_string(*c) +
             " records: MPI_T did not switch the counting";
  }
  return "";
}

/// The block pairs of checked blocks from each block's interquartile mean.
BlockPairs pair_blocks(const BenchmarkBlocks& blocks, const std::vector<double>& iqm) {
  BlockPairs r;
  for (std::size_t k = 0; k < iqm.size(); k += 2) {
    const bool first_on = blocks.states[k] == '1';
    r.on.push_back(first_on ? iqm[k] : iqm[k + 1]);
    r.off.push_back(first_on ? iqm[k + 1] : iqm[k]);
  }
  return r;
}

}  // namespace

BlockPairs interleaved_block_pairs(const BenchmarkBlocks& blocks, const std::vector<double>& samples) {
  BlockPairs r;
  const std::size_t n = blocks.states.size(), length = blocks.block_length;
  if (n == 0 || n % 2 != 0 || samples.size() != n * length) {
    r.problem = std::to_string(samples.size()) + " samples for " + std::to_string(n) + " blocks of " +
                std::to_string(length) + " (whole block pairs expected)";
    return r;
  }
  r.problem = bookkeeping_problem(blocks);
  return r.problem.empty() ? pair_blocks(blocks, block_iqms(samples, length)) : r;
}

BlockPairs interleaved_block_pairs(const BenchmarkBlocks& blocks, const BenchmarkSamples& benchmark) {
  if (!benchmark.ns.empty() || benchmark.block_iqm.empty()) return interleaved_block_pairs(blocks, benchmark.ns);
  BlockPairs r;
  const std::size_t n = blocks.states.size();
  if (n == 0 || n % 2 != 0 || benchmark.block_iqm.size() != n) {
    r.problem = std::to_string(benchmark.block_iqm.size()) + " block means for " + std::to_string(n) +
                " blocks (whole block pairs expected)";
    return r;
  }
  r.problem = bookkeeping_problem(blocks);
  return r.problem.empty() ? pair_blocks(blocks, benchmark.block_iqm) : r;
}

namespace {

// Every interleaved launch's benchmarks with their block pairs (or the problem), in launch order.
template <class Visit>
void for_each_interleaved(const std::vector<LaunchRecord>& launches, Visit visit) {
  for (const auto& l : launches) {
    if (l.status != "ok" || !is_interleaved_arm(l.key.arm)) continue;
    const auto blocks = read_blocks(l.blocks, "blocks of launch " + l.key.arm + " pair " + std::to_string(l.key.pair));
    for (const auto& b : l.benchmarks) {
      auto it = std::find_if(blocks.begin(), blocks.end(),
                             [&](const BenchmarkBlocks& x) { return x.op == b.op && x.size == b.size; });
      BlockPairs pairs;
      if (it == blocks.end()) {
        pairs.problem = "no blocks recorded";
      } else {
        pairs = interleaved_block_pairs(*it, b);
      }
      visit(l, b, pairs);
    }
  }
}

}  // namespace

std::vector<std::string> interleaving_problems(const std::vector<LaunchRecord>& launches) {
  std::vector<std::string> out;
  for_each_interleaved(launches, [&](const LaunchRecord& l, const BenchmarkSamples& b, const BlockPairs& p) {
    if (!p.problem.empty())
      out.push_back(l.key.transport + " np " + std::to_string(l.key.np) + " pair " + std::to_string(l.key.pair) + " " +
                    b.op + "/" + std::to_string(b.size) + ": " + p.problem);
  });
  return out;
}

std::vector<OverheadCell> analyze_overhead(const std::vector<LaunchRecord>& launches, double confidence) {
  // (transport, np, pair, arm) -> launch; only successful launches count.
  std::map<LaunchKey, const LaunchRecord*> by_key;
  bool interleaved = false;
  for (const auto& l : launches) {
    if (l.status == "ok") by_key[l.key] = &l;
    interleaved = interleaved || is_interleaved_arm(l.key.arm);
  }
  // (transport, design, arm, op, np, size) -> paired interquartile means (baseline, arm)
  using CellKey = std::tuple<std::string, std::string, std::string, std::string, std::uint32_t, std::uint64_t>;
  std::map<CellKey, std::pair<std::vector<double>, std::vector<double>>> pairs;
  auto pair_with = [&](const LaunchRecord& launch, const std::string& baseline_arm, const std::string& cell_arm) {
    const LaunchKey& key = launch.key;
    auto base = by_key.find({key.transport, key.np, key.pair, baseline_arm});
    if (base == by_key.end()) return;
    for (const auto& b : launch.benchmarks) {
      for (const auto& ob : base->second->benchmarks) {
        if (ob.op != b.op || ob.size != b.size) continue;
        auto& [o, n] = pairs[{key.transport, "pairs", cell_arm, b.op, key.np, b.size}];
        o.push_back(summary_of(ob).iqm);
        n.push_back(summary_of(b).iqm);
      }
    }
  };
  for (const auto& [key, launch] : by_key) {
    if (key.arm == kArmOff || is_interleaved_arm(key.arm)) continue;
    pair_with(*launch, std::string(kArmOff), key.arm);
    // The counting alone by launch pairs, to set beside the interleaved design's.
    if (interleaved && key.arm == kArmOn) pair_with(*launch, std::string(kArmMpitOff), std::string(kArmCounting));
  }
  // One observation per interleaved launch, the mean of its block pairs: the pairs of one launch
  // share its conditions (the cost itself varies from launch to launch), so counting each as
  // independent would narrow the interval to the launch at hand (docs/statistics.md).
  const auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  for_each_interleaved(launches, [&](const LaunchRecord& l, const BenchmarkSamples& b, const BlockPairs& p) {
    if (!p.problem.empty()) return;
    auto& [o, n] = pairs[{l.key.transport, "interleaved", std::string(switched_by(l.key.arm)), b.op, l.key.np, b.size}];
    o.push_back(mean(p.off));
    n.push_back(mean(p.on));
  });
  std::vector<OverheadCell> cells;
  for (const auto& [key, values] : pairs) {
    const auto& [transport, design, arm, op, np, size] = key;
    OverheadCell c{transport, arm, op, design, np, size, paired_analysis(values.first, values.second, confidence),
                   {},        {}};
    c.per_process = per_process(c.analysis, np);
    cells.push_back(std::move(c));
  }
  // Benjamini-Hochberg within each heatmap: same transport, design, arm and op.
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::vector<std::size_t>> heatmaps;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (cells[i].analysis.t_test)
      heatmaps[{cells[i].transport, cells[i].design, cells[i].arm, cells[i].op}].push_back(i);
  }
  for (const auto& [unused, members] : heatmaps) {
    std::vector<double> p;
    for (auto i : members) p.push_back(cells[i].analysis.t_test->p_value);
    auto adjusted = benjamini_hochberg(p);
    for (std::size_t k = 0; k < members.size(); ++k) cells[members[k]].p_adjusted = adjusted[k];
  }
  return cells;
}

std::string benchmark_context(const LaunchRecord& launch, std::string_view key) {
  if (launch.benchmark_json.empty()) return "";
  const Json json = parse_json(launch.benchmark_json, "the benchmark JSON of a launch (" + launch.command + ")");
  const auto context = json.find("context");
  if (context == json.end() || !context->is_object() || !context->contains(key)) return "";
  return json_value<std::string>(*context, key, "the benchmark JSON's context");
}

std::map<std::string, std::size_t> launch_clocks(const std::vector<LaunchRecord>& launches) {
  // Each launch calibrates its TSC anew, so the last digits of the frequency differ between
  // launches of one machine: the TSC launches are one clock, named with their frequency range.
  std::map<std::string, std::size_t> clocks;
  std::size_t tsc_launches = 0;
  std::string lowest, highest;  // same width ("%.6f"), so text order is numeric order
  for (const auto& l : launches) {
    if (l.status != "ok") continue;
    std::string clock = benchmark_context(l, "clock");
    if (clock.empty()) clock = "monotonic_raw (not recorded: older program)";
    if (clock != "tsc") {
      ++clocks[clock];
      continue;
    }
    const std::string ticks = benchmark_context(l, "tsc_ticks_per_ns");
    if (tsc_launches++ == 0 || ticks < lowest) lowest = ticks;
    if (tsc_launches == 1 || ticks > highest) highest = ticks;
  }
  if (tsc_launches)
    clocks["tsc (" + (lowest == highest ? lowest : lowest + " to " + highest) + " ticks/ns)"] = tsc_launches;
  return clocks;
}

std::map<std::pair<std::string, std::uint32_t>, double> injected_cost(const std::vector<LaunchRecord>& launches) {
  std::map<LaunchKey, double> spin;
  for (const auto& l : launches) {
    if (l.status == "ok" && l.spin_mean_ns) spin[l.key] = *l.spin_mean_ns;
  }
  std::map<std::pair<std::string, std::uint32_t>, std::pair<double, std::size_t>> sums;
  for (const auto& [key, ns] : spin) {
    if (key.arm == kArmOff) continue;
    // An interleaved launch's off blocks run the same library without its loop: its own figure.
    double added = ns;
    if (!is_interleaved_arm(key.arm)) {
      auto off = spin.find({key.transport, key.np, key.pair, std::string(kArmOff)});
      if (off == spin.end()) continue;
      added -= off->second;
    }
    auto& [total, n] = sums[{key.transport, key.np}];
    total += added;
    ++n;
  }
  std::map<std::pair<std::string, std::uint32_t>, double> out;
  for (const auto& [key, value] : sums) out[key] = value.first / static_cast<double>(value.second);
  return out;
}

}  // namespace mpimon
