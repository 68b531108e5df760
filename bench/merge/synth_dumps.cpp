// mpimon-synth-dumps: writes a synthetic monitoring dump, one NAME.RANK.prof file per rank, in
// the exact text format of Open MPI 4.1's monitoring, so that mpimon-merge and profile2mat can be
// benchmarked at scales no test machine can run under mpirun.
//
//   mpimon-synth-dumps --pattern dense|stencil|stencil27 --ranks N [--mode 1|2] [--seed S]
//                      [--collectives yes|no] [--histograms yes|no] -o DIR/NAME
//
// dense:     every rank sends to every other rank (an all-to-all application).
// stencil:   3-D periodic 7-point halo exchange on a near-cubic process grid (16384 = 32x32x16).
// stencil27: 3-D periodic 27-point exchange (faces, edges and corners: 26 neighbours).
// Both add the point-to-point traffic of the collectives (recursive-doubling allreduce partners,
// rank XOR 2^k). With --mode 1 (pml_monitoring_enable=1) that traffic is folded into the E lines,
// as Open MPI does; with --mode 2 it gets I lines. C lines and the D blocks of MPI_COMM_WORLD and
// MPI_COMM_SELF are written in both modes, as Open MPI does (see analysis/tests/data/real/): every
// file repeats MPI_COMM_WORLD's whole procs: list, as real dumps do (590 KB a file at 10^5 ranks).
// --collectives no leaves out the collective section (C lines and D blocks), as a run without
// the coll monitoring component writes it: 10^5-rank sets then fit in a few hundred MB.
// --histograms no leaves out the 66-bucket histograms (mpimon-merge reads lines without them):
// the smallest files for a given pattern, for tests at 10^5 ranks.
// The output depends only on the arguments: the same seed gives the same bytes.

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::size_t kBuckets = 66;  // Open MPI's max_size_histogram

// splitmix64: fully specified, unlike the <random> distributions, so a seed yields the same
// files with every compiler and standard library.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + next() % (hi - lo + 1); }
  // Log-uniform in [2^lo, 2^(hi+1)): message sizes spread over orders of magnitude.
  std::uint64_t log_uniform(unsigned lo, unsigned hi) {
    std::uint64_t base = std::uint64_t{1} << between(lo, hi);
    return base + next() % base;
  }

 private:
  std::uint64_t state_;
};

// What one rank sent to one peer in one class, with Open MPI's size histogram: bucket 0 for
// empty messages, bucket k for sizes in [2^(k-1), 2^k), i.e. k = bit_width(size).
struct Traffic {
  std::uint64_t bytes = 0;
  std::uint64_t count = 0;
  std::array<std::uint64_t, kBuckets> histogram{};

  void send(std::uint64_t size, std::uint64_t times) {
    bytes += size * times;
    count += times;
    histogram[std::bit_width(size)] += times;
  }
  void add(const Traffic& other) {
    bytes += other.bytes;
    count += other.count;
    for (std::size_t k = 0; k < kBuckets; ++k) histogram[k] += other.histogram[k];
  }
};

using PeerTraffic = std::map<std::uint32_t, Traffic>;  // ordered: files list peers increasingly

// A realistic mix for application messages: some empty (synchronisation), many small control
// messages, halo/block-sized medium ones and a tail of large transfers.
std::uint64_t application_message_size(Rng& rng) {
  std::uint64_t pick = rng.next() % 100;
  if (pick < 8) return 0;
  if (pick < 45) return rng.log_uniform(0, 7);   // 1 B .. 255 B
  if (pick < 85) return rng.log_uniform(8, 15);  // 256 B .. 64 KiB
  return rng.log_uniform(16, 22);                // 64 KiB .. 8 MiB
}

// Parameters of the simulated run, drawn once from the seed so all ranks agree on them.
struct Run {
  std::uint32_t ranks = 0;
  std::uint64_t iterations = 0;  // time steps: repeat count of the regular exchanges
  std::uint64_t allreduces = 0;  // allreduce calls, each one message per doubling partner
  std::uint64_t allreduce_bytes = 0;
  std::uint64_t barriers = 0;  // barriers: one empty message per doubling partner
  std::uint64_t bcasts = 0;    // broadcasts from rank 0 (only O2A of MPI_COMM_WORLD records them)
  std::uint64_t bcast_bytes = 0;
  std::array<std::uint32_t, 3> grid{};        // stencil process grid
  std::array<std::uint64_t, 3> face_bytes{};  // stencil halo message size per dimension

  explicit Run(std::uint32_t n, std::uint64_t seed) : ranks(n) {
    Rng rng(seed);
    iterations = rng.between(50, 500);
    allreduces = rng.between(10, 200);
    allreduce_bytes = 8 * rng.between(1, 16);
    barriers = rng.between(1, 8);
    bcasts = rng.between(1, 20);
    bcast_bytes = rng.log_uniform(3, 16);
    grid = near_cubic_grid(n);
    // Local block of doubles; a face in dimension d is the product of the two other extents.
    std::array<std::uint64_t, 3> extent = {rng.between(16, 128), rng.between(16, 128), rng.between(16, 128)};
    for (int d = 0; d < 3; ++d) face_bytes[d] = 8 * extent[(d + 1) % 3] * extent[(d + 2) % 3];
  }

  // The factorisation a >= b >= c of n with the smallest a - c, as MPI_Dims_create aims for.
  static std::array<std::uint32_t, 3> near_cubic_grid(std::uint32_t n) {
    std::array<std::uint32_t, 3> best = {n, 1, 1};
    for (std::uint32_t c = 1; std::uint64_t{c} * c * c <= n; ++c) {
      if (n % c) continue;
      for (std::uint32_t b = c; std::uint64_t{b} * b <= n / c; ++b) {
        if ((n / c) % b) continue;
        std::uint32_t a = n / c / b;
        if (a - c < best[0] - best[2]) best = {a, b, c};
      }
    }
    return best;
  }
};

// Point-to-point traffic the application itself sends (user tags: E lines).
enum class Pattern { dense, stencil, stencil27 };

PeerTraffic application_traffic(const Run& run, Pattern pattern, std::uint32_t me, Rng& rng) {
  PeerTraffic out;
  if (pattern == Pattern::dense) {
    for (std::uint32_t peer = 0; peer < run.ranks; ++peer) {
      if (peer == me) continue;
      Traffic& t = out[peer];
      for (auto kinds = rng.between(1, 3); kinds > 0; --kinds) {
        t.send(application_message_size(rng), rng.between(1, run.iterations));
      }
    }
    return out;
  }
  // Stencil: coordinates of `me` in the grid, x fastest.
  const auto& g = run.grid;
  std::array<std::uint32_t, 3> at = {me % g[0], me / g[0] % g[1], me / g[0] / g[1]};
  if (pattern == Pattern::stencil27) {
    // Every offset in {-1, 0, 1}^3 but 0; a face message in each dimension that moves, so an
    // edge neighbour gets two, a corner three (sizes as the 7-point faces).
    for (std::uint32_t ox = 0; ox < 3; ++ox) {
      for (std::uint32_t oy = 0; oy < 3; ++oy) {
        for (std::uint32_t oz = 0; oz < 3; ++oz) {
          const std::array<std::uint32_t, 3> offset = {ox, oy, oz};  // 0: -1, 1: 0, 2: +1
          if (offset == std::array<std::uint32_t, 3>{1, 1, 1}) continue;
          auto there = at;
          for (int d = 0; d < 3; ++d) there[d] = (at[d] + g[d] + offset[d] - 1) % g[d];
          std::uint32_t peer = there[0] + g[0] * (there[1] + g[1] * there[2]);
          if (peer == me) continue;
          Traffic& t = out[peer];
          for (int d = 0; d < 3; ++d) {
            if (offset[d] != 1) t.send(run.face_bytes[d], run.iterations);
          }
        }
      }
    }
    return out;
  }
  for (int d = 0; d < 3; ++d) {
    for (std::uint32_t step : {1u, g[d] - 1}) {  // +1 and -1, periodic
      auto there = at;
      there[d] = (at[d] + step) % g[d];
      std::uint32_t peer = there[0] + g[0] * (there[1] + g[1] * there[2]);
      if (peer == me) continue;  // a dimension of extent 1
      // A dimension of extent 2 makes +1 and -1 the same peer: its traffic simply doubles.
      Traffic& t = out[peer];
      t.send(run.face_bytes[d], run.iterations);
      if (rng.next() % 4 == 0) t.send(application_message_size(rng), rng.between(1, 10));  // irregular extras
    }
  }
  return out;
}

// Point-to-point traffic of the collectives (negative tags: I lines in mode 2).
PeerTraffic collective_traffic(const Run& run, std::uint32_t me) {
  PeerTraffic out;
  for (std::uint32_t bit = 1; bit < run.ranks; bit <<= 1) {
    std::uint32_t peer = me ^ bit;
    if (peer >= run.ranks) continue;
    Traffic& t = out[peer];
    t.send(run.allreduce_bytes, run.allreduces);
    t.send(0, run.barriers);
  }
  return out;
}

// Appends text to the file's buffer; numbers through to_chars (the files reach hundreds of MB).
class Writer {
 public:
  Writer& operator<<(std::string_view s) {
    text_.append(s);
    return *this;
  }
  Writer& operator<<(std::uint64_t v) {
    char buf[24];
    auto end = std::to_chars(buf, buf + sizeof buf, v).ptr;
    text_.append(buf, end);
    return *this;
  }
  void pair_line(char tag, std::uint32_t me, std::uint32_t peer, const Traffic& t) {
    *this << std::string_view(&tag, 1) << "\t" << me << "\t" << peer << "\t" << t.bytes << " bytes\t" << t.count
          << " msgs sent";
  }
  bool with_histograms = true;
  void histogram(const Traffic& t) {
    if (!with_histograms) return;
    for (std::size_t k = 0; k < kBuckets; ++k) *this << (k ? "," : "\t") << t.histogram[k];
  }
  void totals(std::string_view tag, std::uint32_t me, std::uint64_t bytes, std::uint64_t calls) {
    *this << tag << "\t" << me << "\t" << bytes << " bytes\t" << calls << " msgs sent\n";
  }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

struct Sections {
  bool collectives = true;
  bool histograms = true;
};

std::string rank_file(const Run& run, Pattern pattern, int mode, Sections sections, std::uint64_t seed,
                      std::uint32_t me, const std::string& world_members) {
  // One stream per rank, so a rank's file does not depend on the others.
  Rng rng(seed ^ (0xd1b54a32d192ed03ULL * (std::uint64_t{me} + 1)));
  PeerTraffic user = application_traffic(run, pattern, me, rng);
  PeerTraffic internal = collective_traffic(run, me);
  Writer w;
  w.with_histograms = sections.histograms;

  w << "# POINT TO POINT\n";
  if (mode == 1) {
    // Without filtering every PML message counts as external.
    for (const auto& [peer, t] : internal) user[peer].add(t);
    for (const auto& [peer, t] : user) {
      w.pair_line('E', me, peer, t);
      w.histogram(t);
      w << "\n";
    }
  } else {
    // The histogram covers E and I together; it is printed on the E line, or on the I line for
    // peers that got no E traffic. Open MPI prints all E lines, then all I lines.
    for (const auto& [peer, t] : user) {
      Traffic both = t;
      if (auto it = internal.find(peer); it != internal.end()) both.add(it->second);
      w.pair_line('E', me, peer, t);
      w.histogram(both);
      w << "\n";
    }
    for (const auto& [peer, t] : internal) {
      w.pair_line('I', me, peer, t);
      if (!user.contains(peer)) w.histogram(t);
      w << "\n";
    }
  }

  w << "# OSC\n";  // no one-sided traffic in these applications

  w << "# COLLECTIVES\n";
  if (!sections.collectives) return w.text();
  // At the API level the collectives' traffic per peer is what they sent point to point.
  for (const auto& [peer, t] : internal) {
    w.pair_line('C', me, peer, t);
    w << "\n";
  }
  w << "D\tMPI_COMM_WORLD\tprocs: " << world_members << "\n";
  w.totals("O2A", me, me == 0 ? run.bcasts * run.bcast_bytes : 0, me == 0 ? run.bcasts : 0);
  w.totals("A2O", me, 0, 0);
  w.totals("A2A", me, run.allreduces * run.allreduce_bytes, run.allreduces + run.barriers);
  w << "D\tMPI_COMM_SELF\tprocs: " << std::uint64_t{me} << "\n";
  w.totals("O2A", me, 0, 0);
  w.totals("A2O", me, 0, 0);
  w.totals("A2A", me, 0, 0);
  return w.text();
}

int usage(const char* why) {
  if (why) std::fprintf(stderr, "mpimon-synth-dumps: %s\n", why);
  std::fprintf(why ? stderr : stdout,
               "usage: mpimon-synth-dumps --pattern dense|stencil|stencil27 --ranks N [--mode 1|2] [--seed S]\n"
               "                          [--collectives yes|no] [--histograms yes|no] -o DIR/NAME\n"
               "Writes DIR/NAME.0.prof ... DIR/NAME.(N-1).prof in Open MPI's monitoring format.\n");
  return why ? 2 : 0;
}

bool parse_uint(std::string_view text, std::uint64_t& out) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return !text.empty() && ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

int main(int argc, char** argv) {
  std::string pattern, output, collectives = "yes", histograms = "yes";
  std::uint64_t ranks = 0, mode = 1, seed = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-h" || arg == "--help") return usage(nullptr);
    if (i + 1 >= argc) return usage("missing value after an option");
    std::string_view value = argv[++i];
    if (arg == "--pattern") {
      pattern = value;
    } else if (arg == "--ranks") {
      if (!parse_uint(value, ranks) || ranks < 2 || ranks > 1'000'000) return usage("--ranks must be 2..1000000");
    } else if (arg == "--mode") {
      if (!parse_uint(value, mode) || (mode != 1 && mode != 2)) return usage("--mode must be 1 or 2");
    } else if (arg == "--seed") {
      if (!parse_uint(value, seed)) return usage("--seed must be a non-negative integer");
    } else if (arg == "--collectives") {
      collectives = value;
      if (collectives != "yes" && collectives != "no") return usage("--collectives must be yes or no");
    } else if (arg == "--histograms") {
      histograms = value;
      if (histograms != "yes" && histograms != "no") return usage("--histograms must be yes or no");
    } else if (arg == "-o" || arg == "--output") {
      output = value;
    } else {
      return usage(("unknown option " + std::string(arg)).c_str());
    }
  }
  if (pattern != "dense" && pattern != "stencil" && pattern != "stencil27") {
    return usage("--pattern must be dense, stencil or stencil27");
  }
  const Pattern shape = pattern == "dense"     ? Pattern::dense
                        : pattern == "stencil" ? Pattern::stencil
                                               : Pattern::stencil27;
  if (ranks == 0) return usage("--ranks is required");
  if (output.empty() || output.back() == '/') return usage("-o DIR/NAME is required");

  std::filesystem::path prefix(output);
  std::error_code ec;
  if (prefix.has_parent_path()) std::filesystem::create_directories(prefix.parent_path(), ec);
  if (ec) {
    std::fprintf(stderr, "mpimon-synth-dumps: cannot create %s: %s\n", prefix.parent_path().c_str(),
                 ec.message().c_str());
    return 1;
  }

  const auto n = static_cast<std::uint32_t>(ranks);
  const Run run(n, seed);
  const Sections sections{collectives == "yes", histograms == "yes"};
  std::string world_members;
  if (collectives == "yes") {
    for (std::uint32_t r = 0; r < n; ++r) world_members += (r ? "," : "") + std::to_string(r);
  }

  for (std::uint32_t me = 0; me < n; ++me) {
    std::string path = output + "." + std::to_string(me) + ".prof";
    std::string text = rank_file(run, shape, static_cast<int>(mode), sections, seed, me, world_members);
    std::FILE* f = std::fopen(path.c_str(), "wb");
    bool ok = f && std::fwrite(text.data(), 1, text.size(), f) == text.size();
    if (f && std::fclose(f) != 0) ok = false;
    if (!ok) {
      std::fprintf(stderr, "mpimon-synth-dumps: cannot write %s: %s\n", path.c_str(), std::strerror(errno));
      return 1;
    }
  }
  return 0;
}
