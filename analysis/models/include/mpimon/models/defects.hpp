#pragma once
// The known defects of Open MPI's monitoring (docs/defects.md), as one table: what each does, on
// which Open MPI series, which validation cases pin it, and, where the defect changes recorded
// data, the rule that turns the ideal ledger into what the defective monitoring records. The
// validation suite, `mpimon validate`, `mpimon show` and the tests all read this table.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "mpimon/models/ledger.hpp"

namespace mpimon {

/// How the pinned case recognises the defect.
enum class DefectRule {
  /// The recorded data must equal the ledgers transformed by `apply_defect` exactly.
  ledger_transform,
  /// The run must write no dump at all, with exit code 0.
  no_dump,
  /// The run must be killed by a segmentation fault showing `expected_lines`, which the run
  /// without monitoring does not show.
  crash,
  /// The run must fail with an MPI error showing `expected_lines`, where the same run without
  /// monitoring succeeds.
  refused,
  /// The report must be exactly the defect's `expected_lines` (self-checking programs).
  exact_report,
  /// A use after free, whose symptom depends on what reuses the memory: the run is either killed
  /// as `crash` says (`expected_lines`), or it ends well and its report is exactly
  /// `survived_lines` (the freed data, written out).
  crash_or_report,
  /// The collective sweep's model of the defect predicts the recorded data exactly, the ideal
  /// model does not (`mpimon validate collective --ideal-monitoring`, validation/collectives.cmake).
  collective_model,
};

struct KnownDefect {
  std::string id;                   ///< the docs/defects.md section (anchor) id
  std::vector<std::string> series;  ///< Open MPI series where present ("4.1", "5.0")
  DefectRule rule;
  std::string rule_text;            ///< the rule in words, for reports
  std::vector<std::string> pinned;  ///< the pinned cases (validation case names or CTest names)
  std::string meaning;              ///< one line: what it means for a user's numbers
  /// The report lines of `exact_report` rules (regular expressions, each must
  /// match one whole line; `{rank}` and `{peer}` stand for every rank and peer of the run, see
  /// expected_lines_at); for `crash`, what the crash's output must show (each searched for
  /// anywhere in it: the faulting functions of the backtrace).
  std::vector<std::string> expected_lines = {};
  /// For `crash_or_report`: the report lines of a run that survived (as `exact_report`'s).
  std::vector<std::string> survived_lines = {};
  /// For `crash` and `crash_or_report`: where the MPI library itself refuses the pinned call, the
  /// series and what its refusal shows without monitoring (regular expressions, each searched for
  /// anywhere in the output; e.g. Open MPI 5.0.7's MPI_ERR_ARG on the dist-graph call). On that
  /// series this refusal is the run without monitoring's answer, as ending well is elsewhere.
  std::vector<std::pair<std::string, std::vector<std::string>>> unmonitored_refusals = {};
};

/// Every known defect, in docs/defects.md's order.
const std::vector<KnownDefect>& known_defects();
/// The defect of this id; throws mpimon::Error (input) for an unknown id.
const KnownDefect& known_defect(const std::string& id);
/// "docs/defects.md#" and the id: where a user reads about it.
std::string defect_link(const std::string& id);

/// What the monitoring records with the defect present: the ideal ledgers of a pinned case
/// transformed by the defect's rule. Throws mpimon::Error for a defect without a ledger rule.
std::vector<Ledger> apply_defect(const std::string& id, const std::vector<Ledger>& ideal);

/// What a recorded file holds that decides which defects can affect it (`mpimon show`).
struct RecordedFacts {
  bool point_to_point = false;          ///< E or I traffic recorded
  bool internal_distinguished = false;  ///< pml_monitoring_enable 2 (E and I separate)
  bool one_to_all_records = false, all_to_one_records = false, all_to_all_records = false;
  std::string open_mpi_series;  ///< "" when the file does not say
  /// The monitoring components the run loaded ("coll", "osc", "pml"); empty when the file does not say.
  std::vector<std::string> monitoring_components;
};

struct DefectWarning {
  std::string id;
  std::string why;  ///< what in the file makes the defect relevant (a few words)
};

/// The pinned defects that can affect a file holding `facts`, in the table's order: those of its
/// Open MPI series (where the file does not say, those of every series) that what it holds can show.
std::vector<DefectWarning> defects_affecting(const RecordedFacts& facts);

}  // namespace mpimon
