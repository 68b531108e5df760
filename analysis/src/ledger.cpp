#include "mpimon/ledger.hpp"

#include <algorithm>
#include <bit>
#include <fstream>
#include <map>
#include <sstream>

#include "mpimon/error.hpp"

namespace mpimon {

void Ledger::write(const std::string& prefix) const {
  std::string path = prefix + "." + std::to_string(rank_) + ".ledger";
  std::ofstream out(path, std::ios::trunc);
  if (!out) raise_error(Error::Kind::system, path, "cannot write");
  out << "# mpimon-ledger 1 rank " << rank_ << " nprocs " << nprocs_ << "\n";
  for (const auto& e : entries_) out << class_letter(e.traffic_class) << ' ' << e.peer << ' ' << e.bytes << '\n';
  if (!out.flush()) raise_error(Error::Kind::system, path, "write error");
}

Ledger Ledger::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot open");
  std::string line;
  std::getline(in, line);
  std::istringstream header(line);
  std::string hash, magic, rank_word, nprocs_word;
  int version = 0;
  std::uint32_t rank = 0, nprocs = 0;
  if (!(header >> hash >> magic >> version >> rank_word >> rank >> nprocs_word >> nprocs) || magic != "mpimon-ledger" ||
      version != 1) {
    raise_input_error(path, 1, "not an mpimon ledger (expected '# mpimon-ledger 1 rank R nprocs N')");
  }
  Ledger ledger(rank, nprocs);
  std::size_t number = 1;
  while (std::getline(in, line)) {
    ++number;
    std::istringstream fields(line);
    std::string letter;
    std::uint64_t peer = 0, bytes = 0;
    auto cls = (fields >> letter >> peer >> bytes) ? parse_class(letter) : std::nullopt;
    if (!cls || peer >= nprocs) raise_input_error(path, number, "bad ledger line '" + line + "'");
    ledger.record(*cls, static_cast<std::uint32_t>(peer), bytes);
  }
  return ledger;
}

std::size_t histogram_bucket(std::uint64_t bytes) {
  if (bytes == 0) return 0;
  return std::min<std::size_t>(static_cast<std::size_t>(std::bit_width(bytes)), kHistogramBuckets - 1);
}

namespace {

struct PairTotals {
  std::uint64_t count = 0, bytes = 0;
};

std::string pair_name(std::uint64_t from, std::uint64_t to) { return std::to_string(from) + "->" + std::to_string(to); }

}  // namespace

std::vector<Mismatch> compare_with_ledgers(const MatrixFile& file, const std::string& dump,
                                           const std::vector<Ledger>& ledgers, const LedgerCheck& check) {
  std::vector<Mismatch> out;
  const std::uint32_t n = file.info(dump).nprocs;
  for (const auto& l : ledgers) {
    if (l.nprocs() != n) out.push_back({"ledger of rank " + std::to_string(l.rank()) + " says " +
                                        std::to_string(l.nprocs()) + " processes, the dump " + std::to_string(n)});
  }
  if (!out.empty()) return out;

  for (TrafficClass c : check.classes) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, PairTotals> sent;
    for (const auto& l : ledgers) {
      for (const auto& e : l.entries()) {
        if (e.traffic_class != c) continue;
        auto& t = sent[{l.rank(), e.peer}];
        ++t.count;
        t.bytes += e.bytes;
      }
    }
    SparseMatrix count = file.matrix(dump, c, Metric::count);
    SparseMatrix bytes = file.matrix(dump, c, Metric::bytes);
    for (std::uint32_t i = 0; i < n; ++i) {
      for (std::uint32_t j = 0; j < n; ++j) {
        auto it = sent.find({i, j});
        PairTotals expected = it == sent.end() ? PairTotals{} : it->second;
        std::string label = std::string(class_name(c)) + " " + pair_name(i, j);
        if (count.at(i, j) != expected.count) {
          out.push_back({label + " count: recorded " + std::to_string(count.at(i, j)) + ", sent " +
                         std::to_string(expected.count)});
        }
        if (bytes.at(i, j) != expected.bytes) {
          out.push_back({label + " bytes: recorded " + std::to_string(bytes.at(i, j)) + ", sent " +
                         std::to_string(expected.bytes)});
        }
      }
    }
  }

  for (TrafficClass c : check.must_be_empty) {
    SparseMatrix count = file.matrix(dump, c, Metric::count);
    if (count.stored() != 0) {
      out.push_back({std::string(class_name(c)) + " should be empty, holds " + std::to_string(count.stored()) +
                     " pairs"});
    }
  }

  if (check.histograms) {
    // The histogram of a pair covers every point-to-point message (E and I) to that peer.
    std::map<std::pair<std::uint64_t, std::uint64_t>, Histogram> expected;
    for (const auto& l : ledgers) {
      for (const auto& e : l.entries()) {
        if (e.traffic_class != TrafficClass::external && e.traffic_class != TrafficClass::internal) continue;
        auto& h = expected.try_emplace({l.rank(), e.peer}, Histogram{}).first->second;
        ++h[histogram_bucket(e.bytes)];
      }
    }
    HistogramTable table = file.histograms(dump);
    std::map<std::pair<std::uint64_t, std::uint64_t>, Histogram> recorded;
    for (std::size_t k = 0; k < table.size(); ++k) {
      Histogram h{};
      std::copy_n(table.counts.begin() + static_cast<std::ptrdiff_t>(k * kHistogramBuckets), kHistogramBuckets,
                  h.begin());
      recorded[{table.pairs[2 * k], table.pairs[2 * k + 1]}] = h;
    }
    for (const auto& [pair, h] : expected) {
      auto it = recorded.find(pair);
      if (it == recorded.end()) {
        out.push_back({"histogram " + pair_name(pair.first, pair.second) + ": missing"});
        continue;
      }
      for (std::size_t b = 0; b < kHistogramBuckets; ++b) {
        if (it->second[b] != h[b]) {
          out.push_back({"histogram " + pair_name(pair.first, pair.second) + " bucket " + std::to_string(b) +
                         ": recorded " + std::to_string(it->second[b]) + ", sent " + std::to_string(h[b])});
        }
      }
      recorded.erase(it);
    }
    for (const auto& [pair, h] : recorded) {
      out.push_back({"histogram " + pair_name(pair.first, pair.second) + ": recorded, but nothing was sent"});
    }
  }
  return out;
}

}  // namespace mpimon
