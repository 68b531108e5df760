#include "mpimon/checks/ledger_check.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "mpimon/base/error.hpp"

namespace mpimon {

RecordedTraffic RecordedTraffic::read(const MatrixFile& file, const std::string& dump) {
  RecordedTraffic r;
  r.nprocs = file.info(dump).nprocs;
  for (TrafficClass c : kAllTrafficClasses) {
    r.count[static_cast<std::size_t>(c)] = file.matrix(dump, c, Metric::count);
    r.bytes[static_cast<std::size_t>(c)] = file.matrix(dump, c, Metric::bytes);
  }
  r.histograms = file.histograms(dump);
  r.communicators = file.communicators(dump);
  return r;
}

namespace {

std::string pair_name(std::uint64_t from, std::uint64_t to) { return std::to_string(from) + "->" + std::to_string(to); }

SparseMatrix subtract(const SparseMatrix& a, const SparseMatrix& b, const std::string& what) {
  std::vector<std::uint64_t> dense = a.to_dense();
  const std::vector<std::uint64_t> minus = b.to_dense();
  for (std::size_t k = 0; k < dense.size(); ++k) {
    if (minus[k] > dense[k]) {
      raise_error(Error::Kind::input, "",
                  "control run recorded more " + what + " than the run at " + pair_name(k / a.columns, k % a.columns) +
                      ": the runs are not comparable");
    }
    dense[k] -= minus[k];
  }
  return SparseMatrix::from_dense(a.rows, a.columns, dense);
}

using PairKey = std::pair<std::uint64_t, std::uint64_t>;

std::map<PairKey, Histogram> histograms_by_pair(const HistogramTable& table) {
  std::map<PairKey, Histogram> out;
  for (std::size_t k = 0; k < table.size(); ++k) {
    Histogram h{};
    std::copy_n(table.counts.begin() + static_cast<std::ptrdiff_t>(k * kHistogramBuckets), kHistogramBuckets,
                h.begin());
    out[{table.pairs[2 * k], table.pairs[2 * k + 1]}] = h;
  }
  return out;
}

}  // namespace

RecordedTraffic RecordedTraffic::minus(const RecordedTraffic& control, const LedgerCheck& check) const {
  if (control.nprocs != nprocs) {
    raise_error(Error::Kind::input, "",
                "control run has " + std::to_string(control.nprocs) + " processes, the run " + std::to_string(nprocs));
  }
  RecordedTraffic r = *this;
  std::vector<TrafficClass> compared = check.classes;
  compared.insert(compared.end(), check.must_be_empty.begin(), check.must_be_empty.end());
  for (TrafficClass c : compared) {
    auto i = static_cast<std::size_t>(c);
    std::string what = std::string(class_name(c));
    r.count[i] = subtract(count[i], control.count[i], what + " messages");
    r.bytes[i] = subtract(bytes[i], control.bytes[i], what + " bytes");
  }
  if (!check.histograms) return r;
  auto mine = histograms_by_pair(histograms);
  for (const auto& [pair, h] : histograms_by_pair(control.histograms)) {
    Histogram& m = mine[pair];
    for (std::size_t b = 0; b < kHistogramBuckets; ++b) {
      if (h[b] > m[b])
        raise_error(Error::Kind::input, "",
                    "control run recorded more messages in histogram " + pair_name(pair.first, pair.second));
      m[b] -= h[b];
    }
  }
  r.histograms = {};
  for (const auto& [pair, h] : mine) {
    if (std::all_of(h.begin(), h.end(), [](std::uint64_t v) { return v == 0; })) continue;
    r.histograms.pairs.insert(r.histograms.pairs.end(), {pair.first, pair.second});
    r.histograms.counts.insert(r.histograms.counts.end(), h.begin(), h.end());
  }
  // Communicator records are kept as recorded: checks read only communicators the workload
  // created and named itself, which hold nothing in the control run.
  return r;
}

namespace {

struct PairTotals {
  std::uint64_t count = 0, bytes = 0;
};

void compare_class(const RecordedTraffic& recorded, const std::vector<Ledger>& ledgers, TrafficClass c,
                   std::vector<Mismatch>& out) {
  std::map<std::pair<std::uint32_t, std::uint32_t>, PairTotals> sent;
  for (const auto& l : ledgers) {
    for (const auto& e : l.entries()) {
      if (e.traffic_class != c) continue;
      auto& t = sent[{l.rank(), e.peer}];
      ++t.count;
      t.bytes += e.bytes;
    }
  }
  const SparseMatrix& count = recorded.count[static_cast<std::size_t>(c)];
  const SparseMatrix& bytes = recorded.bytes[static_cast<std::size_t>(c)];
  const std::uint32_t n = recorded.nprocs;
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

void compare_histograms(const RecordedTraffic& recorded, const std::vector<Ledger>& ledgers,
                        std::vector<Mismatch>& out) {
  // The histogram of a pair covers every point-to-point message (E and I) to that peer.
  std::map<PairKey, Histogram> expected;
  for (const auto& l : ledgers) {
    for (const auto& e : l.entries()) {
      if (e.traffic_class != TrafficClass::external && e.traffic_class != TrafficClass::internal) continue;
      auto& h = expected.try_emplace({l.rank(), e.peer}, Histogram{}).first->second;
      ++h[histogram_bucket(e.bytes)];
    }
  }
  auto actual = histograms_by_pair(recorded.histograms);
  for (const auto& [pair, h] : expected) {
    auto it = actual.find(pair);
    if (it == actual.end()) {
      out.push_back({"histogram " + pair_name(pair.first, pair.second) + ": missing"});
      continue;
    }
    for (std::size_t b = 0; b < kHistogramBuckets; ++b) {
      if (it->second[b] != h[b]) {
        out.push_back({"histogram " + pair_name(pair.first, pair.second) + " bucket " + std::to_string(b) +
                       ": recorded " + std::to_string(it->second[b]) + ", sent " + std::to_string(h[b])});
      }
    }
    actual.erase(it);
  }
  for (const auto& [pair, h] : actual) {
    out.push_back({"histogram " + pair_name(pair.first, pair.second) + ": recorded, but nothing was sent"});
  }
}

// (communicator name, rank, kind) -> calls and bytes
using RecordKey = std::tuple<std::string, std::uint64_t, CollectiveKind>;

void compare_communicator_records(const RecordedTraffic& recorded, const std::vector<Ledger>& ledgers,
                                  std::vector<Mismatch>& out) {
  std::map<RecordKey, PairTotals> expected, actual;
  std::set<std::string> named;  // the communicators the ledgers speak of
  for (const auto& l : ledgers) {
    for (const auto& c : l.calls()) {
      auto& t = expected[{c.communicator, l.rank(), c.kind}];
      ++t.count;
      t.bytes += c.bytes;
      named.insert(c.communicator);
    }
  }
  const CommunicatorTable& table = recorded.communicators;
  for (const auto& row : table.rows) {
    const std::string& name = table.names[row.comm];
    if (!named.count(name)) continue;
    const std::pair<CollectiveKind, const CollectiveTotals*> kinds[] = {{CollectiveKind::one_to_all, &row.one_to_all},
                                                                        {CollectiveKind::all_to_one, &row.all_to_one},
                                                                        {CollectiveKind::all_to_all, &row.all_to_all}};
    for (auto [kind, totals] : kinds) {
      auto& t = actual[{name, row.rank, kind}];
      t.count += totals->calls;
      t.bytes += totals->bytes;
    }
  }
  for (const std::string& name : named) {
    bool recorded_any = std::any_of(table.rows.begin(), table.rows.end(),
                                    [&](const CommunicatorRow& r) { return table.names[r.comm] == name; });
    if (!recorded_any) out.push_back({"communicator " + name + ": no record in the dump"});
  }
  std::map<RecordKey, bool> keys;
  for (const auto& [k, v] : expected) keys[k] = true;
  for (const auto& [k, v] : actual) keys[k] = true;
  for (const auto& [key, unused] : keys) {
    const auto& [name, rank, kind] = key;
    PairTotals e = expected.count(key) ? expected[key] : PairTotals{};
    PairTotals a = actual.count(key) ? actual[key] : PairTotals{};
    std::string label =
        "communicator " + name + " rank " + std::to_string(rank) + " " + std::string(collective_kind_name(kind));
    if (a.count != e.count) {
      out.push_back({label + " calls: recorded " + std::to_string(a.count) + ", made " + std::to_string(e.count)});
    }
    if (a.bytes != e.bytes) {
      out.push_back({label + " bytes: recorded " + std::to_string(a.bytes) + ", expected " + std::to_string(e.bytes)});
    }
  }
}

}  // namespace

std::vector<Mismatch> histogram_consistency(const RecordedTraffic& recorded) {
  std::vector<Mismatch> out;
  const SparseMatrix& external = recorded.count[static_cast<std::size_t>(TrafficClass::external)];
  const SparseMatrix& internal = recorded.count[static_cast<std::size_t>(TrafficClass::internal)];
  auto histograms = histograms_by_pair(recorded.histograms);
  for (std::uint32_t i = 0; i < recorded.nprocs; ++i) {
    for (std::uint32_t j = 0; j < recorded.nprocs; ++j) {
      const std::uint64_t messages = external.at(i, j) + internal.at(i, j);
      auto it = histograms.find({i, j});
      std::uint64_t counted = 0;
      if (it != histograms.end()) {
        for (auto v : it->second) counted += v;
      }
      if (counted != messages) {
        out.push_back({"histogram " + pair_name(i, j) + " counts " + std::to_string(counted) + " messages, E + I say " +
                       std::to_string(messages)});
      }
    }
  }
  return out;
}

std::vector<Mismatch> compare_with_ledgers(const RecordedTraffic& recorded, const std::vector<Ledger>& ledgers,
                                           const LedgerCheck& check) {
  std::vector<Mismatch> out;
  for (const auto& l : ledgers) {
    if (l.nprocs() != recorded.nprocs) {
      out.push_back({"ledger of rank " + std::to_string(l.rank()) + " says " + std::to_string(l.nprocs()) +
                     " processes, the dump " + std::to_string(recorded.nprocs)});
    }
  }
  if (!out.empty()) return out;
  for (TrafficClass c : check.classes) compare_class(recorded, ledgers, c, out);
  for (TrafficClass c : check.must_be_empty) {
    const SparseMatrix& count = recorded.count[static_cast<std::size_t>(c)];
    if (count.stored() != 0) {
      out.push_back(
          {std::string(class_name(c)) + " should be empty, holds " + std::to_string(count.stored()) + " pairs"});
    }
  }
  if (check.histograms) compare_histograms(recorded, ledgers, out);
  if (check.communicator_records) compare_communicator_records(recorded, ledgers, out);
  return out;
}

std::vector<Mismatch> compare_with_ledgers(const MatrixFile& file, const std::string& dump,
                                           const std::vector<Ledger>& ledgers, const LedgerCheck& check) {
  return compare_with_ledgers(RecordedTraffic::read(file, dump), ledgers, check);
}

}  // namespace mpimon
