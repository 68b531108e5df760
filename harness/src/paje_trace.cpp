// SMPI's Paje trace, read for the bytes each rank sent each other (harness/include/mpimon/harness/paje_trace.hpp).

#include "mpimon/harness/paje_trace.hpp"

#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "mpimon/base/error.hpp"

namespace mpimon::harness {

namespace {

/// The words of a Paje line: blank-separated, a field in double quotes kept whole.
std::vector<std::string> paje_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
    if (i >= line.size()) break;
    if (line[i] == '"') {
      const auto end = line.find('"', i + 1);
      fields.push_back(line.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1));
      i = end == std::string::npos ? line.size() : end + 1;
    } else {
      const auto end = line.find_first_of(" \t\r", i);
      fields.push_back(line.substr(i, end == std::string::npos ? std::string::npos : end - i));
      i = end == std::string::npos ? line.size() : end;
    }
  }
  return fields;
}

/// One event definition of a Paje header: its id and the position of each field after the id.
struct PajeEvent {
  std::string id;
  std::map<std::string, std::size_t> fields;
};

/// The trace read line by line: the header's definitions ('%' lines), then each event handed to
/// the parser of its kind.
class TrafficReader {
 public:
  TrafficReader(std::string path, std::uint32_t np) : path_(std::move(path)), np_(np) {}

  void read_line(const std::string& line) {
    ++line_;
    if (line.empty() || line[0] == '#') return;
    if (line[0] == '%') return define(paje_fields(line.substr(1)));
    if (create_ == nullptr) find_definitions();
    const auto f = paje_fields(line);
    if (f.empty()) return;
    if (f[0] == create_->id) {
      create_container(f);
    } else if (f[0] == value_->id) {
      define_value(f);
    } else if (f[0] == push_->id) {
      push_state(f);
    } else if (f[0] == pop_->id) {
      close(rank_in(field(f, *pop_, "Container")));
    } else if (f[0] == start_->id) {
      start_link(f);
    }
  }

  TraceTraffic finish() {
    if (create_ == nullptr) raise_error(Error::Kind::format, path_, "an empty trace");
    for (const auto& [rank, links] : in_state_) close(rank);
    return {SparseMatrix::from_pairs(np_, np_, bytes_), SparseMatrix::from_pairs(np_, np_, messages_)};
  }

 private:
  struct Link {
    std::uint32_t from, to;
    std::uint64_t bytes;
    std::size_t line;
  };
  static constexpr std::uint32_t kNotPids = ~0U;

  [[noreturn]] void fail(const std::string& why, std::size_t line = 0) const {
    raise_error(Error::Kind::format, path_ + ":" + std::to_string(line ? line : line_), why);
  }

  // %EventDef NAME ID, then one line per field (NAME TYPE), then %EndEventDef.
  void define(const std::vector<std::string>& words) {
    if (words.size() == 3 && words[0] == "EventDef") {
      defining_ = &definitions_[words[1]];
      defining_->id = words[2];
    } else if (words.size() == 1 && words[0] == "EndEventDef") {
      defining_ = nullptr;
    } else if (defining_ != nullptr && words.size() == 2) {
      const std::size_t position = defining_->fields.size();
      defining_->fields[words[0]] = position;
    }
  }

  // At the first event: the definitions of the events counted, which SMPI's trace has.
  void find_definitions() {
    for (auto [name, slot] :
         {std::pair{"PajeCreateContainer", &create_}, std::pair{"PajeDefineEntityValue", &value_},
          std::pair{"PajePushState", &push_}, std::pair{"PajePopState", &pop_}, std::pair{"PajeStartLink", &start_}}) {
      const auto it = definitions_.find(name);
      if (it == definitions_.end()) fail(std::string("not an SMPI Paje trace: no ") + name + " event defined");
      *slot = &it->second;
    }
    if (start_->fields.count("Size") == 0) fail("the trace has no message sizes (tracing/smpi/display-sizes)");
  }

  const std::string& field(const std::vector<std::string>& f, const PajeEvent& e, const char* name) const {
    const auto at = e.fields.find(name);
    if (at == e.fields.end()) fail(std::string("the trace's ") + name + " field is not defined");
    if (at->second + 1 >= f.size()) fail(std::string("an event without its ") + name + " field");
    return f[at->second + 1];
  }

  std::uint32_t rank_in(const std::string& alias) const {
    const auto it = rank_of_.find(alias);
    if (it == rank_of_.end()) fail("an event of container " + alias + ", which is no rank");
    return it->second;
  }

  // PajeCreateContainer: a container named rank-R is rank R.
  void create_container(const std::vector<std::string>& f) {
    const std::string& name = field(f, *create_, "Name");
    if (name.rfind("rank-", 0) != 0) return;
    const auto rank = std::stoull(name.substr(5));
    if (rank >= np_) fail("container " + name + " beyond the " + std::to_string(np_) + " ranks");
    rank_of_[field(f, *create_, "Alias")] = static_cast<std::uint32_t>(rank);
  }

  // PajeDefineEntityValue: the name of a state's value (PMPI_Isend, ...).
  void define_value(const std::vector<std::string>& f) {
    value_name_[field(f, *value_, "Alias")] = field(f, *value_, "Name");
  }

  // PajePushState: the rank enters a call; what it was in is closed.
  void push_state(const std::vector<std::string>& f) {
    const std::uint32_t rank = rank_in(field(f, *push_, "Container"));
    close(rank);
    state_[rank] = value_name_[field(f, *push_, "Value")];
  }

  // PajeStartLink: a message from the start container, its key SRCPID_DSTPID_TAG_N (pid = rank + 1).
  void start_link(const std::vector<std::string>& f) {
    const std::uint32_t from = rank_in(field(f, *start_, "StartContainer"));
    const std::string& key = field(f, *start_, "Key");
    unsigned long long src = 0, dst = 0;
    if (std::sscanf(key.c_str(), "%llu_%llu_", &src, &dst) != 2)
      fail("a message key that is not SRC_DST_TAG_N: " + key);
    // Checked when counted: the API-level link dropped by close() may name ranks instead of pids.
    const bool pids = src == from + 1ULL && dst != 0 && dst <= np_;
    in_state_[from].push_back(
        {from, pids ? static_cast<std::uint32_t>(dst - 1) : kNotPids, std::stoull(field(f, *start_, "Size")), line_});
  }

  // The end of a rank's call: its links are counted. With tracing/smpi/internals, SMPI traces every
  // message where its requests start (actor pid = rank + 1), collectives' internal ones included.
  // SimGrid 3.32 traces the messages of the calls below a second time, first, at the API
  // (Sendrecv's key then names the rank, not the pid): in their states only the last link is the
  // message.
  void close(std::uint32_t rank) {
    static const std::set<std::string> traced_twice = {"PMPI_Isend", "PMPI_Issend",   "PMPI_Ibsend",
                                                       "PMPI_Ssend", "PMPI_Sendrecv", "PMPI_Sendrecv_replace"};
    auto& links = in_state_[rank];
    const bool once = traced_twice.count(state_[rank]) != 0 && !links.empty();
    for (std::size_t i = once ? links.size() - 1 : 0; i < links.size(); ++i) {
      if (links[i].to == kNotPids) {
        fail("a message from rank " + std::to_string(links[i].from) +
                 " whose key does not name actors rank + 1 (not SimGrid 3.32's SMPI trace?)",
             links[i].line);
      }
      bytes_[{links[i].from, links[i].to}] += links[i].bytes;
      ++messages_[{links[i].from, links[i].to}];
    }
    links.clear();
    state_[rank].clear();
  }

  std::string path_;
  std::uint32_t np_;
  std::size_t line_ = 0;
  std::map<std::string, PajeEvent> definitions_;  // by name
  PajeEvent* defining_ = nullptr;
  const PajeEvent *create_ = nullptr, *value_ = nullptr, *push_ = nullptr, *pop_ = nullptr, *start_ = nullptr;
  std::map<std::string, std::uint32_t> rank_of_;         // container alias -> rank
  std::map<std::string, std::string> value_name_;        // entity value alias -> name (PMPI_Isend, ...)
  std::map<std::uint32_t, std::string> state_;           // the call each rank is in
  std::map<std::uint32_t, std::vector<Link>> in_state_;  // the links of that call so far
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> bytes_, messages_;
};

}  // namespace

TraceTraffic read_trace_traffic(const std::string& path, std::uint32_t np) {
  std::ifstream in(path);
  if (!in) raise_error(Error::Kind::input, path, "cannot read SMPI's trace");
  TrafficReader reader(path, np);
  for (std::string line; std::getline(in, line);) reader.read_line(line);
  return reader.finish();
}

}  // namespace mpimon::harness
