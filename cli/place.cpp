// `mpimon place`: mappings of a dump's ranks onto a modelled tree, their modelled costs, and the
// files that apply one (docs/placement.md).
#include <iostream>
#include <optional>
#include <sstream>

#include "cli_support.hpp"
#include "commands.hpp"
#include "mpimon/placement/links.hpp"
#include "mpimon/placement/mapping_files.hpp"
#include "mpimon/placement/place.hpp"
#include "place_options.hpp"

namespace mpimon::cli {

namespace {

// "Methods:" and one line per entry of the method table.
std::string method_help() {
  std::string text = "Methods:\n";
  for (const auto& m : placement_methods()) text += "  " + std::string(m.name) + ": " + m.summary + "\n";
  return text;
}

}  // namespace

int place_command(const std::string& name, const std::vector<std::string>& args) {
  Command cmd{
      name,
      "FILE.h5 --topology TOPO [--method LIST] [--dump NAME] [--classes LIST] [--evaluate-classes LIST]\n"
      "       [--metric bytes|count] [--mapping-out FILE] [--rankfile FILE] [--slurm-hostfile FILE]\n"
      "       [--hosts LIST | --hostfile FILE]\n"
      "       [--slots-per-leaf K] [--exclude-leaves LIST] [--start-mapping FILE] [--seed S] [--time-limit SECONDS]\n"
      "       [--link RATE,LATENCY]... [--links FILE] [--objective hop-bytes|time] [--json FILE]",
      "Maps the ranks of a dump onto a modelled tree with every method below (or those of --method),\n"
      "prints each mapping's modelled cost and traffic per level, and writes the cheapest as a mapping or\n"
      "an Open MPI rankfile (docs/placement.md).\n" +
          method_help() +
          "TOPO: 'tleaf L a0 c0 a1 c1 ...' (arity and link cost per level, top first), NxSxC (nodes x sockets x\n"
          "cores, link costs 100/10/1), a .tgt file holding a tleaf line, an hwloc XML file (one node), or N@node.xml\n"
          "(N nodes of that shape, a network level of link cost 100 on top). With the --hostfile of an mpimon\n"
          "cluster (mpimon cluster hostfile), --topology may be left out: the cluster's nodes and node shape.\n"
          "With the links' rates and latencies (--link per level, --links from mpimon probe, or --hostfile of an\n"
          "mpimon cluster), every mapping also gets its predicted communication time (docs/placement.md)."};
  return run_command(cmd, [&] {
    PlaceOptions o;
    po::options_description options("Options");
    options.add_options()("topology", po::value(&o.topology), "the modelled machine (see above)")(
        "method", po::value(&o.methods)->default_value("all"),
        ("comma-separated: " + placement_method_names() + ", or all").c_str())(
        "dump", po::value(&o.dump), "dump to place (required when the file holds several)")(
        "classes", po::value(&o.classes)->default_value("external,internal"), "traffic the mappings are computed from")(
        "evaluate-classes", po::value(&o.evaluate_classes), "traffic every mapping is costed on (default: --classes)")(
        "metric", po::value(&o.metric)->default_value("bytes"), "bytes or count")(
        "mapping-out", po::value(&o.mapping_out), "write 'RANK LEAF' lines of the chosen mapping")(
        "rankfile", po::value(&o.rankfile), "write the chosen mapping as an Open MPI rankfile")(
        "slurm-hostfile", po::value(&o.slurm_hostfile),
        "write the chosen mapping for Slurm: each rank's host, one a line (SLURM_HOSTFILE, srun "
        "--distribution=arbitrary), and print the --cpu-bind=map_cpu list")(
        "hosts", po::value(&o.hosts), "comma-separated host names for the rankfile (default node0, node1, ...)")(
        "hostfile", po::value(&o.hostfile), "take the rankfile's hosts from this hostfile")(
        "seed", po::value(&o.seed)->default_value(1), "first seed of the random draws")(
        "slots-per-leaf",
        po::value(&o.slots_per_leaf)->default_value(1)->notifier(in_range<std::uint32_t>("slots-per-leaf", 1)),
        "up to K ranks per core (oversubscription)")("exclude-leaves", po::value(&o.exclude_leaves),
                                                     "cores that must stay free: leaf indices and ranges, e.g. 0,8-9")(
        "start-mapping", po::value(&o.start_mapping),
        "a mapping to cost and improve ('RANK LEAF' lines, as --mapping-out writes): methods given and refine")(
        "time-limit", po::value(&o.time_limit),
        "seconds for all methods together (default: ranks / 256, at least 10, at most 25)")(
        "objective", po::value(&o.objective)->default_value("hop-bytes"),
        "what the search minimises and the chosen mapping is least in: hop-bytes (the modelled cost) or time (the "
        "predicted communication time; needs the links; never a mapping predicted slower than the hop-bytes "
        "choice or packed, whose row it adds, nor slower than the hop-bytes choice with the transfers in order)")(
        "json", po::value(&o.json), "also write the table as JSON to this file")(
        "input", po::value(&o.input)->required(), "merged HDF5 file");
    add_link_options(options, o);
    po::positional_options_description positional;
    positional.add("input", 1);
    po::variables_map vm;
    if (!parse_options(cmd, args, options, positional, vm)) return kExitOk;
    if (o.evaluate_classes.empty()) o.evaluate_classes = o.classes;
    if (!o.hosts.empty() && !o.hostfile.empty()) throw po::error("--hosts and --hostfile exclude each other");
    const auto compute_classes = parse_classes(o.classes);
    const auto evaluate_classes = parse_classes(o.evaluate_classes, "--evaluate-classes");
    const Metric metric = parse_metric(o.metric);
    PlacementRequest request;
    request.methods = parse_methods(o.methods);
    request.methods_explicit = !request.methods.empty();
    request.seed = o.seed;
    request.time_limit = o.time_limit;
    request.objective = parse_objective(o.objective);
    const PlacementMachine machine = machine_of(o);
    const TreeTopology& topo = machine.topo;
    check_request(request, !o.start_mapping.empty(), has_links(topo));

    MatrixFile file(o.input);
    const std::string dump = o.dump.empty() ? file.default_dump() : o.dump;
    const PlacementTraffic traffic =
        read_placement_traffic(file, dump, compute_classes, evaluate_classes, metric, has_links(topo));
    if (!o.start_mapping.empty()) request.start = read_mapping(o.start_mapping, traffic.compute.order, topo);
    const auto rows = place(traffic, topo, request);
    const MethodResult& chosen = cheapest(rows, request.objective);
    // For Slurm's one map_cpu list, the chosen mapping renumbered within nodes (the same cost), in every file.
    const Mapping mapping = o.slurm_hostfile.empty() ? chosen.mapping : renumber_within_nodes(chosen.mapping, topo);

    const PlacementContext context{o.input,  dump,   traffic.compute.order, o.classes, o.evaluate_classes,
                                   o.metric, o.seed, machine.links_from};
    std::ostringstream table, json;
    write_placement_table(table, rows, topo, context, chosen.method, request.objective);
    if (!o.json.empty()) write_placement_json(json, rows, topo, context, chosen.method, request.objective);
    std::ostringstream mapping_text, rankfile, slurm_hosts;
    if (!o.mapping_out.empty()) write_mapping(mapping, topo, mapping_text);
    if (!o.rankfile.empty()) write_rankfile(mapping, topo, hosts_of(o, topo.nodes()), rankfile);
    std::optional<SlurmPlacement> slurm;
    if (!o.slurm_hostfile.empty()) {
      slurm = slurm_placement(mapping, topo, hosts_of(o, topo.nodes()));
      write_slurm_hostfile(*slurm, slurm_hosts);
    }
    // Every file is complete before any appears.
    std::vector<std::pair<std::string, std::string>> outputs;
    if (!o.json.empty()) outputs.emplace_back(o.json, json.str());
    if (!o.mapping_out.empty()) outputs.emplace_back(o.mapping_out, mapping_text.str());
    if (!o.rankfile.empty()) outputs.emplace_back(o.rankfile, rankfile.str());
    if (slurm) outputs.emplace_back(o.slurm_hostfile, slurm_hosts.str());
    for (const auto& [path, text] : outputs) write_file_atomically(path, [&](std::ostream& out) { out << text; });
    std::cout << table.str();
    if (slurm) write_slurm_launch(*slurm, o.slurm_hostfile, std::cout);
    return kExitOk;
  });
}

}  // namespace mpimon::cli
