#pragma once
// Results of `mpimon bench app` (docs/apps.md): launch pairs of an application, monitoring
// off and on, and the columns of RR-9038's Table 1 (times, messages per process, messages per
// second, overhead with its 95 % CI and significance), plus the per-pair overheads of Fig. 3.

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "mpimon/matrices/prof.hpp"
#include "mpimon/results/arms.hpp"
#include "mpimon/results/columns.hpp"
#include "mpimon/results/stats.hpp"

namespace mpimon {

inline constexpr std::string_view kAppsFormat = "mpimon-apps";
inline constexpr std::uint64_t kAppsFormatVersion = 1;

/// What identifies a launch: the application's label (e.g. "cg.medium", "hpcc"), np, pair, arm.
struct AppLaunchKey {
  std::string app;
  std::uint32_t np = 0;
  std::uint32_t pair = 0;  ///< 1-based
  std::string arm;         ///< "off" or "on" (bench app), "A" or "B" (bench placement)
  auto operator<=>(const AppLaunchKey&) const = default;
};

/// Messages and bytes per traffic class, summed over all processes of one merged dump.
struct TrafficTotals {
  std::array<std::uint64_t, kTrafficClassCount> messages{};
  std::array<std::uint64_t, kTrafficClassCount> bytes{};
  /// Only the external and internal classes are known (a compact file made from a launches CSV).
  bool point_to_point_only = false;
  /// Point-to-point messages: external (the application's own) + internal (collectives decomposed).
  [[nodiscard]] std::uint64_t point_to_point_messages() const;
};

/// One line `mpimon-workload: {JSON}` of a built-in workload (mpimon-workload's report).
struct WorkloadReport {
  std::string json;       ///< the object as printed
  double seconds = 0;     ///< the timed loop's wall time
  double comm_share = 0;  ///< 0..1
  std::uint64_t messages_sent = 0;
  std::uint64_t bytes_sent = 0;
  bool passed = false;
};
/// The last `mpimon-workload: ` line of a launch's output; nothing when there is none. Throws
/// mpimon::Error (input, naming `where`) when the line is not a JSON object with the keys needed.
std::optional<WorkloadReport> find_workload_report(const std::string& output, const std::string& where);

/// The time an application reports in its own output (`mpimon bench app --time-regex`): the last
/// match of `pattern` in `output`, its first group when it has one (else the whole match), read
/// as a number. Nothing when no line matches; throws mpimon::Error (input, naming `where`) when
/// the match is not a number >= 0.
std::optional<double> reported_time(const std::string& output, const std::regex& pattern, const std::string& where);

struct AppLaunchRecord {
  AppLaunchKey key;
  std::uint32_t position = 0;        ///< order of the arm within its pair
  std::string status;                ///< "ok", or why not
  double seconds = 0;                ///< the time compared: the workload's own, or the launch's wall time
  double wall_seconds = 0;           ///< the launch's wall time measured by the harness (mpirun included)
  std::string time_source;           ///< "workload", "wall", or "reported" (--time-regex)
  std::optional<double> comm_share;  ///< the workload's communication share (0..1)
  std::string command;
  std::string report;                    ///< the workload's JSON, "" for a command
  std::optional<TrafficTotals> traffic;  ///< "on" launches: totals of the merged dumps
  std::string bindings;                  ///< the launcher's --report-bindings lines, "" when none
  /// `bench placement --arm reorder`: libmpimon-reorder's statistics of the launch, one JSON line
  /// per reordering rank 0 did (MPIMON_REORDER_STATS, docs/reorder.md); "" when none.
  std::string reorder_stats;
  /// mpimon simulate: SimGrid's clock when the simulation ended (the compared time may be a report's).
  std::optional<double> simulated_seconds;
  /// mpimon simulate: the bytes between hosts in the simulation, "FROM TO BYTES" lines ("" when not counted).
  std::string host_traffic;
};

/// The launch as a compact results file keeps it (docs/apps.md): no command line, no workload
/// report and no bindings (they hold the machine's paths and host).
AppLaunchRecord compact(const AppLaunchRecord& launch);

/// `mpimon show --launches-csv` of application results: one line per launch, its key, status,
/// times, communication share and the point-to-point totals of its dumps (docs/apps.md).
void write_app_launches_csv(const std::vector<AppLaunchRecord>& launches, std::ostream& out);
/// The launches of such a file. The CSV carries the external and internal traffic only: the other
/// classes read as 0 (Table 1 uses these two). Errors name path:line.
std::vector<AppLaunchRecord> read_app_launches_csv(const std::string& path);

/// The two arms a table compares: `base` is the "off" column of the analysis, `other` the "on"
/// one; differences are other - base, relative ones other / base - 1.
struct ArmPair {
  std::string base{kArmOff};
  std::string other{kArmOn};
};
/// The arms of a results file's configuration (its "arms", "BASE,OTHER"); off,on when it has none.
/// Throws mpimon::Error (format) on a list that does not name two arms.
ArmPair arms_of(const std::map<std::string, std::string>& configuration);

/// One row of Table 1: an application at one process count. With other arms than off and on,
/// "off" stands for the base arm and "on" for the other (bench placement: A and B).
struct AppRow {
  std::string app;
  std::uint32_t np = 0;
  std::string time_source;
  double off_median = 0, on_median = 0;  ///< seconds, over pairs (the means are in analysis)
  PairedAnalysis analysis;               ///< seconds: on - off
  /// Mean over the "on" launches of the point-to-point messages (external + internal) / np.
  std::optional<double> messages_per_process;
  std::optional<double> external_per_process;  ///< the application's own messages / np
  std::optional<double> bytes_per_process;     ///< external + internal bytes / np
  /// All processes' messages per second of monitored time: messages_per_process * np / mean on
  /// time, as in RR-9038's Table 1 (bt A 16: 2436.25 * 16 / 6.449 = 6044).
  std::optional<double> messages_per_second;
  std::optional<double> comm_share;  ///< mean over the "off" launches
};

/// One pair's overhead, for Fig. 3: relative = on / off - 1; comm_share of the "off" launch.
struct AppPair {
  std::string app;
  std::uint32_t np = 0, pair = 0;
  double off = 0, on = 0, relative = 0;
  std::optional<double> comm_share;
};

/// Table 1 from the successful launches, pairing arms.other with arms.base by (app, np, pair);
/// rows sorted by app and np; an (app, np) without a complete pair has no row.
std::vector<AppRow> analyze_apps(const std::vector<AppLaunchRecord>& launches, double confidence = 0.95,
                                 const ArmPair& arms = {});
std::vector<AppPair> app_pairs(const std::vector<AppLaunchRecord>& launches, const ArmPair& arms = {});
/// Sorts rows in the order of `apps` (comma-separated labels, the sweep's order), then by np.
void order_rows(std::vector<AppRow>& rows, const std::string& apps);

/// Whether `arms` are the monitoring's off and on (mpimon bench app), not two placements (mpimon
/// bench placement: A and B).
bool is_overhead(const ArmPair& arms);

/// The two tables of application rows: RR-9038's Table 1 (the overhead of `mpimon bench app`, its
/// interval against a cost) and the comparison of two placements (`mpimon bench placement`).
enum class AppTable { overhead, placements };

/// The columns of an application row: `table` on the console (Table 1's verdict against
/// `threshold`), the CSV of `mpimon show --csv` and `bench app --csv`, and the file's /analysis
/// table; the time columns of the files named after the arms (off_mean_s, on_mean_s, ...; A_mean_s,
/// B_mean_s, ...). No JSON is written of these rows.
std::vector<Column<AppRow>> app_columns(const ArmPair& arms = {}, AppTable table = AppTable::overhead,
                                        double threshold = 0.05);

/// `table` (docs/apps.md, docs/placement.md): Table 1, with the overhead's interval against
/// `threshold`; or the placements' table: the arms' mean times, other - base with its 95 % CI,
/// relative, the t-test's and Wilcoxon's p, and which arm is faster when the interval excludes 0.
/// Then what the columns mean and a line for each inconclusive row.
void write_app_table(const std::vector<AppRow>& rows, AppTable table, const ArmPair& arms, double threshold,
                     std::ostream& out);
/// The rows as CSV, every column (docs/apps.md).
void write_app_csv(const std::vector<AppRow>& rows, std::ostream& out, const ArmPair& arms = {});

/// Reads and appends to a results file (format mpimon-apps); every append is flushed.
class AppResults {
 public:
  static void create(const std::string& path, const std::map<std::string, std::string>& configuration);
  explicit AppResults(std::string path);

  [[nodiscard]] std::map<std::string, std::string> configuration() const;
  [[nodiscard]] std::vector<AppLaunchRecord> launches() const;
  [[nodiscard]] std::set<AppLaunchKey> completed() const;  ///< launches with status "ok"
  void append(const AppLaunchRecord& launch);
  /// Replaces the /analysis (Table 1) and /pairs tables; the time columns are named after the arms
  /// (off_mean_s, on_mean_s, ...; A_mean_s, B_mean_s, ...).
  void write_analysis(const std::vector<AppRow>& rows, const std::vector<AppPair>& pairs, const ArmPair& arms = {});

 private:
  std::string path_;
};

}  // namespace mpimon
