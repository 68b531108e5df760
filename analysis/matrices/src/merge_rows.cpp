#include "merge_rows.hpp"

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

#include "mpimon/base/error.hpp"
#include "mpimon/matrices/matrix_file.hpp"

namespace mpimon::merge_detail {

namespace {

/// Asks for transparent huge pages on the storage of a large vector: filling 20 MB of class rows
/// then takes 10 page faults instead of 5000 (each costly, more so in a virtual machine). Pages
/// still appear only when touched, so an unused reservation costs no memory. Advisory only.
template <typename T>
void advise_huge_pages(std::vector<T>& v) {
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
  const std::uintptr_t end = begin + v.capacity() * sizeof(T);
  const std::uintptr_t first = (begin + huge - 1) & ~(huge - 1);
  const std::uintptr_t last = end & ~(huge - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace

std::uint64_t checked_add(std::uint64_t a, std::uint64_t b, const std::string& path, std::size_t line,
                          const char* what) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) raise_input_error(path, line, std::string(what) + " total exceeds 2^64-1");
  return sum;
}

std::vector<std::uint64_t> ClassRows::ends_between(std::uint32_t first, std::uint32_t last, std::uint64_t base) const {
  std::vector<std::uint64_t> out;
  out.reserve(last > first ? last - first : 0);
  auto next = std::lower_bound(row_ends.begin(), row_ends.end(), std::make_pair(first, std::uint64_t{0}));
  std::uint64_t end = next == row_ends.begin() ? 0 : std::prev(next)->second;
  for (std::uint32_t r = first; r < last; ++r) {
    if (next != row_ends.end() && next->first == r) end = (next++)->second;
    out.push_back(base + end);
  }
  return out;
}

std::vector<std::uint64_t> ClassRows::indptr(std::uint32_t n) const {
  std::vector<std::uint64_t> out{0};
  const std::vector<std::uint64_t> ends = ends_between(0, n, 0);
  out.insert(out.end(), ends.begin(), ends.end());
  return out;
}

void SparseHistograms::assign(const std::vector<PeerHistogram>& histograms) {
  bucket.clear();
  count.clear();
  ends.clear();
  append(histograms);
}

void SparseHistograms::append(const std::vector<PeerHistogram>& histograms) {
  for (const auto& h : histograms) {
    for (std::size_t b = 0; b < kHistogramBuckets; ++b) {
      if (h.buckets[b] == 0) continue;
      bucket.push_back(static_cast<std::uint8_t>(b));
      count.push_back(h.buckets[b]);
    }
    ends.push_back(static_cast<std::uint32_t>(count.size()));
  }
}

void WorldSize::note(std::uint32_t rank, const RankProfile& profile, const std::string& path) {
  highest_rank = std::max(highest_rank, rank);
  if (!profile.world_size) {
    for (const auto& p : profile.pairs) {
      if (!highest_peer || p.peer > highest_peer->peer) highest_peer = PeerSighting{p.peer, path, p.line};
    }
    return;
  }
  if (size && *size != *profile.world_size) {
    raise_input_error(path, 0,
                      "MPI_COMM_WORLD has " + std::to_string(*profile.world_size) + " processes here but " +
                          std::to_string(*size) + " in " + source);
  }
  if (!size) first_source = path;
  size = profile.world_size;
  source = path;
}

void WorldSize::follow(const WorldSize& later) {
  highest_rank = std::max(highest_rank, later.highest_rank);
  if (later.highest_peer && (!highest_peer || later.highest_peer->peer > highest_peer->peer))
    highest_peer = later.highest_peer;
  if (!later.size) return;
  if (size && *size != *later.size) {
    raise_input_error(later.first_source, 0,
                      "MPI_COMM_WORLD has " + std::to_string(*later.size) + " processes here but " +
                          std::to_string(*size) + " in " + source);
  }
  if (!size) first_source = later.first_source;
  size = later.size;
  source = later.source;
}

std::uint32_t WorldSize::resolve(const DumpInputs& inputs, std::optional<std::uint32_t> stated) const {
  if (!size) return inferred(inputs, stated);
  if (stated && *stated != *size) {
    raise_input_error(
        first_source, 0,
        "MPI_COMM_WORLD has " + std::to_string(*size) + " processes here but --nprocs says " + std::to_string(*stated));
  }
  check_within(*size, inputs, source);
  return *size;
}

std::uint32_t WorldSize::inferred(const DumpInputs& inputs, std::optional<std::uint32_t> stated) const {
  if (stated) {
    check_within(*stated, inputs, "--nprocs");
    return *stated;
  }
  const std::uint64_t highest = std::max<std::uint64_t>(highest_rank, highest_peer ? highest_peer->peer : 0);
  if (highest < kMaxInferredProcesses) return static_cast<std::uint32_t>(highest + 1);
  const std::string implied = std::to_string(highest + 1) +
                              " processes, but no file has an MPI_COMM_WORLD line "
                              "to confirm it (more than " +
                              std::to_string(kMaxInferredProcesses) +
                              " are taken from a file's word only with --nprocs N)";
  if (highest_peer && highest_peer->peer == highest) {
    raise_input_error(highest_peer->path, highest_peer->line,
                      "peer " + std::to_string(highest) + " implies " + implied);
  }
  for (const auto& [rank, path] : inputs.files) {
    if (rank == highest) raise_input_error(path, 0, "rank " + std::to_string(rank) + " implies " + implied);
  }
  raise_input_error(inputs.name, 0, "rank " + std::to_string(highest) + " implies " + implied);
}

void WorldSize::check_within(std::uint32_t n, const DumpInputs& inputs, const std::string& from) const {
  if (highest_rank >= n) {
    for (const auto& [rank, path] : inputs.files) {
      if (rank >= n) {
        raise_input_error(path, 0,
                          "rank " + std::to_string(rank) + " is outside MPI_COMM_WORLD (" + std::to_string(n) +
                              " processes, from " + from + ")");
      }
    }
  }
  if (highest_peer && highest_peer->peer >= n) {
    raise_input_error(highest_peer->path, highest_peer->line,
                      "peer " + std::to_string(highest_peer->peer) + " is outside MPI_COMM_WORLD (" +
                          std::to_string(n) + " processes, from " + from + ")");
  }
}

std::uint64_t CommunicatorTable::index(const std::string& name, const std::vector<std::uint32_t>& list) {
  auto [it, inserted] = index_of.emplace(std::make_pair(name, list), names.size());
  if (inserted) {
    names.push_back(name);
    members.insert(members.end(), list.begin(), list.end());
    members_indptr.push_back(static_cast<std::int64_t>(members.size()));
  }
  return it->second;
}

bool CommunicatorTable::holds(std::uint64_t k, const std::string& name, const std::vector<std::uint32_t>& list) const {
  constexpr std::size_t worth_keeping = 256;
  if (names[k] != name) return false;
  if (k == recent_entry_) return recent_members_ == list;
  auto first = members.begin() + members_indptr[k];
  auto last = members.begin() + members_indptr[k + 1];
  if (!std::equal(first, last, list.begin(), list.end())) return false;
  if (list.size() >= worth_keeping) {
    recent_members_ = list;
    recent_entry_ = k;
  }
  return true;
}

std::vector<std::uint32_t> CommunicatorTable::members_of(std::uint64_t k) const {
  return {members.begin() + members_indptr[k], members.begin() + members_indptr[k + 1]};
}

void DumpRows::add(std::uint32_t rank, const std::string& path, const RankProfile& profile,
                   std::size_t expected_files) {
  world.note(rank, profile, path);
  internal_distinguished |= profile.has_internal_lines;
  if (ranks_present.empty()) reserve_like(profile, expected_files);
  for (const auto& p : profile.pairs) {
    auto c = static_cast<std::size_t>(p.traffic_class);
    ClassRows& rows = classes[c];
    rows.indices.push_back(p.peer);
    rows.counts.push_back(p.count);
    rows.bytes.push_back(p.bytes);
    ClassTotals& t = totals[c];
    t.messages = checked_add(t.messages, p.count, path, p.line, "message");
    t.bytes = checked_add(t.bytes, p.bytes, path, p.line, "byte");
    ++t.pairs;
  }
  for (auto& rows : classes) rows.row_ends.emplace_back(rank, rows.indices.size());
  histograms += profile.histograms.size();

  std::vector<std::uint64_t> indices;
  for (std::size_t j = 0; j < profile.communicators.size(); ++j) {
    const CommunicatorRecord& comm = profile.communicators[j];
    const bool repeated =
        j < previous_comms_.size() && communicators.holds(previous_comms_[j], comm.name, comm.members);
    const std::uint64_t index = repeated ? previous_comms_[j] : communicators.index(comm.name, comm.members);
    indices.push_back(index);
    for (std::uint64_t v :
         {index, std::uint64_t{rank}, comm.one_to_all.calls, comm.one_to_all.bytes, comm.all_to_one.calls,
          comm.all_to_one.bytes, comm.all_to_all.calls, comm.all_to_all.bytes}) {
      comm_rows.push_back(v);
    }
  }
  previous_comms_ = std::move(indices);
  ranks_present.push_back(rank);
}

// Room for every file to have as many lines as the first: no copying as the rows grow, and
// pages that are never used are never touched, so they cost no memory.
void DumpRows::reserve_like(const RankProfile& first, std::size_t files) {
  std::array<std::size_t, kTrafficClassCount> lines{};
  for (const auto& p : first.pairs) ++lines[static_cast<std::size_t>(p.traffic_class)];
  for (std::size_t c = 0; c < kTrafficClassCount; ++c) {
    const std::size_t expected = lines[c] * files;
    classes[c].indices.reserve(expected);
    classes[c].counts.reserve(expected);
    classes[c].bytes.reserve(expected);
    advise_huge_pages(classes[c].indices);
    advise_huge_pages(classes[c].counts);
    advise_huge_pages(classes[c].bytes);
    classes[c].row_ends.reserve(files);
  }
}

bool uses_csr(const MergeOptions& options, std::uint32_t n) {
  return options.layout == MatrixLayout::csr || (options.layout == MatrixLayout::automatic && n > options.csr_above);
}

std::uint32_t dense_block_rows(std::uint32_t n) { return std::max<std::uint32_t>(1, (1u << 17) / n); }

void fill_dense_rows(std::uint32_t first, std::uint32_t count, std::uint32_t n, std::span<const std::uint64_t> indptr,
                     std::span<const std::uint32_t> indices, std::span<const std::uint64_t> values,
                     std::vector<std::uint64_t>& buffer) {
  buffer.assign(std::size_t{count} * n, 0);
  for (std::uint32_t i = 0; i < count; ++i) {
    for (auto k = indptr[first + i]; k < indptr[first + i + 1]; ++k)
      buffer[std::size_t{i} * n + indices[k]] = values[k];
  }
}

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string write_failure(const std::string& output, const std::string& message) {
  std::string text = message.find(output) == std::string::npos ? output + ": " + message : message;
  const std::string directory = std::filesystem::absolute(output).parent_path().string();
  struct statvfs space {};
  if (statvfs(directory.c_str(), &space) == 0 && space.f_bavail == 0)
    text += ": no space left on device (" + directory + ")";
  return text;
}

void write_root_attributes(hid_t file, const MergeOptions& options, const std::string& created_utc) {
  h5::write_attribute(file, "format", std::string(kMatricesFormat));
  h5::write_attribute(file, "format_version", kMatricesFormatVersion);
  h5::write_attribute(file, "generator", options.generator.empty() ? std::string("mpimon") : options.generator);
  h5::write_attribute(file, "created_utc", created_utc);
  for (const auto& [name, values] : options.root_string_lists) {
    h5::write_attribute(file, name, std::span<const std::string>(values));
  }
  for (const auto& [name, value] : options.root_strings) h5::write_attribute(file, name, value);
}

void write_histogram_attributes(hid_t histogram_group) {
  h5::write_attribute(histogram_group, "bucket_rule",
                      std::string("bucket 0: empty messages; bucket k >= 1: messages of 2^(k-1) to 2^k - 1 bytes"));
  h5::write_attribute(histogram_group, "covers",
                      std::string("all point-to-point messages from rank to peer, external and internal"));
}

void write_csr_attributes(hid_t group, std::uint32_t n) {
  h5::write_attribute(group, "encoding-type", std::string("csr_matrix"));
  h5::write_attribute(group, "encoding-version", std::string("0.1.0"));
  const std::uint64_t shape[] = {n, n};
  h5::write_attribute(group, "shape", std::span<const std::uint64_t>(shape));
}

void write_comm_columns(hid_t records) {
  std::vector<std::string> columns(kCommColumns.begin(), kCommColumns.end());
  h5::write_attribute(records, "columns", std::span<const std::string>(columns));
}

void write_dump_attributes(hid_t group, std::uint32_t n, const std::vector<std::uint32_t>& ranks_present,
                           bool internal_distinguished, const DumpInputs& inputs, bool csr) {
  h5::write_attribute(group, "nprocs", std::uint64_t{n});
  std::vector<std::uint64_t> ranks(ranks_present.begin(), ranks_present.end());
  h5::write_attribute(group, "ranks_present", std::span<const std::uint64_t>(ranks));
  h5::write_attribute(group, "internal_distinguished", std::uint64_t{internal_distinguished ? 1u : 0u});
  std::vector<std::string> sources;
  for (const auto& [rank, path] : inputs.files) sources.push_back(path);
  h5::write_attribute(group, "source_files", std::span<const std::string>(sources));
  h5::write_attribute(group, "layout", std::string(csr ? "csr" : "dense"));
}

DumpSummary summary_of(const DumpInputs& inputs, const DumpRows& rows, std::uint32_t n, bool csr) {
  DumpSummary summary;
  summary.name = inputs.name;
  summary.nprocs = n;
  summary.ranks_present = rows.ranks_present.size();
  summary.internal_distinguished = rows.internal_distinguished;
  summary.totals = rows.totals;
  summary.histograms = rows.histograms;
  summary.communicators = rows.communicators.names.size();
  summary.layout = csr ? "csr" : "dense";
  return summary;
}

}  // namespace mpimon::merge_detail
