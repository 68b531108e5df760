// The files that carry a mapping, each writer beside its reader (mapping_files.hpp): "RANK LEAF"
// lines, Open MPI's rankfiles and hostfiles.
#include "mpimon/placement/mapping_files.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <regex>
#include <sstream>

#include "mpimon/base/error.hpp"

namespace mpimon {

void write_mapping(const Mapping& mapping, const TreeTopology& topo, std::ostream& out) {
  for (std::size_t r = 0; r < mapping.size(); ++r) out << r << ' ' << topo.core_of(mapping[r]) << '\n';
}

Mapping read_mapping(const std::string& path, std::uint32_t order, const TreeTopology& topo) {
  std::ifstream in(path);
  if (!in) raise_error(Error::Kind::usage, path, "cannot read the mapping (--start-mapping)");
  const std::uint64_t cores = topo.leaves() / topo.slots_per_core;
  constexpr std::uint64_t kUnset = std::numeric_limits<std::uint64_t>::max();
  Mapping mapping(order, kUnset);
  std::vector<std::size_t> given_at(order, 0);
  std::vector<std::uint32_t> taken(cores, 0);  // slots of each core handed out so far
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string where = path + ":" + std::to_string(++number);
    std::istringstream words(line);
    std::string first;
    if (!(words >> first) || first[0] == '#') continue;
    std::uint64_t rank = 0, core = 0;
    std::string extra;
    std::istringstream numbers(line);
    if (!(numbers >> rank >> core) || numbers >> extra || line.find('-') != std::string::npos) {
      raise_error(Error::Kind::usage, where, "expected 'RANK LEAF' (two non-negative integers), got '" + line + "'");
    }
    if (rank >= order) {
      raise_error(Error::Kind::usage, where,
                  "rank " + std::to_string(rank) + " out of range (the dump has " + std::to_string(order) + " ranks)");
    }
    if (core >= cores) {
      raise_error(Error::Kind::usage, where,
                  "leaf " + std::to_string(core) + " out of range (the tree has " + std::to_string(cores) + " leaves)");
    }
    if (given_at[rank] != 0) {
      raise_error(
          Error::Kind::usage, where,
          "rank " + std::to_string(rank) + " given twice (first on line " + std::to_string(given_at[rank]) + ")");
    }
    given_at[rank] = number;
    const std::uint32_t slot = std::min(taken[core]++, topo.slots_per_core - 1);  // full: shared, repaired later
    mapping[rank] = core * topo.slots_per_core + slot;
  }
  std::vector<std::uint32_t> missing;
  for (std::uint32_t r = 0; r < order; ++r) {
    if (mapping[r] == kUnset) missing.push_back(r);
  }
  if (!missing.empty()) {
    std::string list;
    for (std::size_t k = 0; k < missing.size() && k < 10; ++k) list += (k ? ", " : "") + std::to_string(missing[k]);
    raise_error(Error::Kind::usage, path,
                std::to_string(missing.size()) + " of " + std::to_string(order) + " ranks have no line: " + list +
                    (missing.size() > 10 ? ", ..." : ""));
  }
  return mapping;
}

void write_rankfile(const Mapping& mapping, const TreeTopology& topo, const std::vector<std::string>& hosts,
                    std::ostream& out) {
  const MachineShape shape = machine_shape(topo);
  const std::uint64_t per_node = shape.cores_per_node(), per_socket = shape.cores;
  std::uint64_t nodes_used = 0;
  for (auto leaf : mapping) nodes_used = std::max(nodes_used, topo.core_of(leaf) / per_node + 1);
  if (hosts.size() < nodes_used) {
    raise_error(Error::Kind::usage, "--hosts/--hostfile",
                "the mapping uses " + std::to_string(nodes_used) + " nodes but only " + std::to_string(hosts.size()) +
                    " hosts are given");
  }
  for (std::size_t r = 0; r < mapping.size(); ++r) {
    const std::uint64_t core = topo.core_of(mapping[r]), in_node = core % per_node;
    out << "rank " << r << '=' << hosts[core / per_node] << " slot=" << in_node / per_socket << ':'
        << in_node % per_socket << '\n';
  }
}

std::vector<RankfileEntry> read_rankfile(const std::string& path, std::uint32_t np) {
  std::ifstream in(path);
  if (!in) raise_error(Error::Kind::input, path, "cannot read this rankfile (--rankfile)");
  static const std::regex form(R"(\s*rank\s+([0-9]{1,9})\s*=\s*(\S+)\s+slot\s*=\s*(?:([0-9]{1,9}):)?([0-9]{1,9})\s*)");
  std::vector<RankfileEntry> entries(np);
  std::size_t number = 0;
  for (std::string line; std::getline(in, line);) {
    const std::string where = path + ":" + std::to_string(++number);
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    std::smatch m;
    if (!std::regex_match(line, m, form)) {
      raise_error(Error::Kind::input, where,
                  "expected 'rank R=HOST slot=SOCKET:CORE' or 'rank R=HOST slot=CORE', got '" + line + "'");
    }
    const auto rank = std::stoull(m[1].str());
    if (rank >= np) continue;
    RankfileEntry& e = entries[rank];
    if (e.line != 0) {
      raise_error(Error::Kind::input, where,
                  "rank " + std::to_string(rank) + " given twice (first on line " + std::to_string(e.line) + ")");
    }
    e.host = m[2].str();
    if (m[3].matched) e.socket = static_cast<std::uint32_t>(std::stoul(m[3].str()));
    e.core = static_cast<std::uint32_t>(std::stoul(m[4].str()));
    e.line = number;
  }
  for (std::uint32_t r = 0; r < np; ++r) {
    if (entries[r].line == 0) {
      raise_error(Error::Kind::input, path,
                  "no 'rank " + std::to_string(r) + "=' line: the rankfile places fewer than the " +
                      std::to_string(np) + " processes of --np");
    }
  }
  return entries;
}

Mapping rankfile_mapping(const std::vector<RankfileEntry>& entries, const TreeTopology& topo,
                         const std::vector<std::string>& hosts, const std::string& path) {
  const MachineShape shape = machine_shape(topo);
  const std::uint64_t cores = shape.cores_per_node(), per_socket = shape.cores, sockets = shape.sockets;
  Mapping mapping;
  mapping.reserve(entries.size());
  for (const auto& e : entries) {
    const std::string where = path + ":" + std::to_string(e.line);
    const auto host = std::find(hosts.begin(), hosts.end(), e.host);
    if (host == hosts.end()) {
      raise_error(Error::Kind::input, where,
                  "host '" + e.host + "' is not one of the platform's " + std::to_string(hosts.size()) + " nodes (" +
                      hosts.front() + (hosts.size() > 1 ? ".." + hosts.back() : "") + ")");
    }
    std::uint64_t in_node = e.core;
    if (e.socket) {
      if (*e.socket >= sockets || e.core >= per_socket) {
        raise_error(Error::Kind::input, where,
                    "slot " + std::to_string(*e.socket) + ":" + std::to_string(e.core) + " is beyond a node of " +
                        std::to_string(sockets) + " sockets x " + std::to_string(per_socket) + " cores");
      }
      in_node = *e.socket * per_socket + e.core;
    } else if (e.core >= cores) {
      raise_error(Error::Kind::input, where,
                  "slot " + std::to_string(e.core) + " is beyond a node of " + std::to_string(cores) + " cores");
    }
    mapping.push_back(static_cast<std::uint64_t>(host - hosts.begin()) * cores + in_node);
  }
  return mapping;
}

std::vector<std::string> read_hostfile(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot read the hostfile");
  std::vector<std::string> hosts;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string host;
    if (words >> host && host[0] != '#') hosts.push_back(host);
  }
  if (hosts.empty()) raise_input_error(path, 0, "names no host");
  return hosts;
}

std::vector<std::string> default_hosts(std::uint64_t nodes) {
  std::vector<std::string> hosts;
  hosts.reserve(nodes);
  for (std::uint64_t n = 0; n < nodes; ++n) hosts.push_back("node" + std::to_string(n));
  return hosts;
}

}  // namespace mpimon
