#include "mpimon/models/ledger.hpp"

#include <algorithm>
#include <bit>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "mpimon/base/error.hpp"
#include "mpimon/base/names.hpp"

namespace mpimon {

namespace {

constexpr std::array<Named<CollectiveKind>, 3> kCollectiveKindNames{
    {{CollectiveKind::one_to_all, "O2A"}, {CollectiveKind::all_to_one, "A2O"}, {CollectiveKind::all_to_all, "A2A"}}};

}  // namespace

std::string_view collective_kind_name(CollectiveKind k) { return to_name(kCollectiveKindNames, k); }

namespace {

std::optional<CollectiveKind> parse_collective_kind(std::string_view text) {
  return from_name(kCollectiveKindNames, text);
}

}  // namespace

void Ledger::write(const std::string& prefix) const {
  std::string path = prefix + "." + std::to_string(rank_) + ".ledger";
  std::ofstream out(path, std::ios::trunc);
  if (!out) raise_error(Error::Kind::system, path, "cannot write");
  out << "# mpimon-ledger 1 rank " << rank_ << " nprocs " << nprocs_ << "\n";
  for (const auto& e : entries_) out << class_letter(e.traffic_class) << ' ' << e.peer << ' ' << e.bytes << '\n';
  for (const auto& c : calls_) {
    out << "COMM " << collective_kind_name(c.kind) << ' ' << c.communicator << ' ' << c.bytes << '\n';
  }
  for (const auto& b : locals_) out << "LOCAL " << b.communicator << ' ' << b.bytes << '\n';
  if (!out.flush()) raise_error(Error::Kind::system, path, "write error");
}

Ledger Ledger::read(const std::string& path) {
  std::ifstream in(path);
  if (!in) raise_input_error(path, 0, "cannot open");
  return parse(in, path);
}

Ledger Ledger::parse(std::istream& in, const std::string& path) {
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
    std::string word;
    fields >> word;
    if (word == "COMM") {
      std::string kind, name;
      std::uint64_t bytes = 0;
      auto k = (fields >> kind >> name >> bytes) ? parse_collective_kind(kind) : std::nullopt;
      if (!k) raise_input_error(path, number, "bad ledger line '" + line + "'");
      ledger.record_call(*k, name, bytes);
      continue;
    }
    if (word == "LOCAL") {
      std::string name;
      std::uint64_t bytes = 0;
      if (!(fields >> name >> bytes)) raise_input_error(path, number, "bad ledger line '" + line + "'");
      ledger.record_local(name, bytes);
      continue;
    }
    std::uint64_t peer = 0, bytes = 0;
    auto cls = (fields >> peer >> bytes) ? parse_class(word) : std::nullopt;
    if (!cls || peer >= nprocs) raise_input_error(path, number, "bad ledger line '" + line + "'");
    ledger.record(*cls, static_cast<std::uint32_t>(peer), bytes);
  }
  return ledger;
}

}  // namespace mpimon
