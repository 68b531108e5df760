#pragma once
// Results of the overhead harness (docs/overhead.md, "The results file"): every launch's raw
// samples, their summaries, and the paired analysis of monitoring off against each other arm.

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "mpimon/overhead_design/bench_files.hpp"
#include "mpimon/results/columns.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon {

inline constexpr std::string_view kOverheadFormat = "mpimon-overhead";
inline constexpr std::uint64_t kOverheadFormatVersion = 1;

/// The per-iteration maxima over ranks of one benchmark (one operation at one size) in one launch.
struct SampleSummary {
  double median = 0, q1 = 0, q3 = 0, d1 = 0, d9 = 0, mean = 0, min = 0, max = 0, iqm = 0;
  std::uint64_t samples = 0;  ///< how many samples it summarises
};
struct BenchmarkSamples {
  std::string op;
  std::uint64_t size = 0;
  std::vector<double> ns;
  /// A compact results file keeps this instead of the samples (ns then empty).
  std::optional<SampleSummary> summary = std::nullopt;
  /// ... and, for an interleaved launch, each block's interquartile mean: all its design uses.
  std::vector<double> block_iqm = {};
};

/// Reads the samples file of mpimon-overhead-bench: `op<TAB>size<TAB>v1,v2,...` per line
/// (mpimon/overhead_design/bench_files.hpp).
std::vector<BenchmarkSamples> read_bench_samples(const std::string& path);

/// Median, quantiles (R's default type 7), mean, min, max of one benchmark's samples (SampleSummary,
/// above), and the interquartile mean (mean of the samples between the quartiles), the statistic the
/// paired analysis uses: robust to outliers like the median, but it moves smoothly with a shift
/// smaller than the timer's granularity, where the median of quantised samples jumps by whole steps.
SampleSummary summarize(const std::vector<double>& ns);
/// The stored summary of a compact record, else the summary of its samples.
SampleSummary summary_of(const BenchmarkSamples& b);

/// What identifies a launch within a sweep.
struct LaunchKey {
  std::string transport;  ///< "shared" or "tcp"
  std::uint32_t np = 0;
  std::uint32_t pair = 0;  ///< 1-based
  std::string arm;         ///< "off", "on", "mpit_off", "delay<NS>"
  auto operator<=>(const LaunchKey&) const = default;
};

struct LaunchRecord {
  LaunchKey key;
  std::uint32_t position = 0;  ///< order of the arm within its pair
  std::string status;          ///< "ok", or why not ("exit code 1", "timeout after 600 s", ...)
  double seconds = 0;
  std::string command;
  std::string benchmark_json;  ///< Google Benchmark's JSON output (context included)
  /// Calibration launches: the injected loop's time per call, as the delay library measured it on
  /// its own when the processes started (mean over ranks; 0 in the off arm, which runs no loop),
  /// and each rank's, comma-separated.
  std::optional<double> spin_mean_ns;
  std::string spin_ranks_ns;
  std::vector<BenchmarkSamples> benchmarks;
  /// Interleaved launches: the program's blocks file, one line per benchmark (read_blocks).
  std::string blocks;
};

/// Parses a blocks file (mpimon/overhead_design/bench_files.hpp): `op<TAB>size<TAB>B<TAB>states<TAB>c1,c2,...` (`-` for
/// an unread count). `where` names the source in errors.
std::vector<BenchmarkBlocks> read_blocks(const std::string& text, const std::string& where);

/// The interleaved design's block pairs of one benchmark: for each ABBA block pair, the
/// interquartile means of its off block and of its on block. Checks the bookkeeping first and
/// returns why it fails instead ("" when it holds): as many samples as blocks x B, states in ABBA
/// order, and, where counted, no record in an off block and some in every on block (the switch
/// really switched).
struct BlockPairs {
  std::vector<double> off, on;
  std::string problem;
};
BlockPairs interleaved_block_pairs(const BenchmarkBlocks& blocks, const std::vector<double>& samples);
/// The same from a benchmark's samples, or, in a compact record, from its blocks' interquartile means.
BlockPairs interleaved_block_pairs(const BenchmarkBlocks& blocks, const BenchmarkSamples& benchmark);
/// The launch as a compact results file keeps it (docs/overhead.md): each benchmark's summary
/// instead of its samples, and in an interleaved launch each block's interquartile mean (when the
/// samples fill whole blocks); no command line and no benchmark JSON (they hold the machine's paths).
LaunchRecord compact(const LaunchRecord& launch);

/// Marks a results file (mpimon-overhead or mpimon-apps) as compact: a root attribute `compact`
/// saying what it lacks.
void mark_compact_results(const std::string& path);

/// `mpimon show --launches-csv`: one line per launch and benchmark, the launch's key, status and
/// sample summary (docs/overhead.md); read back by read_launches_csv.
void write_launches_csv(const std::vector<LaunchRecord>& launches, std::ostream& out);
/// The launches of a `mpimon show --launches-csv` file, as compact records. Errors name path:line.
std::vector<LaunchRecord> read_launches_csv(const std::string& path);

/// One cell of a heatmap: an arm against "off" for one transport, process count, op and size.
struct OverheadCell {
  /// arm: on, mpit_off (against not loaded), counting (on against loaded but stopped), or a
  /// calibration arm; design: "pairs" (launch pairs) or "interleaved" (blocks within launches).
  std::string transport, arm, op;
  std::string design = "pairs";
  std::uint32_t np = 0;
  std::uint64_t size = 0;
  PairedAnalysis analysis;           ///< on the launches' interquartile means, in ns per call
  Estimate per_process;              ///< difference per call per process
  std::optional<double> p_adjusted;  ///< Benjamini-Hochberg over the cells of the same heatmap
};

/// The columns of an overhead cell: the table of `mpimon bench overhead` and `mpimon show`, the CSV
/// of `--csv` (docs/overhead.md) and the file's /analysis table. No JSON is written of these cells.
const std::vector<Column<OverheadCell>>& overhead_columns();

/// The paired analysis, one line per cell, what the columns mean, and how many cells the intervals
/// resolve (and the pairs that would resolve the others).
void write_analysis_table(const std::vector<OverheadCell>& cells, std::ostream& out);
/// The cells as CSV, every column (docs/overhead.md).
void write_analysis_csv(const std::vector<OverheadCell>& cells, std::ostream& out);
/// What the interleaved design could not use, and why: failed interleaved launches (no MPI_T
/// switch in this library) and benchmarks whose bookkeeping failed (the switch did not switch).
void write_interleaving(const std::vector<LaunchRecord>& launches, const std::string& design, std::ostream& out);

/// A relative overhead's verdict against `threshold` (0.05) in a few words: "< 5 %", "> 5 %",
/// "> 0" (a cost, its size open), "inconclusive", "-" (no interval).
std::string cost_words(CostVerdict verdict, double threshold);
/// "  LABEL: inconclusive: the 95 % CI [..] spans SPANS; about N pairs would narrow it to
/// +-HALF_WIDTH (from the observed spread, sd X % of the BASE time)", when the row has a relative CI.
void write_undecided(std::ostream& out, const std::string& label, const PairedAnalysis& a, const std::string& spans,
                     std::optional<std::size_t> pairs_needed, double half_width, const std::string& base);
/// That line for a row whose overhead is inconclusive against `threshold` (pairs for +- threshold / 2).
void write_inconclusive(std::ostream& out, const std::string& label, const PairedAnalysis& a, double threshold);

/// Reads and appends to a results file; every append is flushed and closed, so an interrupted
/// sweep keeps all finished launches.
class OverheadResults {
 public:
  /// Creates `path` with the sweep's configuration (string attributes, recorded as given).
  static void create(const std::string& path, const std::map<std::string, std::string>& configuration);
  explicit OverheadResults(std::string path);

  [[nodiscard]] std::map<std::string, std::string> configuration() const;
  [[nodiscard]] std::vector<LaunchRecord> launches() const;
  /// The keys of launches that finished with status "ok".
  [[nodiscard]] std::set<LaunchKey> completed() const;
  void append(const LaunchRecord& launch);
  /// Replaces the /analysis table.
  void write_analysis(const std::vector<OverheadCell>& cells);

 private:
  std::string path_;
};

/// Pairs each arm's launches with the "off" launch of the same transport, np and pair, and runs the
/// paired analysis of their interquartile means per (op, size); Benjamini-Hochberg per heatmap (transport,
/// design, arm, op). Interleaved launches (arm "interleaved-X") give cells of design "interleaved"
/// and arm X, one observation per launch (the mean of its ABBA block pairs); when a file has them, the launch
/// pairs also give arm "counting" (on against mpit_off), the same quantity by the pairs design.
std::vector<OverheadCell> analyze_overhead(const std::vector<LaunchRecord>& launches, double confidence = 0.95);

/// The interleaved launches' benchmarks whose bookkeeping failed (and were left out), in words.
std::vector<std::string> interleaving_problems(const std::vector<LaunchRecord>& launches);

/// A string value of the benchmark program's JSON context (e.g. "clock", "tsc_ticks_per_ns"),
/// "" when the launch has none (older programs recorded no clock).
std::string benchmark_context(const LaunchRecord& launch, std::string_view key);

/// The clocks that timed a results file's successful launches, with how many launches each:
/// "tsc (2.096030 ticks/ns)" (or "tsc (2.445405 to 2.445406 ticks/ns)" for launches that
/// calibrated it differently), "monotonic_raw", or "monotonic_raw (not recorded: older program)".
std::map<std::string, std::size_t> launch_clocks(const std::vector<LaunchRecord>& launches);

/// For a calibration sweep: the mean over the injected launches of the cost the library added to
/// each call, measured on its own, per transport and np: a delay arm's delivered cost minus its off
/// arm's, and an interleaved launch's own (its off blocks run the library without the loop).
std::map<std::pair<std::string, std::uint32_t>, double> injected_cost(const std::vector<LaunchRecord>& launches);

}  // namespace mpimon
