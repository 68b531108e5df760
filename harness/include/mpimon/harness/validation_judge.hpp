#pragma once
// The validation suite's judge: the verdict of a run of a case against the ledgers of what its
// programs sent and, for a case pinning a known defect, against the defect's model. It only
// compares: the runner (validation_suite.hpp) launches the runs and reads their dumps.

#include <string>
#include <vector>

#include "mpimon/checks/ledger_check.hpp"
#include "mpimon/harness/validation_cases.hpp"
#include "mpimon/models/defects.hpp"

namespace mpimon::harness {

/// The Open MPI series the suite has been run on; the expectations of the defects are set for these.
const std::vector<std::string>& established_series();
/// Whether the case's pinned defect is expected on this series ("" when unknown: the newest
/// established one's expectation).
bool defect_expected(const ValidationCase& c, const std::string& series);

/// unreachable: the MPI library cannot reach what the case tests (the MPI_T flush on Open MPI 4.1),
/// so nothing was checked; left_out: the case needs a component ompi_info does not list (osc/pt2pt
/// on Open MPI 5), so it was not run; undecided: a crash or refusal defect's runs gave no answer
/// in as many tries as the case makes (judge_undecided). Verdicts of their own ("not checked",
/// "not decided"), neither exact nor a failure.
enum class Outcome { holds, fails, defect_present, defect_fixed, error, unreachable, left_out, undecided };
const char* outcome_name(Outcome o);
/// holds, defect_present, unreachable, left_out and undecided are what is expected; the others fail
/// the suite.
bool outcome_expected(Outcome o);
/// unreachable, left_out and undecided: nothing was checked.
bool outcome_unchecked(Outcome o);

struct Verdict {
  Outcome outcome = Outcome::error;
  std::string summary;
  std::vector<std::string> details;
};

/// Defects whose model includes a failed run (the runner retries them and runs them unmonitored).
bool fails_when_present(const KnownDefect& d);

/// The lines a defect's `exact_report` rule (or a `crash_or_report` run that survived) expects of
/// a run at `np` processes: an
/// expected line holding `{rank}` and/or `{peer}` stands for one line per rank and/or peer (each
/// substituted by 0 to np - 1); the others are taken as they are.
std::vector<std::string> expected_lines_at(const KnownDefect& d, int np);

/// The differences between a self-checking program's report (or the list of a run's differences
/// from its ledgers) and the lines a defect's `exact_report` rule expects at `np` processes:
/// "missing: ..." for an expected line no report line matches, "unexpected: ..." for a report line
/// no expected line matches.
std::vector<std::string> differences_from_expected_lines(const KnownDefect& d, const std::vector<std::string>& report,
                                                         int np = 0);

/// The differences between a failed run and the model of a `crash`, `crash_or_report` or `refused`
/// defect: its output shows every one of the defect's expected lines; for the crashes, it is a
/// segmentation fault, and the unmonitored run (`control_failure`, empty when that run succeeded)
/// does not show the same crash (a crash elsewhere, or the library's own refusal, is not the
/// defect's); for `refused`, the unmonitored run succeeded.
std::vector<std::string> differences_from_failure(const KnownDefect& d, const std::string& failure,
                                                  const std::string& control_failure);

/// What the run without monitoring of a crash or refusal defect's case answers, by the signature of
/// its output (`failure`: "" when it ended well). The question is whether the defect's failure
/// happens without monitoring: ending well, the MPI library's own refusal of the call recorded for
/// this series (`unmonitored_refusals`: Open MPI 5.0.7's MPI_ERR_ARG on the dist-graph call), or a
/// segmentation fault elsewhere (5.0.7's own coll/basic, 2 runs in 1000) answer no; showing the
/// defect's failure itself answers yes; anything else (a rank killed, a timeout, an error not
/// recorded) does not answer, and the runner runs it again.
enum class UnmonitoredAnswer { ends, refuses_as_recorded, crashes_elsewhere, fails_as_the_defect, none };
UnmonitoredAnswer unmonitored_answer(const KnownDefect& d, const std::string& series, const std::string& failure);
const char* answer_name(UnmonitoredAnswer a);

/// Whether a monitored run of a crash defect's case ended in the MPI library's own refusal of the
/// call recorded for this series, before any rank crashed (no segmentation fault): it says nothing
/// about the crash, and the runner runs it again.
bool refused_before_the_crash(const KnownDefect& d, const std::string& series, const std::string& failure);

/// The verdict of a crash or refusal defect's case whose runs gave no answer in as many tries as
/// the case makes (`why`: which runs, and what they showed; `outputs`: the last of them): outcome
/// undecided, "not decided: DEFECT ...", never a pass or a failure by chance.
Verdict judge_undecided(const KnownDefect& d, const std::string& why, const std::vector<std::string>& outputs);

/// The verdict of a case pinning defect `d`. `against_ideal`: the differences between the run and
/// the correct behaviour (the ideal ledger); `against_defect`: between the run and the defect's
/// model (the ledger transformed by its rule). Where the defect is expected (`expected_here`), the
/// case shows it only when the run equals the model exactly; equal to the ideal is DEFECT FIXED;
/// anything else fails with both differences. Where it is not expected, the case must be ideal.
Verdict judge_pinned(const KnownDefect& d, bool expected_here, const std::string& series,
                     const std::vector<std::string>& against_ideal, const std::vector<std::string>& against_defect);

/// The verdict of what a run of case `c` recorded (its dumps merged, minus the control run's)
/// against the ledgers of its ranks: equal for a case pinning nothing; for a case pinning a
/// `ledger_transform` defect, `judge_pinned` against the ideal ledgers and their transform.
Verdict judge_recording(const ValidationCase& c, const std::string& series, const RecordedTraffic& recorded,
                        const std::vector<Ledger>& ledgers);

/// A run that ended with an error (`failure`; `control_failure`: the unmonitored run's, empty when
/// it succeeded): the evidence of crash and refused defects, else an error.
Verdict judge_failed_run(const ValidationCase& c, const std::string& failure, const std::string& control_failure,
                         const std::string& series);

/// A self-checking run pinned to a crash or refusal (`d`) that ended well. When the program could
/// not reach what the defect needs (an UNSUPPORTED variable: the MPI_T flush on Open MPI 4.1), the
/// defect cannot occur on this library: expected there only if recorded as absent.
Verdict judge_survived(const KnownDefect& d, const ValidationCase& c, const std::vector<std::string>& report,
                       const std::string& series, int np);

/// A report of differences from the ideal behaviour (a self-checking program's): the plain verdict,
/// or, for a pinned defect, the verdict against the lines its rule expects.
Verdict judge_report(const ValidationCase& c, const std::vector<std::string>& report, const std::string& series,
                     int np = 0);

/// A run of a case pinning a `no_dump` defect `d` that ended well, in which `written` of `np`
/// ranks wrote a dump.
Verdict judge_no_dump(const KnownDefect& d, const ValidationCase& c, int written, int np, const std::string& series);

}  // namespace mpimon::harness
