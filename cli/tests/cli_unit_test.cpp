// What the CLI decides on its own, tested without running a command: the checks of option values
// (cli_support.hpp, option_values.cpp), the exit code of each kind of error, and where `mpimon
// place`'s rankfile hosts come from, on inputs whose answers are worked out by hand here.

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "place_options.hpp"

namespace mpimon::cli {
namespace {

/// The message of the usage error (po::error, or mpimon::Error of kind usage: run_command answers
/// both alike) that `f` throws, or "" when it throws none.
template <typename F>
std::string usage_error_of(F f) {
  try {
    f();
  } catch (const po::error& e) {
    return e.what();
  } catch (const Error& e) {
    if (e.kind() == Error::Kind::usage) return e.what();
    throw;
  }
  return "";
}

TEST(OptionValues, NumberListsReadEveryItem) {
  EXPECT_EQ(parse_number_list("2,4,16", "np", 1, 64), (std::vector<std::uint64_t>{2, 4, 16}));
  EXPECT_EQ(split_positive_list("1", "np"), (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(parse_number_list("0", "sizes", 0, 10), (std::vector<std::uint64_t>{0}));
}

TEST(OptionValues, BadItemsAreRefusedNamingTheOptionAndQuotingTheItem) {
  EXPECT_EQ(usage_error_of([] { parse_number_list("2,0", "np", 1, 64); }),
            "--np: '0' is not a whole number from 1 to 64 (a comma-separated list such as 2,4)");
  EXPECT_EQ(usage_error_of([] { split_positive_list("3x", "pairs"); }),
            "--pairs: '3x' is not a whole number from 1 to 4294967295 (a comma-separated list such as 2,4)");
  EXPECT_EQ(usage_error_of([] { parse_number_list("2,,4", "np", 1, 64); }), "empty item in --np '2,,4'");
  EXPECT_EQ(usage_error_of([] { parse_number_list("", "np", 1, 64); }), "empty item in --np ''");
  // 20 digits do not fit in 64 bits: refused, never wrapped.
  EXPECT_NE(usage_error_of([] { parse_number_list("18446744073709551616", "sizes", 0, 100); }), "");
  EXPECT_NE(usage_error_of([] { split_positive_list("-2", "np"); }), "");
}

TEST(OptionValues, RangeTextSaysWhetherThereIsAnUpperBound) {
  EXPECT_EQ(range_text(1, 8), "from 1 to 8");
  EXPECT_EQ(range_text(3, std::numeric_limits<std::uint64_t>::max()), "at least 3");
}

TEST(OptionValues, SizesTakeTheNamedSweepsOrBytesAnIntCanHold) {
  EXPECT_EQ(usage_error_of([] { check_sizes("paper", "sizes"); }), "");
  EXPECT_EQ(usage_error_of([] { check_sizes("quick", "sizes"); }), "");
  EXPECT_EQ(usage_error_of([] { check_sizes("0,8,1024", "sizes"); }), "");
  EXPECT_NE(usage_error_of([] { check_sizes("2147483648", "sizes"); }), "");  // INT_MAX + 1
  EXPECT_NE(usage_error_of([] { check_sizes("papers", "sizes"); }), "");
}

TEST(OptionValues, RangeNotifiersQuoteTheValueAndTheRange) {
  EXPECT_EQ(usage_error_of([] { in_range<unsigned>("pairs", 1)(0u); }), "--pairs: '0' is out of range: at least 1");
  EXPECT_EQ(usage_error_of([] {
              each_in_range<unsigned>("np", 2, 4)({2u, 5u});
            }),
            "--np: '5' is out of range: from 2 to 4");
  EXPECT_EQ(usage_error_of([] { in_range<unsigned>("pairs", 1)(7u); }), "");
}

TEST(OptionValues, ClassesAndMetricsByNameOrLetter) {
  EXPECT_EQ(parse_classes("external,I,coll"),
            (std::vector<TrafficClass>{TrafficClass::external, TrafficClass::internal, TrafficClass::coll}));
  EXPECT_EQ(usage_error_of([] { parse_classes("external,pml", "--evaluate-classes"); }),
            "unknown class 'pml' in --evaluate-classes (external, internal, osc_sent, osc_recv, coll)");
  EXPECT_EQ(parse_metric("count"), Metric::count);
  EXPECT_EQ(usage_error_of([] { parse_metric("messages"); }), "--metric must be bytes or count, not 'messages'");
}

// The checks parse_options makes before any command body runs (every command shares them).
struct ParsedCommand {
  po::options_description options{"options"};
  po::positional_options_description positional;
  po::variables_map vm;
  unsigned pairs = 0;
  double margin = 0;
  std::string name, input;
  ParsedCommand() {
    options.add_options()("pairs", po::value(&pairs))("margin", po::value(&margin))("name", po::value(&name))(
        "input", po::value(&input)->required());
    positional.add("input", 1);
  }
  std::string error_of(const std::vector<std::string>& args) {
    return usage_error_of([&] { parse_options({"mpimon test", "FILE", "a test"}, args, options, positional, vm); });
  }
};

TEST(ParseOptions, NegativeAndEmptyValuesAreRefusedBeforeAnythingRuns) {
  EXPECT_EQ(ParsedCommand().error_of({"f.h5", "--pairs", "-1"}),
            "--pairs: '-1' is negative: expected a non-negative integer");
  EXPECT_EQ(ParsedCommand().error_of({"f.h5", "--margin=-0.5"}),
            "--margin: '-0.5' is negative: expected a number >= 0");
  EXPECT_EQ(ParsedCommand().error_of({"f.h5", "--name", ""}), "--name: empty value (see --help for what it takes)");
  EXPECT_EQ(ParsedCommand().error_of({"--pairs", "3"}), "missing input argument: give the file to read (see --help)");
  EXPECT_NE(ParsedCommand().error_of({"f.h5", "--pairs", "three"}).find("expected a non-negative integer"),
            std::string::npos);
}

TEST(ParseOptions, ValuesThatPassAreStored) {
  ParsedCommand c;
  EXPECT_EQ(c.error_of({"f.h5", "--pairs", "3", "--margin", "0.25"}), "");
  EXPECT_EQ(c.input, "f.h5");
  EXPECT_EQ(c.pairs, 3u);
  EXPECT_DOUBLE_EQ(c.margin, 0.25);
}

TEST(ExitCodes, EachKindOfErrorHasItsCode) {
  EXPECT_EQ(exit_code_of(Error::Kind::usage), 2);
  EXPECT_EQ(exit_code_of(Error::Kind::input), 1);
  EXPECT_EQ(exit_code_of(Error::Kind::format), 1);
  EXPECT_EQ(exit_code_of(Error::Kind::system), 1);
  EXPECT_EQ(exit_code_of(Error::Kind::launch), 9);
}

TEST(ExitCodes, RunCommandMapsWhatTheBodyThrows) {
  const Command cmd{"mpimon test", "", ""};
  EXPECT_EQ(run_command(cmd, [] { return 0; }), 0);
  EXPECT_EQ(run_command(cmd, []() -> int { throw po::error("bad"); }), 2);
  EXPECT_EQ(run_command(cmd, []() -> int { throw Error(Error::Kind::input, "f: missing"); }), 1);
  EXPECT_EQ(run_command(cmd, []() -> int { throw Error(Error::Kind::launch, "2 launches failed"); }), 9);
  EXPECT_EQ(run_command(cmd, []() -> int { throw std::runtime_error("odd"); }), 1);
}

// ---- mpimon place's options ------------------------------------------------------------

TEST(PlaceOptions, HostsAreGivenOrNamedAfterTheNodes) {
  PlaceOptions o;
  EXPECT_EQ(hosts_of(o, 3), (std::vector<std::string>{"node0", "node1", "node2"}));
  o.hosts = "a,b";
  EXPECT_EQ(hosts_of(o, 2), (std::vector<std::string>{"a", "b"}));
}

// docs/cli.md's table of exit codes lists exactly the codes of the one table in the code, each row
// with the commands that return it (a code added in one place and not the other fails here).
TEST(ExitCodes, ThePageListsTheTable) {
  std::ifstream page(MPIMON_SOURCE_DIR "/docs/cli.md");
  ASSERT_TRUE(page) << "docs/cli.md";
  std::multimap<int, std::string> documented;  // code -> its row's commands cell
  bool in_table = false;
  for (std::string line; std::getline(page, line);) {
    if (line.rfind("| exit code | commands | meaning |", 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|", 0) != 0) break;
    std::vector<std::string> cells;
    std::istringstream row(line.substr(1));
    for (std::string cell; std::getline(row, cell, '|');) cells.push_back(cell);
    ASSERT_GE(cells.size(), 3u) << line;
    const auto first = cells[0].find_first_not_of(' '), last = cells[0].find_last_not_of(' ');
    const std::string code = cells[0].substr(first, last - first + 1);
    if (code.find_first_not_of("0123456789") != std::string::npos) continue;  // ---, the application's
    documented.emplace(std::stoi(code), cells[1]);
  }
  ASSERT_FALSE(documented.empty()) << "no exit-code table in docs/cli.md";
  std::multiset<int> in_code, on_page;
  for (const auto& row : kExitCodes) {
    in_code.insert(row.code);
    if (row.commands.empty()) continue;
    bool found = false;
    for (auto [it, end] = documented.equal_range(row.code); it != end; ++it)
      found |= it->second.find("`" + std::string(row.commands) + "`") != std::string::npos;
    EXPECT_TRUE(found) << "docs/cli.md has no row " << row.code << " for `" << row.commands << "`";
  }
  for (const auto& [code, commands] : documented) on_page.insert(code);
  EXPECT_EQ(on_page, in_code);
}

}  // namespace
}  // namespace mpimon::cli
