#pragma once
// The links of a tree (docs/placement.md, "The time model"): the rate and latency below each level,
// as --link gives them or as `mpimon probe` measures them (its links file, format mpimon-links),
// which the time model and the simulated platform read. TreeTopology::links holds them.

#include <ostream>
#include <string>
#include <vector>

#include "mpimon/placement/topology.hpp"

namespace mpimon {

/// Parses one --link value, "RATE,LATENCY" (base/units.hpp: "100mbit,50us"); throws
/// Error::Kind::usage naming `option`.
LinkSpec parse_link(const std::string& text, const std::string& option = "--link");
/// "100mbit,50us" (the form parse_link reads; "free" for an unknown rate, and alone when neither is known).
std::string format_link(const LinkSpec& link);
/// `topo` with `links` for its levels, top first; fewer than the tree's levels: the rest free.
/// Throws Error::Kind::usage naming `option` when there are more than the tree has levels.
TreeTopology with_links(TreeTopology topo, const std::vector<LinkSpec>& links, const std::string& option = "--link");
/// True when some level has a rate or a latency: the model can say something.
bool has_links(const TreeTopology& topo);

/// The file `mpimon probe` writes and `mpimon place --links` reads (format "mpimon-links", JSON):
/// one link per level of the tree it was measured on, top first, with how.
struct LinksFile {
  std::string topology;            ///< the tree's tleaf line
  std::vector<LinkSpec> links;     ///< per level, top first
  std::vector<std::string> notes;  ///< per level: how it was measured (kept in the file)
};
void write_links_file(std::ostream& out, const LinksFile& file);
/// Throws Error::Kind::input naming `path` for a file that is not such a file.
LinksFile read_links_file(const std::string& path);

}  // namespace mpimon
