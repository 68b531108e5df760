#include <cstdio>
#include <iostream>
#include <iterator>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/version.hpp"
#include "mpimon/matrices/merge.hpp"

namespace mpimon::cli {

namespace {

MatrixLayout parse_layout(const std::string& text) {
  if (text == "auto") return MatrixLayout::automatic;
  if (text == "dense") return MatrixLayout::dense;
  if (text == "csr") return MatrixLayout::csr;
  throw po::error("--layout must be auto, dense or csr, not '" + text + "'");
}

/// Redraws one progress line on a terminal at most every 1 % of the files.
class ProgressLine {
 public:
  ProgressLine(bool enabled, bool forced) : enabled_(enabled || forced), forced_(forced) {}
  void operator()(std::size_t done, std::size_t total) {
    if (!enabled_ || (!forced_ && total < 64)) return;
    std::size_t percent = done * 100 / total;
    if (percent == last_percent_ && done != total) return;
    last_percent_ = percent;
    std::fprintf(stderr, "\rmerging: %zu/%zu files (%zu%%)", done, total, percent);
    if (done == total) std::fputs("\n", stderr);
  }

 private:
  bool enabled_;
  bool forced_;
  std::size_t last_percent_ = 101;
};

std::string describe_ranks(const DumpSummary& d) {
  if (d.ranks_present == d.nprocs) return "all " + std::to_string(d.nprocs) + " ranks present";
  return std::to_string(d.ranks_present) + " of " + std::to_string(d.nprocs) + " ranks present";
}

void print_summary(const std::string& output, const std::vector<DumpSummary>& dumps, unsigned processes) {
  std::size_t files = 0;
  for (const auto& d : dumps) files += d.ranks_present;
  const std::string by = processes > 1 ? ", merged by " + std::to_string(processes) + " processes" : "";
  std::printf("wrote %s: %zu dump%s from %zu file%s%s\n", output.c_str(), dumps.size(), dumps.size() == 1 ? "" : "s",
              files, files == 1 ? "" : "s", by.c_str());
  for (const auto& d : dumps) {
    std::printf("dump %s: %u processes, %s, %s, %s layout\n", d.name.c_str(), d.nprocs, describe_ranks(d).c_str(),
                d.internal_distinguished ? "internal/external distinguished" : "no internal (I) lines",
                d.layout.c_str());
    std::printf("  %-9s %20s %22s %10s\n", "class", "messages", "bytes", "pairs");
    for (TrafficClass c : kAllTrafficClasses) {
      const ClassTotals& t = d.totals[static_cast<std::size_t>(c)];
      std::printf("  %-9s %20llu %22llu %10llu\n", std::string(class_name(c)).c_str(),
                  static_cast<unsigned long long>(t.messages), static_cast<unsigned long long>(t.bytes),
                  static_cast<unsigned long long>(t.pairs));
    }
    std::printf("  %zu histograms, %zu communicators\n", d.histograms, d.communicators);
  }
}

}  // namespace

int merge_command(const std::string& name, const std::vector<std::string>& args) {
  return parallel_merge_command(name, args, MergeProcesses{});
}

int parallel_merge_command(const std::string& name, const std::vector<std::string>& args,
                           const MergeProcesses& processes) {
  Command cmd{name, "[-o OUT.h5] [--files-from LIST] FILES|DIRS...",
              "Merges the per-rank NAME.RANK.prof files written by Open MPI's monitoring into one HDF5 file\n"
              "of communication matrices (format: docs/matrices-format.md). Files of several dumps become\n"
              "several groups. A directory stands for every NAME.RANK.prof inside it; --files-from reads\n"
              "paths one per line ('-': standard input), for more files than a command line holds.\n"
              "On any bad input nothing is written and the exit code is 1."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string output, layout, files_from;
    std::uint32_t csr_above = 0, nprocs = 0;
    unsigned threads = 0;
    const std::string nprocs_help =
        "the size of MPI_COMM_WORLD when the files do not say it (no MPI_COMM_WORLD line: coll monitoring off); "
        "default: the highest rank or peer + 1, up to " +
        std::to_string(kMaxInferredProcesses);
    options.add_options()("output,o", po::value(&output)->default_value("matrices.h5"), "output HDF5 file")(
        "layout", po::value(&layout)->default_value("auto"),
        "matrix layout: dense, csr (compressed sparse rows), or auto")(
        "csr-above", po::value(&csr_above)->default_value(2048),
        "with --layout auto, use csr above this many processes")("nprocs", po::value(&nprocs), nprocs_help.c_str())(
        "threads", po::value(&threads)->default_value(0),
        "threads that read and parse the input files (0: one per core, at most 4)")(
        "files-from", po::value(&files_from), "read input paths from this file, one per line ('-': standard input)")(
        "progress", "show progress even when stderr is not a terminal")("quiet,q", "print nothing on success")(
        "files", po::value<std::vector<std::string>>(), "input .prof files or directories of them");
    // Boost.Program_options takes positional arguments one by one from the front of a vector,
    // quadratic in their number: file names (tens of thousands) are set aside here, and only
    // the options go through it.
    std::vector<std::string> option_args, file_args;
    for (std::size_t i = 0; i < args.size(); ++i) {
      const std::string& a = args[i];
      if (a == "--") {
        file_args.insert(file_args.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
        break;
      }
      if (a.empty() || a[0] != '-') {
        file_args.push_back(a);
        continue;
      }
      option_args.push_back(a);
      const bool takes_value = a == "-o" || a == "--output" || a == "--layout" || a == "--csr-above" ||
                               a == "--nprocs" || a == "--threads" || a == "--files-from";
      if (takes_value && i + 1 < args.size()) option_args.push_back(args[++i]);
    }
    po::variables_map vm;
    if (!parse_options(cmd, option_args, options, {}, vm)) return kExitOk;

    MergeOptions merge;
    merge.layout = parse_layout(layout);
    merge.csr_above = csr_above;
    merge.threads = threads;
    if (vm.count("nprocs")) {
      if (nprocs == 0) throw po::error("--nprocs must be at least 1");
      merge.nprocs = nprocs;
    }
    merge.generator = std::string("mpimon ") + kVersion;
    if (file_args.empty() && files_from.empty()) {
      throw po::error("no input: give .prof files, directories of them, or --files-from LIST");
    }
    auto list_files = [&] {
      std::vector<std::string> files = expand_input_paths(file_args);
      if (!files_from.empty()) {
        std::vector<std::string> listed = read_path_list(files_from);
        files.insert(files.end(), std::make_move_iterator(listed.begin()), std::make_move_iterator(listed.end()));
      }
      return files;
    };
    ProgressLine progress(!vm.count("quiet") && stderr_is_terminal(), vm.count("progress") > 0);
    auto dumps = processes.merge ? processes.merge(list_files, output, merge, std::ref(progress))
                                 : merge_prof_files(list_files(), output, merge, std::ref(progress));
    if (!vm.count("quiet")) print_summary(output, dumps, processes.size);
    return kExitOk;
  });
}

}  // namespace mpimon::cli
