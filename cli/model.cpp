// `mpimon model collective`: prints the point-to-point traffic a forced coll/tuned algorithm
// makes, as Open MPI's monitoring records it; `mpimon plot collective` draws it next to the
// PMPI-level view of the same call (docs/collectives.md).

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon::cli {

using namespace mpimon::harness;

void add_collective_options(po::options_description& options, CollectiveOptions& v) {
  options.add_options()("op", po::value(&v.op)->required(),
                        "operation: bcast, reduce, allreduce, alltoall, allgather, gather, scatter, barrier")(
      "algorithm", po::value(&v.algorithm)->required(),
      "coll_tuned_<op>_algorithm: Open MPI's name or number (see --list)")("np", po::value(&v.np)->required(),
                                                                           "number of processes (MPI_COMM_WORLD)")(
      "root", po::value(&v.root)->default_value(0), "root of bcast, reduce, gather, scatter")(
      "count", po::value(&v.count),
      "element count passed to the call (per rank for alltoall, allgather, gather, "
      "scatter); required except for barrier")("type-size", po::value(&v.type_size)->default_value(1),
                                               "bytes per element (MPI_Type_size)")(
      "segsize", po::value(&v.segsize)->default_value(0), "coll_tuned_<op>_algorithm_segmentsize in bytes, 0: none")(
      "tree-fanout", po::value(&v.tree_fanout)->default_value(4), "coll_tuned_<op>_algorithm_tree_fanout")(
      "chain-fanout", po::value(&v.chain_fanout)->default_value(4), "coll_tuned_<op>_algorithm_chain_fanout")(
      "radix", po::value(&v.radix)->default_value(4), "coll_tuned_bcast_algorithm_knomial_radix")(
      "mode", po::value(&v.mode)->default_value(2), "pml_monitoring_enable: 2 separates I from E, 1 puts all in E")(
      "ideal-monitoring", po::bool_switch(&v.ideal_monitoring),
      "predict what a monitoring without the persistent-collective defect would record (docs/defects.md)")(
      "open-mpi", po::value(&v.open_mpi)->default_value("4.1", "4.1; validate: the launcher's"),
      "Open MPI series whose coll/tuned runs the call: 4.1 or 5.0 (5.0 adds allgather sparbit); validate: "
      "the launcher's by default");
}

CollectiveSpec collective_spec(const CollectiveOptions& v, const po::variables_map& vm) {
  try {
    CollectiveSpec spec;
    spec.op = parse_op(v.op);
    spec.algorithm = parse_algorithm(spec.op, v.algorithm);
    if (!vm.count("count") && spec.op != CollectiveOp::barrier) throw po::error("the option '--count' is required");
    spec.nprocs = v.np;
    spec.root = v.root;
    spec.count = vm.count("count") ? v.count : 0;
    spec.type_size = v.type_size;
    spec.segment_size = v.segsize;
    spec.tree_fanout = v.tree_fanout;
    spec.chain_fanout = v.chain_fanout;
    spec.knomial_radix = v.radix;
    spec.monitoring_mode = v.mode;
    spec.ideal_monitoring = v.ideal_monitoring;
    spec.ompi_series = parse_series(v.open_mpi);
    if (!has_root(spec.op) && vm.count("root") && !vm["root"].defaulted() && v.root != 0) {
      throw po::error("--root applies to bcast, reduce, gather and scatter only");
    }
    check_spec(spec);
    return spec;
  } catch (const Error& e) {
    throw po::error(e.what());  // a bad option value: a usage error
  }
}

namespace {

void print_algorithms() {
  std::printf("%-10s %3s  %-24s %-8s %s\n", "op", "n", "algorithm", "modelled", "open_mpi");
  for (CollectiveOp op : kAllCollectiveOps) {
    for (const auto& a : collective_algorithms(op)) {
      std::printf("%-10s %3d  %-24s %-8s %s+\n", std::string(op_name(op)).c_str(), a.number,
                  std::string(a.name).c_str(), a.modelled ? "yes" : "no", std::string(series_name(a.since)).c_str());
    }
  }
}

}  // namespace

int model_collective_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{name, "--op OP --algorithm ALG --np N [--root R] --count C [--type-size T] [--segsize S] ...",
              "Prints the point-to-point messages Open MPI's coll/tuned algorithm ALG makes for one call on\n"
              "MPI_COMM_WORLD, forced with coll_tuned_use_dynamic_rules 1 and coll_tuned_<op>_algorithm ALG,\n"
              "as its monitoring records them: one line per directed pair with traffic,\n"
              "CLASS<TAB>SRC<TAB>DST<TAB>BYTES<TAB>COUNT, CLASS being E or I, sorted by class, source,\n"
              "destination. Written from Open MPI 4.1's and 5.0's algorithms (--open-mpi; docs/collectives.md);\n"
              "'mpimon validate collective' with the same options checks it against Open MPI."};
  return run_command(cmd, [&] {
    po::options_description options("Options");
    CollectiveOptions values;
    add_collective_options(options, values);
    options.add_options()("list", "list Open MPI's algorithms and whether the model covers them, and exit");
    po::variables_map vm;
    if (std::find(args.begin(), args.end(), "--list") != args.end()) {
      print_algorithms();
      return kExitOk;
    }
    if (!parse_options(cmd, args, options, {}, vm)) return kExitOk;
    std::cout << format_traffic(predict_collective(collective_spec(values, vm)));
    return kExitOk;
  });
}

}  // namespace mpimon::cli
