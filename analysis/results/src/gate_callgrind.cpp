// The gate's instruction counts: callgrind dumps read, monitoring objects told apart, fingerprints.

#include "mpimon/results/gate.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mpimon/base/error.hpp"

namespace mpimon {

namespace fs = std::filesystem;

namespace {

std::string base_name(const std::string& path) { return fs::path(path).filename().string(); }

bool is_component_object(const std::string& object) {
  const std::string b = base_name(object);
  return b.starts_with("mca_") && !is_monitoring_object(object);
}

// Code from which the monitoring layer is entered: the MPI library's API, or a component (a
// collective algorithm sending through the monitoring PML).
bool is_outer_object(const std::string& object) {
  return base_name(object).starts_with("libmpi.so") || is_component_object(object);
}

std::uint64_t fnv1a(const char* data, std::size_t n, std::uint64_t h = 1469598103934665603ULL) {
  for (std::size_t i = 0; i < n; ++i) {
    h ^= static_cast<unsigned char>(data[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

std::string hex(std::uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

bool is_monitoring_object(const std::string& object) {
  return base_name(object).find("monitoring") != std::string::npos;
}

CallgrindDump read_callgrind_dump(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot open");
  return parse_callgrind_dump(in, path);
}

CallgrindDump parse_callgrind_dump(std::istream& in, const std::string& path) {
  CallgrindDump dump;
  std::string line, ob, cob;
  bool call_cost_next = false, labelled = false;
  std::uint64_t entering = 0, wrapped = 0;
  std::set<std::string> seen;
  auto note_object = [&](const std::string& o) {
    if (seen.insert(o).second) dump.objects.push_back(o);
  };
  for (std::size_t number = 1; std::getline(in, line); ++number) {
    if (line.starts_with("desc: Trigger: Client Request: ")) {
      std::istringstream label(line.substr(line.find("Request: ") + 9));
      std::string tag;
      if (!(label >> tag >> dump.op >> dump.size >> dump.count) || tag != "mpimon-gate" || dump.count == 0) {
        raise_input_error(path, number, "not a dump of mpimon-gate-probe (expected 'mpimon-gate OP SIZE N')");
      }
      labelled = true;
    } else if (line.starts_with("ob=")) {
      ob = line.substr(3);
      note_object(ob);
    } else if (line.starts_with("cob=")) {
      cob = line.substr(4);
      note_object(cob);
    } else if (line.starts_with("calls=")) {
      call_cost_next = true;
    } else if (call_cost_next && !line.empty() &&
               (std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '+' || line[0] == '-' ||
                line[0] == '*')) {
      std::istringstream fields(line);
      std::string position;
      std::uint64_t cost = 0;
      if (!(fields >> position >> cost)) raise_input_error(path, number, "expected a position and a cost");
      const std::string& callee = cob.empty() ? ob : cob;
      if (is_outer_object(ob) && is_monitoring_object(callee)) entering += cost;
      if (is_monitoring_object(ob) && is_component_object(callee)) wrapped += cost;
      call_cost_next = false;
      cob.clear();
    }
  }
  if (!labelled) raise_input_error(path, 0, "no 'mpimon-gate' client-request label: not a dump of mpimon-gate-probe");
  if (wrapped > entering) raise_input_error(path, 0, "wrapped calls cost more than the calls into the monitoring");
  dump.monitoring = entering - wrapped;
  return dump;
}

std::vector<InstructionCount> instructions_per_operation(const std::vector<CallgrindDump>& dumps) {
  std::map<std::pair<std::string, std::uint64_t>, std::map<std::uint64_t, std::uint64_t>> by_op;
  std::vector<std::pair<std::string, std::uint64_t>> order;
  for (const auto& d : dumps) {
    auto key = std::make_pair(d.op, d.size);
    if (!by_op.count(key)) order.push_back(key);
    by_op[key][d.count] = d.monitoring;
  }
  std::vector<InstructionCount> out;
  for (const auto& key : order) {
    const auto& counts = by_op[key];
    const std::uint64_t n = counts.begin()->first;
    auto twice = counts.find(2 * n);
    if (counts.size() != 2 || twice == counts.end()) {
      raise_error(Error::Kind::input, key.first, "expected dumps of N and 2N operations");
    }
    InstructionCount c{key.first, key.second, n, counts.begin()->second, twice->second, 0, true};
    const auto delta = static_cast<double>(c.at_2n) - static_cast<double>(c.at_n);
    c.per_op = delta / static_cast<double>(n);
    c.exact = c.at_2n >= c.at_n && (c.at_2n - c.at_n) % n == 0;
    out.push_back(c);
  }
  return out;
}

std::string objects_fingerprint(const std::vector<std::string>& objects, const std::string& exclude) {
  std::vector<std::string> parts;
  for (const auto& o : objects) {
    const std::string b = base_name(o);
    const bool counted = is_monitoring_object(o) || b.starts_with("libmpi.so") || b.starts_with("libopen-pal.so") ||
                         b.starts_with("libc.so");
    if (!counted || o == exclude || base_name(exclude) == b) continue;
    std::ifstream in(o, std::ios::binary);
    if (!in) raise_input_error(o, 0, "cannot read (fingerprint of the counted libraries)");
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    parts.push_back(b + ":" + std::to_string(content.size()) + ":" + hex(fnv1a(content.data(), content.size())));
  }
  std::sort(parts.begin(), parts.end());
  parts.erase(std::unique(parts.begin(), parts.end()), parts.end());
  std::string all;
  for (const auto& p : parts) all += p + ";";
  return hex(fnv1a(all.data(), all.size())) + " (" + std::to_string(parts.size()) + " libraries)";
}

}  // namespace mpimon
