#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/matrices/export.hpp"

namespace mpimon::cli {

namespace {

/// The options `export treematch`, `export scotch` and `export metis` share.
struct GraphExportOptions {
  std::string input, dump, classes, metric, output;
  bool force = false;
};

/// Parses them (with --force when `dense`); false after --help.
bool parse_graph_export(const Command& cmd, const std::vector<std::string>& args, const char* output_help, bool dense,
                        GraphExportOptions& o) {
  po::options_description options("Options");
  options.add_options()("dump", po::value(&o.dump), "dump to export (required when the file holds several)")(
      "classes", po::value(&o.classes)->default_value("external,internal"), "classes to add up")(
      "metric", po::value(&o.metric)->default_value("bytes"), "bytes or count")(
      "output,o", po::value(&o.output), output_help)("input", po::value(&o.input)->required(), "merged HDF5 file");
  if (dense) {
    options.add_options()("force", po::bool_switch(&o.force),
                          "write the dense matrix even above the size limit (docs/exports.md)");
  }
  po::positional_options_description positional;
  positional.add("input", 1);
  po::variables_map vm;
  return parse_options(cmd, args, options, positional, vm);
}

/// An export's input opened and its options checked.
struct OpenExport {
  MatrixFile file;
  std::string dump;
  std::vector<TrafficClass> classes;
  Metric metric;
  std::string output;
  bool force;
};

/// Parses the options and opens the file; nothing after --help.
std::optional<OpenExport> open_export(const Command& cmd, const std::vector<std::string>& args, bool dense) {
  GraphExportOptions o;
  if (!parse_graph_export(cmd, args, "output file (default: standard output)", dense, o)) return std::nullopt;
  auto classes = parse_classes(o.classes);
  Metric metric = parse_metric(o.metric);
  MatrixFile file(o.input);
  std::string dump = o.dump.empty() ? file.default_dump() : o.dump;
  return OpenExport{std::move(file), std::move(dump), std::move(classes), metric, o.output, o.force};
}

/// Writes through AtomicOutput to a file, or to standard output.
template <typename Write>
void write_output(const std::string& output, Write write) {
  if (output.empty()) {
    write(std::cout);
    std::cout.flush();
    return;
  }
  write_file_atomically(output, write);
}

/// `export scotch` and `export metis`: the symmetric communication graph, O(non-zeros).
template <typename Writer>
int export_graph(const Command& cmd, const std::vector<std::string>& args, Writer writer) {
  return run_command(cmd, [&] {
    auto e = open_export(cmd, args, false);
    if (!e) return kExitOk;
    const SparseMatrix graph = communication_graph(e->file, e->dump, e->classes, e->metric);
    const GraphWeights weights = graph_weights_for_int32_tools(graph);
    if (weights.factor != 1.0) {
      std::fprintf(stderr, "%s: note: weights scaled by %.6g (rounded up) to fit 32-bit integers\n", cmd.name.c_str(),
                   weights.factor);
    }
    write_output(e->output, [&](std::ostream& out) { writer(graph, weights, out); });
    return kExitOk;
  });
}

}  // namespace

int export_treematch_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 [--dump NAME] [--classes LIST] [--metric bytes|count] [-o OUT.mat] [--force]",
              "Writes the symmetric affinity matrix TreeMatch reads: N lines of N integers, entry (i, j) being\n"
              "the traffic from i to j plus the traffic from j to i, diagonal 0 (docs/exports.md). Refused\n"
              "above 8192 processes unless --force: use export scotch or export metis there."};
  return run_command(cmd, [&] {
    auto e = open_export(cmd, args, true);
    if (!e) return kExitOk;
    if (!e->force) check_dense_export_size(e->file.info(e->dump).nprocs, "TreeMatch's matrix");
    SparseMatrix directed = sum_classes(e->file, e->dump, e->classes, e->metric);
    write_output(e->output, [&](std::ostream& out) { write_treematch(directed, out); });
    return kExitOk;
  });
}

namespace {

Command graph_command(const std::string& name, const std::string& extension, const std::string& format) {
  return {name, "FILE.h5 [--dump NAME] [--classes LIST] [--metric bytes|count] [-o OUT." + extension + "]",
          "Writes the symmetric weighted communication graph in " + format +
              ":\none vertex per process, an edge where traffic flows, weight = traffic i -> j plus j -> i\n"
              "(docs/exports.md). Size and time follow the non-zeros: fit for any number of processes."};
}

}  // namespace

int export_scotch_command(const std::string& name, const std::vector<std::string>& args) {
  return export_graph(graph_command(name, "grf", "Scotch's source-graph format (.grf)"), args, write_scotch_graph);
}

int export_metis_command(const std::string& name, const std::vector<std::string>& args) {
  return export_graph(graph_command(name, "graph", "METIS's graph format (gpmetis)"), args, write_metis_graph);
}

int export_pairs_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 [--dump NAME] [--classes LIST] [-o OUT.csv]",
              "Writes every directed pair that exchanged a message as CSV, from,to,bytes,messages (the\n"
              "classes added up), by sender then receiver (docs/exports.md): what a script or a spreadsheet\n"
              "reads instead of the HDF5 file. Size and time follow the non-zeros."};
  return run_command(cmd, [&] {
    std::string input, dump, classes, output;
    po::options_description options("Options");
    options.add_options()("dump", po::value(&dump), "dump to export (required when the file holds several)")(
        "classes", po::value(&classes)->default_value("external,internal"), "classes to add up")(
        "output,o", po::value(&output), "output file (default: standard output)")(
        "input", po::value(&input)->required(), "merged HDF5 file");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    const auto chosen = parse_classes(classes);
    MatrixFile file(input);
    if (dump.empty()) dump = file.default_dump();
    const SparseMatrix bytes = sum_classes(file, dump, chosen, Metric::bytes);
    const SparseMatrix messages = sum_classes(file, dump, chosen, Metric::count);
    write_output(output, [&](std::ostream& out) { write_pairs_csv(bytes, messages, out); });
    return kExitOk;
  });
}

int export_mat_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "FILE.h5 --compat profile2mat [--dump NAME] [-o DIR] [--force]",
              "Writes the .mat files Open MPI's profile2mat writes for DIR/DUMP.prof (the concatenated\n"
              "per-rank files of a dump), byte for byte: DUMP_{size,msg,avg}_{all,external,internal,osc,coll}.mat.\n"
              "Every dump of the file is exported unless --dump names one. Refused above 8192 processes\n"
              "unless --force: use export scotch or export metis there."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    std::string input, dump, compat, dir;
    bool force = false;
    options.add_options()("compat", po::value(&compat)->default_value("profile2mat"), "output convention: profile2mat")(
        "force", po::bool_switch(&force), "write the dense matrices even above the size limit (docs/exports.md)")(
        "dump", po::value(&dump), "export only this dump")("output,o", po::value(&dir)->default_value("."),
                                                           "output directory")("input", po::value(&input)->required(),
                                                                               "merged HDF5 file");
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    if (compat != "profile2mat") throw po::error("--compat supports only 'profile2mat', not '" + compat + "'");
    MatrixFile file(input);
    std::vector<std::string> dumps = dump.empty() ? file.dumps() : std::vector<std::string>{dump};
    for (const auto& d : dumps) {
      const DumpInfo info = file.info(d);  // fails early, with the file's name, on an unknown dump
      if (!force) check_dense_export_size(info.nprocs, "profile2mat's .mat");
      for (const auto& path : write_profile2mat(file, d, dir)) std::cout << path << "\n";
    }
    return kExitOk;
  });
}

}  // namespace mpimon::cli
