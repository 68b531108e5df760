// Every node's hwloc shape (docs/cluster.md, "Node shape"): from --slots, --node-topology or
// --node-xml, written as the node XML the launcher gives Open MPI, and named in the first line of
// the cluster's hostfile, where mpimon place reads it.

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

#include "cluster_internal.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/harness/launch.hpp"

namespace mpimon::harness {

namespace fs = std::filesystem;
using namespace cluster_detail;

namespace {

constexpr const char* kHostfileMark = "# mpimon cluster ";

[[noreturn]] void usage(const std::string& option, const std::string& reason) {
  throw Error(Error::Kind::usage, option + " " + reason);
}

/// hwloc-calc's count of one kind of object in an hwloc XML file (--node-xml).
std::uint32_t count_in_xml(const std::string& xml, const std::string& kind) {
  LaunchResult r =
      run_process({"hwloc-calc", "--input", xml, "--number-of", kind, "all"}, {}, std::chrono::seconds(30));
  std::uint32_t n = 0;
  if (r.exit_code != 0 || !(std::istringstream(r.output) >> n) || n == 0) {
    usage("--node-xml", xml + ": hwloc finds no " + kind + " in it: " + r.output.substr(0, 300));
  }
  return n;
}

}  // namespace

NodeShape cluster_detail::parse_node_topology(const std::string& text) {
  static const std::regex form("([1-9][0-9]{0,2})x([1-9][0-9]{0,3})");
  std::smatch m;
  if (!std::regex_match(text, m, form) || std::stoul(m[1]) * std::stoul(m[2]) > 4096) {
    usage("--node-topology",
          "takes SOCKETSxCORES (cores per socket, e.g. 2x4; at most 4096 cores), not '" + text + "'");
  }
  return {static_cast<std::uint32_t>(std::stoul(m[1])), static_cast<std::uint32_t>(std::stoul(m[2])), ""};
}

NodeShape cluster_detail::resolve_shape(ClusterSpec& spec) {
  NodeShape shape;
  std::string source;
  if (!spec.node_xml.empty()) {
    if (!std::ifstream(spec.node_xml)) usage("--node-xml", spec.node_xml + ": cannot read it");
    if (program_path("hwloc-calc").empty()) raise_error(Error::Kind::input, "hwloc-calc", "not found (install hwloc)");
    shape.sockets = count_in_xml(spec.node_xml, "package");
    const std::uint32_t cores = count_in_xml(spec.node_xml, "core");
    if (cores % shape.sockets != 0) {
      usage("--node-xml", spec.node_xml + " has " + std::to_string(cores) + " cores on " +
                              std::to_string(shape.sockets) + " sockets: not as many on each");
    }
    shape.cores = cores / shape.sockets;
    source = "--node-xml " + spec.node_xml;
  } else if (!spec.node_topology.empty()) {
    shape = parse_node_topology(spec.node_topology);
    source = "--node-topology " + spec.node_topology;
  } else {
    if (spec.slots == 0) spec.slots = std::max(1U, std::thread::hardware_concurrency());
    return {1, spec.slots, ""};
  }
  if (spec.slots == 0) spec.slots = shape.total_cores();
  if (spec.slots != shape.total_cores()) {
    usage("--slots", std::to_string(spec.slots) + " contradicts " + source + " (" + shape.text() +
                         "): a node has one slot per core; leave --slots out");
  }
  return shape;
}

void cluster_detail::write_node_xml(const ClusterSpec& spec, const NodeShape& shape, const fs::path& path) {
  if (!spec.node_xml.empty()) {
    fs::copy_file(spec.node_xml, path);
    fs::permissions(path,
                    fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    return;
  }
  if (program_path("lstopo").empty()) raise_error(Error::Kind::input, "lstopo", "not found (install hwloc)");
  run_checked({"lstopo", "--input",
               "pack:" + std::to_string(shape.sockets) + " core:" + std::to_string(shape.cores) + " pu:1", "--of",
               "xml", path.string()});
}

std::string cluster_detail::hostfile_text(const ClusterState& s) {
  std::string text = kHostfileMark + s.spec.name + ": " + std::to_string(s.spec.nodes) + " nodes of " +
                     std::to_string(s.shape.sockets) + "x" + std::to_string(s.shape.cores) + " cores, hwloc " +
                     s.shape.xml + ", links " + s.spec.rate + "\n";
  for (std::uint32_t n = 0; n < s.spec.nodes; ++n) text += host_of(n) + " slots=" + std::to_string(s.spec.slots) + "\n";
  return text;
}

std::string NodeShape::text() const {
  return std::to_string(sockets) + (sockets == 1 ? " socket x " : " sockets x ") + std::to_string(cores) +
         (cores == 1 ? " core" : " cores");
}

std::optional<HostfileCluster> cluster_of_hostfile(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line) || line.rfind(kHostfileMark, 0) != 0) return std::nullopt;
  static const std::regex form(
      R"(# mpimon cluster ([A-Za-z0-9_-]+): ([0-9]+) nodes of ([0-9]+)x([0-9]+) cores, hwloc ([^\s,]+)(, links (\S+))?)");
  std::smatch m;
  if (!std::regex_match(line, m, form)) {
    raise_input_error(path, 1, "names an mpimon cluster in a form this mpimon does not read: '" + line + "'");
  }
  HostfileCluster c{m[1],
                    static_cast<std::uint32_t>(std::stoul(m[2])),
                    {static_cast<std::uint32_t>(std::stoul(m[3])), static_cast<std::uint32_t>(std::stoul(m[4])), m[5]},
                    m[7]};
  return c;
}

}  // namespace mpimon::harness
