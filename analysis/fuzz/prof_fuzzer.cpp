// libFuzzer target for the .prof reader: parse_prof must either return a profile that satisfies
// the invariants below or throw mpimon::Error. Anything else (another exception, a sanitizer
// report, a trap, a hang) is a bug. Run it through ci/fuzz.sh.
//
// The input is the file text as is, so seeds are plain .prof files and every crash reproducer
// can be fed straight to `mpimon` too. The rank the file is parsed as comes from the input
// itself: the digits after its first TAB, which in a real dump is the recording rank of the
// first line. A fixed rank 0 would stop at line 1 of every non-rank-0 seed, and a rank byte in
// front of the text would make the seeds differ from real files; this way real dumps of every
// rank parse, and the fuzzer can still pick any rank (e.g. one outside MPI_COMM_WORLD).

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "fuzz_check.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/matrices/prof.hpp"

namespace {

constexpr std::uint32_t kMaxRank = 0x7fffffff;  // MPI ranks are non-negative ints

// Bucket count is a property of the type, not of what was parsed.
static_assert(std::tuple_size_v<mpimon::Histogram> == 66);

std::uint32_t rank_of(std::string_view text) {
  std::size_t tab = text.find('\t');
  if (tab == std::string_view::npos) return 0;
  std::uint32_t rank = 0;
  std::from_chars(text.data() + tab + 1, text.data() + text.size(), rank);  // stays 0 on failure
  return rank;
}

void check_profile(const mpimon::RankProfile& p, std::uint32_t rank, std::string_view text) {
  // Line numbers are 1-based and must point into the text.
  const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  auto valid_line = [&](std::size_t line) { return line > 0 && line <= lines; };
  auto in_world = [&](std::uint32_t r) { return r < kMaxRank && (!p.world_size || r < *p.world_size); };

  FUZZ_CHECK(p.rank == rank);
  // The rank is the caller's (any value); the parser must only reject it when the file's own
  // MPI_COMM_WORLD is too small for it.
  FUZZ_CHECK(!p.world_size || p.rank < *p.world_size);

  bool any_internal = false;
  for (std::size_t i = 0; i < p.pairs.size(); ++i) {
    const auto& r = p.pairs[i];
    FUZZ_CHECK(static_cast<std::size_t>(r.traffic_class) < mpimon::kTrafficClassCount);
    FUZZ_CHECK(in_world(r.peer));
    FUZZ_CHECK(valid_line(r.line));
    any_internal |= r.traffic_class == mpimon::TrafficClass::internal;
    // At most one line per (class, peer): the merge step relies on it.
    for (std::size_t j = 0; j < i; ++j) {
      FUZZ_CHECK(p.pairs[j].traffic_class != r.traffic_class || p.pairs[j].peer != r.peer);
    }
  }
  FUZZ_CHECK(any_internal == p.has_internal_lines);

  for (std::size_t i = 0; i < p.histograms.size(); ++i) {
    const auto& h = p.histograms[i];
    FUZZ_CHECK(valid_line(h.line));
    // A histogram rides on an E or I line to the same peer, and there is one per peer.
    bool carried = std::any_of(p.pairs.begin(), p.pairs.end(), [&](const mpimon::PairRecord& r) {
      return r.line == h.line && r.peer == h.peer &&
             (r.traffic_class == mpimon::TrafficClass::external || r.traffic_class == mpimon::TrafficClass::internal);
    });
    FUZZ_CHECK(carried);
    for (std::size_t j = 0; j < i; ++j) FUZZ_CHECK(p.histograms[j].peer != h.peer);
  }

  bool saw_world = false;
  for (const auto& c : p.communicators) {
    FUZZ_CHECK(valid_line(c.line));
    // A name is what lies between the first and last TAB of one line, so it may hold TABs
    // (Open MPI prints names verbatim) but never a line end.
    FUZZ_CHECK(c.name.find('\n') == std::string::npos);
    for (auto m : c.members) FUZZ_CHECK(in_world(m));
    if (c.name == "MPI_COMM_WORLD") {
      saw_world = true;
      FUZZ_CHECK(p.world_size && c.members.size() == *p.world_size);
    }
  }
  // world_size comes from, and only from, an MPI_COMM_WORLD line.
  FUZZ_CHECK(saw_world == p.world_size.has_value());
}

// parse_prof_name on the first line of the input: cheap, and the first line is where the
// fuzzer's dictionary tokens (".prof", "/", digits) land most often.
void fuzz_name(std::string_view text) {
  std::string path(text.substr(0, std::min<std::size_t>(text.find('\n'), 256)));
  mpimon::ProfName name;
  try {
    name = mpimon::parse_prof_name(path);
  } catch (const mpimon::Error&) {
    return;
  }
  FUZZ_CHECK(!name.dump.empty() && name.dump != "." && name.dump != "..");
  FUZZ_CHECK(name.dump.find('/') == std::string::npos);
  FUZZ_CHECK(name.rank < kMaxRank);
  // Rebuilding the canonical name must give the same answer (leading zeros are dropped).
  mpimon::ProfName again = mpimon::parse_prof_name(name.dump + "." + std::to_string(name.rank) + ".prof");
  FUZZ_CHECK(again.dump == name.dump && again.rank == name.rank);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  fuzz_name(text);
  const std::uint32_t rank = rank_of(text);
  try {
    mpimon::RankProfile p = mpimon::parse_prof(text, "fuzz.prof", rank);
    check_profile(p, rank, text);
  } catch (const mpimon::Error&) {
    // Malformed input, reported the documented way. Any other exception escapes to libFuzzer,
    // which reports it as a crash (uncaught exception -> abort).
  }
  return 0;
}
