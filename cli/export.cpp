#include <fstream>
#include <iostream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/error.hpp"
#include "mpimon/export.hpp"

namespace mpimon::cli {

int export_treematch_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 [--dump NAME] [--classes LIST] [--metric bytes|count] [-o OUT.mat]",
              "Writes the symmetric affinity matrix TreeMatch reads: N lines of N integers, entry (i, j) being\n"
              "the traffic from i to j plus the traffic from j to i, diagonal 0 (docs/exports.md)."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string input, dump, classes, metric, output;
    options.add_options()("dump", po::value(&dump), "dump to export (required when the file holds several)")(
        "classes", po::value(&classes)->default_value("external,internal"), "classes to add up")(
        "metric", po::value(&metric)->default_value("bytes"), "bytes or count")(
        "output,o", po::value(&output), "output file (default: standard output)")(
        "input", po::value(&input)->required(), "merged HDF5 file");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    auto selected = parse_classes(classes);
    Metric m = parse_metric(metric);
    MatrixFile file(input);
    if (dump.empty()) dump = file.default_dump();
    SparseMatrix directed = sum_classes(file, dump, selected, m);
    if (output.empty()) {
      write_treematch(directed, std::cout);
      return kExitOk;
    }
    write_file_atomically(output, [&](std::ostream& out) { write_treematch(directed, out); });
    return kExitOk;
  });
}

int export_mat_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 --compat profile2mat [--dump NAME] [-o DIR]",
              "Writes the .mat files Open MPI's profile2mat writes for DIR/DUMP.prof (the concatenated\n"
              "per-rank files of a dump), byte for byte: DUMP_{size,msg,avg}_{all,external,internal,osc,coll}.mat.\n"
              "Every dump of the file is exported unless --dump names one."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string input, dump, compat, dir;
    options.add_options()("compat", po::value(&compat)->default_value("profile2mat"), "output convention: profile2mat")(
        "dump", po::value(&dump), "export only this dump")("output,o", po::value(&dir)->default_value("."),
                                                           "output directory")(
        "input", po::value(&input)->required(), "merged HDF5 file");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    if (compat != "profile2mat") throw po::error("--compat supports only 'profile2mat', not '" + compat + "'");
    MatrixFile file(input);
    std::vector<std::string> dumps = dump.empty() ? file.dumps() : std::vector<std::string>{dump};
    for (const auto& d : dumps) {
      (void)file.info(d);  // fails early, with the file's name, on an unknown dump
      for (const auto& path : write_profile2mat(file, d, dir)) std::cout << path << "\n";
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
