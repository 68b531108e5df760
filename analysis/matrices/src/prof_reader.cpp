#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <algorithm>
#include <cerrno>
#include <charconv>

#include <cstring>
#include <iterator>
#include <string_view>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "mpimon/base/names.hpp"
#include "mpimon/matrices/prof.hpp"
#include "prof_fields.hpp"

namespace mpimon {

namespace {

using namespace prof_detail;

enum class Section { none, point_to_point, osc, collectives };

class ProfParser {
 public:
  /// Fills `out` (its vectors keep their capacity); `cache` may be null.
  ProfParser(const std::string& path, std::uint32_t rank, RankProfile& out, ProfReader::MemberCache* cache)
      : path_(path), profile_(out), cache_(cache) {
    profile_.rank = rank;
    profile_.pairs.clear();
    profile_.histograms.clear();
    profile_.communicators.clear();
    profile_.world_size.reset();
    profile_.has_internal_lines = false;
  }

  void run(std::string_view text) {
    check_is_text(text);
    std::size_t start = 0;
    while (start < text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string_view::npos) {
        ++line_;
        fail("last line has no newline: the file looks truncated");
      }
      std::string_view line = text.substr(start, end - start);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      ++line_;
      if (!line.empty()) parse_line(line);
      start = end + 1;
    }
    finish();
  }

 private:
  [[noreturn]] void fail(const std::string& reason) const { fields_.fail(reason); }

  void check_is_text(std::string_view text) const {
    if (text.empty()) raise_input_error(path_, 0, "empty file");
    const void* nul = std::memchr(text.data(), '\0', text.size());
    if (nul != nullptr) {
      auto offset = static_cast<const char*>(nul) - text.data();
      raise_input_error(path_, 0, "binary data (NUL byte at offset " + std::to_string(offset) + "), not a .prof file");
    }
  }

  void parse_line(std::string_view line) {
    FieldCursor fields(line);
    std::string_view tag = fields.next();
    if (tag.starts_with('#')) return parse_header(line);
    if (tag.size() == 1) {
      if (auto cls = parse_class(tag)) return parse_pair(*cls, fields);
      if (tag == "D") return parse_communicator(line);
    }
    if (tag == "O2A" || tag == "A2O" || tag == "A2A") return parse_collective_totals(tag, fields);
    fail("unrecognised line '" + printable_prefix(line) + "'");
  }

  void parse_header(std::string_view line) {
    static constexpr std::string_view names[] = {"# POINT TO POINT", "# OSC", "# COLLECTIVES"};
    for (std::size_t i = 0; i < std::size(names); ++i) {
      if (line != names[i]) continue;
      auto expected = static_cast<Section>(static_cast<int>(section_) + 1);
      if (static_cast<Section>(i + 1) != expected) {
        fail("section header '" + std::string(line) + "' out of order");
      }
      section_ = expected;
      return;
    }
    fail("unknown section header '" + printable_prefix(line) + "'");
  }

  static Section section_of(TrafficClass c) {
    switch (c) {
      case TrafficClass::external:
      case TrafficClass::internal:
        return Section::point_to_point;
      case TrafficClass::osc_sent:
      case TrafficClass::osc_recv:
        return Section::osc;
      case TrafficClass::coll:
        return Section::collectives;
    }
    return Section::none;
  }

  void parse_pair(TrafficClass cls, FieldCursor& fields) {
    if (section_of(cls) != section_) {
      fail(std::string(1, class_letter(cls)) + " line outside its section");
    }
    PairRecord record{cls, 0, 0, 0, line_};
    check_own_rank(fields_.required(fields, "recording rank"));
    record.peer = fields_.rank(fields_.required(fields, "peer rank"), "peer rank");
    record.bytes = fields_.suffixed(fields_.required(fields, "byte count"), " bytes", "byte count");
    record.count = fields_.suffixed(fields_.required(fields, "message count"), " msgs sent", "message count");
    if (!fields.at_end()) {
      std::string_view histogram = fields.next();
      if (cls != TrafficClass::external && cls != TrafficClass::internal) {
        fail(std::string(1, class_letter(cls)) + " line has an unexpected extra field");
      }
      if (!fields.at_end()) fail("too many fields");
      // Parsed in place: a Histogram is 528 bytes, and large dumps have a million of them.
      PeerHistogram& h = profile_.histograms.emplace_back();
      h.peer = record.peer;
      h.line = line_;
      fields_.histogram(histogram, h.buckets);
    }
    if (cls == TrafficClass::internal) profile_.has_internal_lines = true;
    profile_.pairs.push_back(record);
  }

  void parse_communicator(std::string_view line) {
    if (section_ != Section::collectives) fail("D line outside the '# COLLECTIVES' section");
    check_block_complete();
    std::size_t first_tab = line.find('\t');
    // memrchr, not rfind: the 'procs:' list after the last tab is most of a large dump's bytes, and
    // string_view::rfind walks it back a byte at a time (a quarter of a 32768-rank merge).
    const void* last = ::memrchr(line.data(), '\t', line.size());
    std::size_t last_tab = last == nullptr ? std::string_view::npos
                                           : static_cast<std::size_t>(static_cast<const char*>(last) - line.data());
    if (first_tab == last_tab) fail("D line needs a name and a 'procs:' field");
    std::string_view members = line.substr(last_tab + 1);
    if (!members.starts_with("procs:")) fail("D line does not end with a 'procs:' field");
    members.remove_prefix(6);
    if (members.starts_with(' ')) members.remove_prefix(1);

    CommunicatorRecord record;
    record.name = std::string(line.substr(first_tab + 1, last_tab - first_tab - 1));
    record.line = line_;
    record.members = cached_members(members);
    largest_.push_back(largest_of(members, record.members));
    if (record.name == "MPI_COMM_WORLD") set_world_size(record.members.size());
    profile_.communicators.push_back(std::move(record));
    next_block_line_ = "O2A";
  }

  // The MPI_COMM_WORLD list of a large run is most of a dump's bytes (16384 ranks: 88 KB in every
  // file), and every file of the dump repeats it: comparing with the last large list parsed is an
  // order of magnitude faster than parsing it again.
  static constexpr std::size_t kWorthCaching = 1024;
  std::vector<std::uint32_t> cached_members(std::string_view list) const {
    if (cache_ == nullptr || list.size() < kWorthCaching) return fields_.members(list);
    if (list == cache_->text) return cache_->members;
    std::vector<std::uint32_t> members = fields_.members(list);
    cache_->text.assign(list);
    cache_->members = members;
    cache_->largest = members.empty() ? 0 : *std::max_element(members.begin(), members.end());
    return members;
  }

  // The largest member of a list just parsed: the cache's for the repeated one (cached_members
  // made `list` the cached text), else a pass over the members.
  std::uint32_t largest_of(std::string_view list, const std::vector<std::uint32_t>& members) const {
    if (cache_ != nullptr && list.size() >= kWorthCaching) return cache_->largest;
    return members.empty() ? 0 : *std::max_element(members.begin(), members.end());
  }

  void parse_collective_totals(std::string_view tag, FieldCursor& fields) {
    if (next_block_line_.empty()) fail(std::string(tag) + " line without a preceding D line");
    if (tag != next_block_line_) {
      fail("expected " + std::string(next_block_line_) + " line, found " + std::string(tag));
    }
    check_own_rank(fields_.required(fields, "recording rank"));
    CollectiveTotals totals;
    totals.bytes = fields_.suffixed(fields_.required(fields, "byte count"), " bytes", "byte count");
    totals.calls = fields_.suffixed(fields_.required(fields, "call count"), " msgs sent", "call count");
    if (!fields.at_end()) fail("too many fields");
    CommunicatorRecord& comm = profile_.communicators.back();
    if (tag == "O2A") {
      comm.one_to_all = totals;
      next_block_line_ = "A2O";
    } else if (tag == "A2O") {
      comm.all_to_one = totals;
      next_block_line_ = "A2A";
    } else {
      comm.all_to_all = totals;
      next_block_line_ = {};
    }
  }

  void check_block_complete() const {
    if (next_block_line_.empty()) return;
    raise_input_error(path_, profile_.communicators.back().line,
                      "communicator block has no " + std::string(next_block_line_) + " line");
  }

  void set_world_size(std::size_t size) {
    if (size == 0 || size > kMaxRank) fail("MPI_COMM_WORLD has an invalid number of members");
    auto n = static_cast<std::uint32_t>(size);
    if (profile_.world_size && *profile_.world_size != n) {
      fail("second MPI_COMM_WORLD line disagrees on the number of processes");
    }
    profile_.world_size = n;
  }

  void finish() {
    if (section_ != Section::collectives) {
      raise_input_error(path_, 0, "file ends before the '# COLLECTIVES' section: truncated or not a .prof file");
    }
    check_block_complete();
    check_no_duplicates();
    if (profile_.world_size) check_within_world();
  }

  void check_no_duplicates() {
    auto& pairs = profile_.pairs;
    auto by_class_peer = [](const PairRecord& a, const PairRecord& b) {
      return std::tie(a.traffic_class, a.peer) < std::tie(b.traffic_class, b.peer);
    };
    if (!std::is_sorted(pairs.begin(), pairs.end(), by_class_peer)) {
      std::stable_sort(pairs.begin(), pairs.end(), by_class_peer);
    }
    auto dup = std::adjacent_find(pairs.begin(), pairs.end(), [](const PairRecord& a, const PairRecord& b) {
      return a.traffic_class == b.traffic_class && a.peer == b.peer;
    });
    if (dup != pairs.end()) {
      raise_input_error(path_, std::max(dup->line, std::next(dup)->line),
                        "second " + std::string(1, class_letter(dup->traffic_class)) + " line for peer " +
                            std::to_string(dup->peer) + " (first at line " +
                            std::to_string(std::min(dup->line, std::next(dup)->line)) + ")");
    }
    auto& hists = profile_.histograms;
    auto by_peer = [](const PeerHistogram& a, const PeerHistogram& b) { return a.peer < b.peer; };
    if (!std::is_sorted(hists.begin(), hists.end(), by_peer)) std::stable_sort(hists.begin(), hists.end(), by_peer);
    auto hdup = std::adjacent_find(hists.begin(), hists.end(),
                                   [](const PeerHistogram& a, const PeerHistogram& b) { return a.peer == b.peer; });
    if (hdup != hists.end()) {
      raise_input_error(path_, std::max(hdup->line, std::next(hdup)->line),
                        "second histogram for peer " + std::to_string(hdup->peer) + " (first at line " +
                            std::to_string(std::min(hdup->line, std::next(hdup)->line)) + ")");
    }
  }

  void check_within_world() const {
    const std::uint32_t n = *profile_.world_size;
    auto outside = [&](std::uint32_t r, std::size_t line, const char* what) {
      if (r >= n) {
        raise_input_error(path_, line,
                          std::string(what) + " " + std::to_string(r) + " is outside MPI_COMM_WORLD (" +
                              std::to_string(n) + " processes)");
      }
    };
    outside(profile_.rank, 0, "file rank");
    for (const auto& p : profile_.pairs) outside(p.peer, p.line, "peer");
    for (std::size_t i = 0; i < profile_.communicators.size(); ++i) {
      // The largest member first, known since parsing: every file repeats MPI_COMM_WORLD's list.
      const auto& c = profile_.communicators[i];
      if (largest_[i] < n) continue;
      for (auto m : c.members) outside(m, c.line, "communicator member");
    }
  }

  void check_own_rank(std::string_view field) const {
    std::uint32_t r = fields_.rank(field, "recording rank");
    if (r != profile_.rank) {
      fail("line recorded by rank " + std::to_string(r) + " in the file of rank " + std::to_string(profile_.rank));
    }
  }

  const std::string& path_;
  RankProfile& profile_;
  ProfReader::MemberCache* cache_;
  std::vector<std::uint32_t> largest_;  // per communicator of profile_, its largest member
  std::size_t line_ = 0;
  LineFields fields_{path_, line_};  // after path_ and line_: it refers to them
  Section section_ = Section::none;
  std::string_view next_block_line_;
};

}  // namespace

RankProfile parse_prof(std::string_view text, const std::string& path, std::uint32_t rank) {
  RankProfile profile;
  ProfParser(path, rank, profile, nullptr).run(text);
  return profile;
}

RankProfile read_prof_file(const std::string& path, std::uint32_t rank) {
  RankProfile profile;
  ProfReader().read(path, rank, profile);
  return profile;
}

ProfReader::ProfReader() = default;
ProfReader::~ProfReader() = default;

void ProfReader::parse(std::string_view text, const std::string& path, std::uint32_t rank, RankProfile& out) {
  ProfParser(path, rank, out, &members_).run(text);
}

void ProfReader::read(const std::string& path, std::uint32_t rank, RankProfile& out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) raise_input_error(path, 0, std::string("cannot open: ") + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) raise_input_error(path, 0, "cannot read: not a regular file");
  // The buffer keeps its capacity from file to file: no page faults for a new one each time.
  buffer_.resize(static_cast<std::size_t>(st.st_size));
  std::size_t done = 0;
  while (done < buffer_.size()) {
    ssize_t got = ::read(fd, buffer_.data() + done, buffer_.size() - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) raise_input_error(path, 0, "read error");
    done += static_cast<std::size_t>(got);
  }
  parse(buffer_, path, rank, out);
}

bool DumpNameLess::operator()(const std::string& a, const std::string& b) const {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      const std::size_t i0 = i, j0 = j;
      while (i < a.size() && digit(a[i])) ++i;
      while (j < b.size() && digit(b[j])) ++j;
      // Compare the numbers without converting (any length): leading zeros off, then length, then text.
      std::string_view x(a.data() + i0, i - i0), y(b.data() + j0, j - j0);
      x.remove_prefix(std::min(x.find_first_not_of('0'), x.size()));
      y.remove_prefix(std::min(y.find_first_not_of('0'), y.size()));
      if (x.size() != y.size()) return x.size() < y.size();
      if (x != y) return x < y;
      continue;
    }
    if (a[i] != b[j]) return a[i] < b[j];
    ++i;
    ++j;
  }
  if ((a.size() - i) != (b.size() - j)) return (a.size() - i) < (b.size() - j);
  return a < b;  // equal but for leading zeros: a strict order all the same
}

std::optional<ProfName> try_parse_prof_name(const std::string& path) {
  std::string_view name = path;
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  if (!name.ends_with(".prof")) return std::nullopt;
  name.remove_suffix(5);
  std::size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  std::string_view digits = name.substr(dot + 1);
  std::uint64_t rank = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size() || rank >= 0x7fffffff) {
    return std::nullopt;
  }
  std::string dump(name.substr(0, dot));
  if (dump.empty()) dump = "unnamed";  // Open MPI writes ".RANK.prof" when no file name was set
  if (dump == "." || dump == "..") return std::nullopt;
  return ProfName{dump, static_cast<std::uint32_t>(rank)};
}

ProfName parse_prof_name(const std::string& path) {
  auto name = try_parse_prof_name(path);
  if (!name) raise_input_error(path, 0, "file name must have the form NAME.RANK.prof (as Open MPI writes it)");
  return *name;
}

}  // namespace mpimon
