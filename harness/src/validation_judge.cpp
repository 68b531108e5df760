// The validation suite's judge: the verdict of a run against the ledgers of what its programs sent
// and, for a case pinning a defect, against the defect's model (analysis/models/src/defects.cpp).
// It reads nothing and launches nothing: the runner (validation_suite.cpp) gives it the evidence.

#include "mpimon/harness/validation_judge.hpp"

#include <algorithm>
#include <regex>

#include "mpimon/base/error.hpp"
#include "mpimon/base/names.hpp"

namespace mpimon::harness {

namespace {

constexpr std::array<Named<Outcome>, 8> kOutcomeNames{{{Outcome::holds, "holds"},
                                                       {Outcome::fails, "FAILS"},
                                                       {Outcome::defect_present, "defect present"},
                                                       {Outcome::defect_fixed, "DEFECT FIXED"},
                                                       {Outcome::error, "ERROR"},
                                                       {Outcome::unreachable, "not reachable"},
                                                       {Outcome::left_out, "not checked"},
                                                       {Outcome::undecided, "not decided"}}};

constexpr std::array<Named<UnmonitoredAnswer>, 5> kAnswerNames{
    {{UnmonitoredAnswer::ends, "ended well"},
     {UnmonitoredAnswer::refuses_as_recorded, "the library's own refusal, as recorded"},
     {UnmonitoredAnswer::crashes_elsewhere, "a segmentation fault elsewhere"},
     {UnmonitoredAnswer::fails_as_the_defect, "the defect's failure"},
     {UnmonitoredAnswer::none, "no answer"}}};

bool is_segmentation_fault(const std::string& output) {
  return output.find("signal 11") != std::string::npos || output.find("Segmentation fault") != std::string::npos;
}

bool shows_all(const std::vector<std::string>& patterns, const std::string& output) {
  return std::all_of(patterns.begin(), patterns.end(),
                     [&](const std::string& p) { return std::regex_search(output, std::regex(p)); });
}

bool is_crash_rule(const KnownDefect& d) {
  return d.rule == DefectRule::crash || d.rule == DefectRule::crash_or_report;
}

// The defect's own failure: for the crashes a segmentation fault showing every expected line (the
// faulting functions), for a refusal its expected lines (the call and its error).
bool shows_the_defect(const KnownDefect& d, const std::string& output) {
  if (output.empty() || d.expected_lines.empty()) return false;
  return (!is_crash_rule(d) || is_segmentation_fault(output)) && shows_all(d.expected_lines, output);
}

// The MPI library's own refusal of the call on this series, as the defect table records it.
bool shows_recorded_refusal(const KnownDefect& d, const std::string& series, const std::string& output) {
  return std::any_of(d.unmonitored_refusals.begin(), d.unmonitored_refusals.end(),
                     [&](const auto& refusal) { return refusal.first == series && shows_all(refusal.second, output); });
}

// The verdict of a case that pins no defect.
Verdict judge_plain(const std::vector<std::string>& report) {
  if (report.empty()) return {Outcome::holds, "exact", {}};
  return {Outcome::fails, std::to_string(report.size()) + " differences, first: " + report.front(), report};
}

std::vector<std::string> compare(const RecordedTraffic& recorded, const std::vector<Ledger>& ledgers,
                                 const LedgerCheck& check) {
  std::vector<std::string> report;
  for (const auto& m : histogram_consistency(recorded)) report.push_back(m.what);
  for (const auto& m : compare_with_ledgers(recorded, ledgers, check)) report.push_back(m.what);
  return report;
}

}  // namespace

bool fails_when_present(const KnownDefect& d) {
  return d.rule == DefectRule::crash || d.rule == DefectRule::refused || d.rule == DefectRule::crash_or_report;
}

Verdict judge_failed_run(const ValidationCase& c, const std::string& failure, const std::string& control_failure,
                         const std::string& series) {
  const std::string first = "the run failed: " + failure.substr(0, failure.find('\n'));
  if (c.defect.empty()) return {Outcome::error, first, {failure}};
  const KnownDefect& d = known_defect(c.defect);
  if (!fails_when_present(d)) return {Outcome::error, first, {failure}};
  std::vector<std::string> ideal{first};
  if (!control_failure.empty()) {
    ideal.push_back("the run without monitoring failed too: " + control_failure.substr(0, control_failure.find('\n')));
  }
  Verdict v =
      judge_pinned(d, defect_expected(c, series), series, ideal, differences_from_failure(d, failure, control_failure));
  v.details.push_back(failure);
  return v;
}

Verdict judge_survived(const KnownDefect& d, const ValidationCase& c, const std::vector<std::string>& report,
                       const std::string& series, int np) {
  const bool expected_here = defect_expected(c, series);
  const auto unsupported = std::find_if(report.begin(), report.end(),
                                        [](const std::string& line) { return line.rfind("UNSUPPORTED ", 0) == 0; });
  if (unsupported != report.end()) {
    if (expected_here) return {Outcome::fails, d.id + " cannot be reached here: " + *unsupported, report};
    return {
        Outcome::unreachable,
        "not checked: " + d.id + " cannot be reached on Open MPI " + series + " (" + *unsupported + "), as recorded",
        report};
  }
  if (d.rule == DefectRule::crash_or_report) {
    return judge_pinned(d, expected_here, series, report, differences_from_expected_lines(d, report, np));
  }
  return judge_pinned(d, expected_here, series, report, {"the run succeeded"});
}

Verdict judge_report(const ValidationCase& c, const std::vector<std::string>& report, const std::string& series,
                     int np) {
  if (c.defect.empty()) return judge_plain(report);
  const KnownDefect& d = known_defect(c.defect);
  if (d.rule != DefectRule::exact_report) {
    raise_error(Error::Kind::input, c.name, "pins " + d.id + ", whose rule does not judge a report");
  }
  return judge_pinned(d, defect_expected(c, series), series, report, differences_from_expected_lines(d, report, np));
}

Verdict judge_no_dump(const KnownDefect& d, const ValidationCase& c, int written, int np, const std::string& series) {
  std::vector<std::string> ideal, model;
  if (written < np)
    ideal.push_back(std::to_string(np - written) + " of " + std::to_string(np) + " ranks wrote no dump");
  if (written > 0) model.push_back(std::to_string(written) + " of " + std::to_string(np) + " ranks wrote a dump");
  return judge_pinned(d, defect_expected(c, series), series, ideal, model);
}

Verdict judge_recording(const ValidationCase& c, const std::string& series, const RecordedTraffic& recorded,
                        const std::vector<Ledger>& ledgers) {
  const KnownDefect* d = c.defect.empty() ? nullptr : &known_defect(c.defect);
  const std::vector<std::string> against_ideal = compare(recorded, ledgers, c.check);
  if (d && fails_when_present(*d)) {
    // Every run succeeded: the failure modelled did not happen (fixed, if the data is exact).
    return judge_pinned(*d, defect_expected(c, series), series, against_ideal, {"the run succeeded"});
  }
  if (!d || d->rule != DefectRule::ledger_transform) return judge_report(c, against_ideal, series);
  return judge_pinned(*d, defect_expected(c, series), series, against_ideal,
                      compare(recorded, apply_defect(d->id, ledgers), c.check));
}

std::vector<std::string> differences_from_failure(const KnownDefect& d, const std::string& failure,
                                                  const std::string& control_failure) {
  // Only what monitoring adds is the defect: the same call failing without monitoring (Open MPI
  // 5.0.7 refuses the dist-graph call with MPI_ERR_ARG) is not.
  std::vector<std::string> out;
  if (is_crash_rule(d)) {
    if (!is_segmentation_fault(failure)) out.push_back("no segmentation fault");
    if (shows_the_defect(d, control_failure)) out.push_back("the run without monitoring crashes the same way");
  } else {
    if (failure.empty()) out.push_back("the run succeeded");
    if (!control_failure.empty()) out.push_back("the run without monitoring fails too");
  }
  for (const auto& e : d.expected_lines) {
    if (!std::regex_search(failure, std::regex(e))) out.push_back("the failure's output does not show " + e);
  }
  return out;
}

UnmonitoredAnswer unmonitored_answer(const KnownDefect& d, const std::string& series, const std::string& failure) {
  if (failure.empty()) return UnmonitoredAnswer::ends;
  if (shows_the_defect(d, failure)) return UnmonitoredAnswer::fails_as_the_defect;
  if (is_segmentation_fault(failure)) return UnmonitoredAnswer::crashes_elsewhere;
  if (shows_recorded_refusal(d, series, failure)) return UnmonitoredAnswer::refuses_as_recorded;
  return UnmonitoredAnswer::none;
}

const char* answer_name(UnmonitoredAnswer a) { return to_name(kAnswerNames, a); }

bool refused_before_the_crash(const KnownDefect& d, const std::string& series, const std::string& failure) {
  return is_crash_rule(d) && !failure.empty() && !is_segmentation_fault(failure) &&
         shows_recorded_refusal(d, series, failure);
}

Verdict judge_undecided(const KnownDefect& d, const std::string& why, const std::vector<std::string>& outputs) {
  return {Outcome::undecided, "not decided: " + d.id + " (" + d.rule_text + "): " + why, outputs};
}

std::vector<std::string> expected_lines_at(const KnownDefect& d, int np) {
  std::vector<std::string> out;
  for (const auto& e : d.rule == DefectRule::crash_or_report ? d.survived_lines : d.expected_lines) {
    const bool per_rank = e.find("{rank}") != std::string::npos, per_peer = e.find("{peer}") != std::string::npos;
    if (!per_rank && !per_peer) {
      out.push_back(e);
      continue;
    }
    if (np <= 0) raise_error(Error::Kind::input, d.id, "expected lines per rank need the process count");
    for (int r = 0; r < (per_rank ? np : 1); ++r) {
      for (int p = 0; p < (per_peer ? np : 1); ++p) {
        std::string line = std::regex_replace(e, std::regex(R"(\{rank\})"), std::to_string(r));
        out.push_back(std::regex_replace(line, std::regex(R"(\{peer\})"), std::to_string(p)));
      }
    }
  }
  return out;
}

std::vector<std::string> differences_from_expected_lines(const KnownDefect& d, const std::vector<std::string>& report,
                                                         int np) {
  std::vector<std::string> out;
  const std::vector<std::string> lines = expected_lines_at(d, np);
  std::vector<std::regex> expected;
  for (const auto& e : lines) expected.emplace_back(e);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const bool found = std::any_of(report.begin(), report.end(),
                                   [&](const std::string& line) { return std::regex_match(line, expected[i]); });
    if (!found) out.push_back("missing: a line matching " + lines[i]);
  }
  for (const auto& line : report) {
    const bool known =
        std::any_of(expected.begin(), expected.end(), [&](const std::regex& e) { return std::regex_match(line, e); });
    if (!known) out.push_back("unexpected: " + line);
  }
  return out;
}

Verdict judge_pinned(const KnownDefect& d, bool expected_here, const std::string& series,
                     const std::vector<std::string>& against_ideal, const std::vector<std::string>& against_defect) {
  const auto both = [&] {
    std::vector<std::string> details;
    for (const auto& m : against_defect) details.push_back("against the model of " + d.id + ": " + m);
    for (const auto& m : against_ideal) details.push_back("against the ideal ledger: " + m);
    return details;
  };
  if (!expected_here) {
    // Recorded as absent on this series: the case must hold like any other.
    if (against_ideal.empty())
      return {Outcome::holds, "exact (defect " + d.id + " absent on Open MPI " + series + ", as recorded)", {}};
    if (against_defect.empty()) {
      return {Outcome::fails, "defect " + d.id + " present on Open MPI " + series + ", where it was recorded as absent",
              against_ideal};
    }
    return {Outcome::fails, std::to_string(against_ideal.size()) + " differences, first: " + against_ideal.front(),
            both()};
  }
  if (against_ideal.empty()) {
    return {Outcome::defect_fixed,
            "DEFECT FIXED: " + d.id + " no longer shows, the run equals the ideal ledger; update docs/defects.md",
            {}};
  }
  if (against_defect.empty()) {
    return {Outcome::defect_present, "defect " + d.id + " present, exactly as modelled (" + d.rule_text + ")",
            against_ideal};
  }
  return {Outcome::fails,
          "differs from the model of " + d.id + " (" + std::to_string(against_defect.size()) +
              " differences), first: " + against_defect.front(),
          both()};
}

const std::vector<std::string>& established_series() {
  static const std::vector<std::string> series = {"4.1", "5.0"};
  return series;
}

bool defect_expected(const ValidationCase& c, const std::string& series) {
  if (c.defect.empty()) return false;
  const auto& known = established_series();
  const std::string& as = std::find(known.begin(), known.end(), series) != known.end() ? series : known.back();
  return std::find(c.defect_present_on.begin(), c.defect_present_on.end(), as) != c.defect_present_on.end();
}

const char* outcome_name(Outcome o) { return to_name(kOutcomeNames, o); }

bool outcome_expected(Outcome o) { return o == Outcome::holds || o == Outcome::defect_present || outcome_unchecked(o); }

bool outcome_unchecked(Outcome o) {
  return o == Outcome::unreachable || o == Outcome::left_out || o == Outcome::undecided;
}

}  // namespace mpimon::harness
