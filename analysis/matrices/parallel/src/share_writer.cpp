#include "share_writer.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>

#include "exchange.hpp"
#include "mpimon/base/error.hpp"
#include "mpimon/matrices/h5.hpp"
#include "mpimon/matrices/prof.hpp"

namespace mpimon::parallel_detail {

namespace md = merge_detail;

std::vector<DumpShare> read_share(const std::vector<DumpInputs>& dumps, std::size_t first, std::size_t last,
                                  const std::function<void(std::size_t done)>& progress) {
  std::vector<DumpShare> shares(dumps.size());
  ProfReader reader;
  RankProfile profile;
  std::size_t index = 0;
  for (std::size_t d = 0; d < dumps.size(); ++d) {
    DumpShare& share = shares[d];
    for (const auto& [rank, path] : dumps[d].files) {
      if (index >= first && index < last) {
        try {
          reader.read(path, rank, profile);
          share.rows.add(rank, path, profile, last - first);
        } catch (...) {
          share.failure = Outcome::of_current_exception();
          share.failed_file = index;
          return shares;
        }
        if (profile.world_size && share.first_world_file == std::numeric_limits<std::uint64_t>::max())
          share.first_world_file = index;
        for (const auto& h : profile.histograms) {
          share.histogram_pairs.push_back(rank);
          share.histogram_pairs.push_back(h.peer);
        }
        share.histograms.append(profile.histograms);
        if (progress) progress(index + 1 - first);
      }
      ++index;
    }
  }
  return shares;
}

namespace {

constexpr std::uint32_t kNoRank = std::numeric_limits<std::uint32_t>::max();

int world_rank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}

int world_size() {
  int size = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

// ---- what rank 0 needs of each share to check a dump as a whole ---------------------------------

void pack_world(const md::WorldSize& w, Packer& out) {
  out.put<std::uint8_t>(w.size.has_value());
  out.put(w.size.value_or(0));
  out.put_string(w.first_source);
  out.put_string(w.source);
  out.put<std::uint8_t>(w.highest_peer.has_value());
  const md::PeerSighting peer = w.highest_peer.value_or(md::PeerSighting{});
  out.put(peer.peer);
  out.put_string(peer.path);
  out.put(peer.line);
  out.put(w.highest_rank);
}

md::WorldSize unpack_world(Unpacker& in) {
  md::WorldSize w;
  const bool has_size = in.get<std::uint8_t>() != 0;
  const auto size = in.get<std::uint32_t>();
  if (has_size) w.size = size;
  w.first_source = in.get_string();
  w.source = in.get_string();
  const bool has_peer = in.get<std::uint8_t>() != 0;
  md::PeerSighting peer;
  peer.peer = in.get<std::uint32_t>();
  peer.path = in.get_string();
  peer.line = in.get<std::size_t>();
  if (has_peer) w.highest_peer = peer;
  w.highest_rank = in.get<std::uint32_t>();
  return w;
}

/// One dump's share summarised: everything but the rows themselves. The communicator table is
/// sent once per share (not per file), so MPI_COMM_WORLD's members cross once per process.
std::vector<char> summarise(const DumpShare& share) {
  Packer out;
  const md::DumpRows& r = share.rows;
  share.failure.pack(out);
  out.put(share.failed_file);
  out.put(share.first_world_file);
  pack_world(r.world, out);
  out.put<std::uint8_t>(r.internal_distinguished);
  out.put(r.totals);
  out.put<std::uint64_t>(r.histograms);
  out.put_strings(r.communicators.names);
  out.put_vector(r.communicators.members_indptr);
  out.put_vector(r.communicators.members);
  out.put_vector(r.ranks_present);
  return std::move(out.bytes());
}

/// A dump as rank 0 decided it, for every process.
struct DumpLayout {
  std::uint32_t n = 0;
  bool csr = false;
  bool internal_distinguished = false;
  std::vector<std::uint32_t> ranks_present;
  std::uint64_t communicators = 0;      ///< entries of the table
  std::uint64_t members = 0;            ///< members of all entries
  std::vector<std::uint64_t> comm_map;  ///< this process's table index -> the dump's
};

struct Decision {
  std::string created_utc;
  std::vector<DumpLayout> dumps;
  // Rank 0 only: the dumps' communicator tables and summaries.
  std::vector<md::CommunicatorTable> tables;
  std::vector<DumpSummary> summaries;
};

/// Joins one share's summary of a dump to the shares before it (`joined`), as if its files came
/// next; returns the share's communicator map (its table index -> the dump's). Throws the first
/// error in file order: the share's own (a file that failed to parse, or that disagreed with an
/// earlier file of the share), or its first file that gives MPI_COMM_WORLD's size disagreeing with
/// the shares before.
std::vector<std::uint64_t> join(const std::vector<char>& summary, md::DumpRows& joined) {
  Unpacker in(summary);
  const Outcome failure = Outcome::unpack(in);
  const auto failed_file = in.get<std::uint64_t>();
  const auto first_world_file = in.get<std::uint64_t>();
  const md::WorldSize world = unpack_world(in);
  if (failure.failed && failed_file < first_world_file) failure.raise();
  joined.world.follow(world);
  if (failure.failed) failure.raise();
  joined.internal_distinguished |= in.get<std::uint8_t>() != 0;
  const auto totals = in.get<std::array<ClassTotals, kTrafficClassCount>>();
  for (std::size_t c = 0; c < kTrafficClassCount; ++c) {
    ClassTotals& t = joined.totals[c];
    t.messages = md::checked_add(t.messages, totals[c].messages, world.source, 0, "message");
    t.bytes = md::checked_add(t.bytes, totals[c].bytes, world.source, 0, "byte");
    t.pairs += totals[c].pairs;
  }
  joined.histograms += in.get<std::uint64_t>();
  const auto names = in.get_strings();
  const auto indptr = in.get_vector<std::int64_t>();
  const auto members = in.get_vector<std::int64_t>();
  std::vector<std::uint64_t> map;
  for (std::size_t j = 0; j < names.size(); ++j) {
    const std::vector<std::uint32_t> list(members.begin() + indptr[j], members.begin() + indptr[j + 1]);
    map.push_back(joined.communicators.index(names[j], list));
  }
  const auto ranks = in.get_vector<std::uint32_t>();
  joined.ranks_present.insert(joined.ranks_present.end(), ranks.begin(), ranks.end());
  return map;
}

/// Rank 0: receives the summaries of the shares in file order (dump by dump, process by process,
/// as each process sends them) and joins them as the serial merge would have met the files; throws
/// the first inconsistency, once every summary is received (so that every process's sends end).
/// One summary is held at a time: each carries its share's communicator table, MPI_COMM_WORLD's N
/// members included, so rank 0's memory stays O(N + table) whatever the number of processes.
/// Returns the decision packed for every process (each process's communicator map included) and
/// keeps the tables and summaries.
std::vector<char> decide(const std::vector<DumpInputs>& dumps, const std::vector<DumpShare>& own, int processes,
                         const MergeOptions& options, Decision& decision) {
  Packer out;
  out.put_string(md::utc_now());
  Outcome failure;
  for (std::size_t d = 0; d < dumps.size(); ++d) {
    md::DumpRows joined;
    std::vector<std::vector<std::uint64_t>> maps(static_cast<std::size_t>(processes));
    for (int k = 0; k < processes; ++k) {
      const std::vector<char> summary = k == 0 ? summarise(own[d]) : receive_bytes(k);
      if (failure.failed) continue;
      try {
        maps[static_cast<std::size_t>(k)] = join(summary, joined);
      } catch (...) {
        failure = Outcome::of_current_exception();
      }
    }
    if (failure.failed) continue;
    try {
      const std::uint32_t n = joined.world.resolve(dumps[d], options.nprocs);
      const bool csr = md::uses_csr(options, n);
      out.put(n);
      out.put<std::uint8_t>(csr);
      out.put<std::uint8_t>(joined.internal_distinguished);
      out.put_vector(joined.ranks_present);
      out.put<std::uint64_t>(joined.communicators.names.size());
      out.put<std::uint64_t>(joined.communicators.members.size());
      for (const auto& map : maps) out.put_vector(map);
      decision.summaries.push_back(md::summary_of(dumps[d], joined, n, csr));
      decision.tables.push_back(std::move(joined.communicators));
    } catch (...) {
      failure = Outcome::of_current_exception();
    }
  }
  if (failure.failed) failure.raise();
  return std::move(out.bytes());
}

void read_decision(const std::vector<char>& bytes, std::size_t dumps, int rank, int processes, Decision& decision) {
  Unpacker in(bytes);
  decision.created_utc = in.get_string();
  for (std::size_t d = 0; d < dumps; ++d) {
    DumpLayout layout;
    layout.n = in.get<std::uint32_t>();
    layout.csr = in.get<std::uint8_t>() != 0;
    layout.internal_distinguished = in.get<std::uint8_t>() != 0;
    layout.ranks_present = in.get_vector<std::uint32_t>();
    layout.communicators = in.get<std::uint64_t>();
    layout.members = in.get<std::uint64_t>();
    for (int k = 0; k < processes; ++k) {
      auto map = in.get_vector<std::uint64_t>();
      if (k == rank) layout.comm_map = std::move(map);
    }
    decision.dumps.push_back(std::move(layout));
  }
}

// ---- offsets ------------------------------------------------------------------------------------

/// Where this process's part of each dataset of a dump starts, and the totals.
struct Offsets {
  enum : std::size_t { kClasses = 0, kHistograms = kTrafficClassCount, kBuckets, kRecords, kCount };
  std::array<std::uint64_t, kCount> mine{}, before{}, total{};
  std::uint32_t first_row = 0, end_row = 0;  ///< the matrix rows this process writes
  bool writes_row_zero = false;              ///< the first process with files writes indptr[0]
};

std::vector<Offsets> offsets_of(const std::vector<DumpShare>& shares, const std::vector<DumpLayout>& layouts) {
  const std::size_t dumps = shares.size();
  std::vector<Offsets> out(dumps);
  std::vector<std::uint64_t> mine, before(dumps * Offsets::kCount, 0), total(dumps * Offsets::kCount, 0);
  std::vector<std::uint32_t> firsts;
  for (const auto& share : shares) {
    for (const auto& c : share.rows.classes) mine.push_back(c.indices.size());
    mine.push_back(share.histogram_pairs.size() / 2);
    mine.push_back(share.histograms.count.size());
    mine.push_back(share.rows.comm_rows.size() / md::kCommColumns.size());
    firsts.push_back(share.rows.ranks_present.empty() ? kNoRank : share.rows.ranks_present.front());
  }
  const int count = static_cast<int>(mine.size());
  MPI_Exscan(mine.data(), before.data(), count, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  if (world_rank() == 0) std::fill(before.begin(), before.end(), 0);  // MPI_Exscan leaves rank 0's undefined
  MPI_Allreduce(mine.data(), total.data(), count, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
  const int processes = world_size();
  std::vector<std::uint32_t> all_firsts(dumps * static_cast<std::size_t>(processes));
  MPI_Allgather(firsts.data(), static_cast<int>(dumps), MPI_UINT32_T, all_firsts.data(), static_cast<int>(dumps),
                MPI_UINT32_T, MPI_COMM_WORLD);
  const auto rank = static_cast<std::size_t>(world_rank());
  for (std::size_t d = 0; d < dumps; ++d) {
    Offsets& o = out[d];
    for (std::size_t i = 0; i < Offsets::kCount; ++i) {
      o.mine[i] = mine[d * Offsets::kCount + i];
      o.before[i] = before[d * Offsets::kCount + i];
      o.total[i] = total[d * Offsets::kCount + i];
    }
    // Shares are contiguous in rank order: this process writes the matrix rows from its first rank
    // (from 0 for the first process with files) up to the next process's first rank (or n).
    const auto first_of = [&](std::size_t k) { return all_firsts[k * dumps + d]; };
    if (first_of(rank) == kNoRank) continue;
    bool earlier = false;
    for (std::size_t k = 0; k < rank; ++k) earlier |= first_of(k) != kNoRank;
    o.writes_row_zero = !earlier;
    o.first_row = earlier ? first_of(rank) : 0;
    o.end_row = layouts[d].n;
    for (std::size_t k = rank + 1; k < static_cast<std::size_t>(processes); ++k) {
      if (first_of(k) != kNoRank) {
        o.end_row = first_of(k);
        break;
      }
    }
  }
  return out;
}

// ---- the collective writing ---------------------------------------------------------------------

/// A dense n x n matrix left for rank 0 to create: its class group and name.
struct Unwritten {
  std::string where;
  std::string name;
  std::uint32_t n = 0;
};

class SharedFileWriter {
 public:
  explicit SharedFileWriter(hid_t file)
      : file_(file), dxpl_(h5::check(H5Pcreate(H5P_DATASET_XFER), "", "property list")) {
    h5::check_status(H5Pset_dxpl_mpio(dxpl_.get(), H5FD_MPIO_COLLECTIVE), "", "collective transfer");
  }

  /// Rank 0: the dense matrices without traffic, left to create.
  [[nodiscard]] const std::vector<Unwritten>& unwritten() const { return unwritten_; }

  /// `table`: the dump's communicator table on rank 0 (null elsewhere).
  void write_dump(const DumpInputs& inputs, DumpShare& share, const DumpLayout& layout, const Offsets& o,
                  const md::CommunicatorTable* table) {
    table_ = table;
    const std::string where = "/" + inputs.name;
    h5::Handle group = h5::create_group(file_, inputs.name, "/");
    write_histograms(group.get(), where, share, o);
    for (TrafficClass c : kAllTrafficClasses) write_class(group.get(), where, c, share, layout, o);
    write_communicators(group.get(), where, share, layout, o);
    md::write_dump_attributes(group.get(), layout.n, layout.ranks_present, layout.internal_distinguished, inputs,
                              layout.csr);
  }

 private:
  template <typename T>
  void write(hid_t ds, std::uint64_t first, const std::vector<T>& rows_data, std::uint64_t rows,
             const std::string& where) {
    h5::write_slab(ds, rows == 0 ? 0 : first, rows, h5::TypeOf<T>::memory(), rows_data.data(), where, dxpl_.get());
  }

  // The datasets the serial merge appends to (chunked, extendable), made at their final size.
  template <typename T>
  void write_extendable(hid_t parent, const std::string& name, hsize_t columns, std::uint64_t total,
                        std::uint64_t first, const std::vector<T>& data, const std::string& where) {
    h5::Handle ds = h5::create_extendable(parent, name, columns, md::kHistogramChunkRows, h5::TypeOf<T>::file(), where);
    h5::set_rows(ds.get(), total, columns, where + "/" + name);
    write(ds.get(), first, data, data.size() / columns, where + "/" + name);
  }

  void write_histograms(hid_t group, const std::string& dump_where, const DumpShare& share, const Offsets& o) {
    const std::string where = dump_where + "/histogram";
    h5::Handle g = h5::create_group(group, "histogram", dump_where);
    write_extendable(g.get(), "pairs", 2, o.total[Offsets::kHistograms], o.before[Offsets::kHistograms],
                     share.histogram_pairs, where);
    // indptr has one more row than there are histograms: its leading 0 is rank 0's.
    std::vector<std::int64_t> indptr;
    if (world_rank() == 0) indptr.push_back(0);
    for (auto end : share.histograms.ends)
      indptr.push_back(static_cast<std::int64_t>(o.before[Offsets::kBuckets] + end));
    const std::uint64_t first = world_rank() == 0 ? 0 : 1 + o.before[Offsets::kHistograms];
    write_extendable(g.get(), "indptr", 1, o.total[Offsets::kHistograms] + 1, first, indptr, where);
    write_extendable(g.get(), "bucket", 1, o.total[Offsets::kBuckets], o.before[Offsets::kBuckets],
                     share.histograms.bucket, where);
    write_extendable(g.get(), "count", 1, o.total[Offsets::kBuckets], o.before[Offsets::kBuckets],
                     share.histograms.count, where);
    md::write_histogram_attributes(g.get());
  }

  void write_class(hid_t group, const std::string& dump_where, TrafficClass c, DumpShare& share,
                   const DumpLayout& layout, const Offsets& o) {
    const std::string where = dump_where + "/" + std::string(class_name(c));
    h5::Handle g = h5::create_group(group, std::string(class_name(c)), dump_where);
    const auto k = static_cast<std::size_t>(c);
    md::ClassRows& rows = share.rows.classes[k];
    const std::uint64_t before = o.before[Offsets::kClasses + k];
    const std::uint64_t total = o.total[Offsets::kClasses + k];
    for (Metric m : {Metric::count, Metric::bytes}) {
      const std::string name(metric_name(m));
      if (layout.csr) {
        write_csr(g.get(), name, where, rows, rows.values(m), layout.n, before, total, o);
      } else {
        write_dense(g.get(), name, where, rows, rows.values(m), layout.n, total, o);
      }
    }
  }

  void write_csr(hid_t parent, const std::string& name, const std::string& class_where, const md::ClassRows& rows,
                 const std::vector<std::uint64_t>& values, std::uint32_t n, std::uint64_t before, std::uint64_t total,
                 const Offsets& o) {
    const std::string where = class_where + "/" + name;
    h5::Handle g = h5::create_group(parent, name, class_where);
    md::write_csr_attributes(g.get(), n);
    const hsize_t nnz[] = {total};
    h5::Handle data = h5::create_dataset(g.get(), "data", nnz, H5T_STD_U64LE, where);
    if (total > 0) write(data.get(), before, values, values.size(), where + "/data");
    h5::Handle indices = h5::create_dataset(g.get(), "indices", nnz, H5T_STD_I64LE, where);
    if (total > 0) {
      const std::vector<std::int64_t> wide(rows.indices.begin(), rows.indices.end());
      write(indices.get(), before, wide, wide.size(), where + "/indices");
    }
    const hsize_t rows_plus_one[] = {std::uint64_t{n} + 1};
    h5::Handle indptr = h5::create_dataset(g.get(), "indptr", rows_plus_one, H5T_STD_I64LE, where);
    std::vector<std::int64_t> ends;
    if (o.writes_row_zero) ends.push_back(0);
    for (auto e : rows.ends_between(o.first_row, o.end_row, before)) ends.push_back(static_cast<std::int64_t>(e));
    write(indptr.get(), o.writes_row_zero ? 0 : std::uint64_t{o.first_row} + 1, ends, ends.size(), where + "/indptr");
  }

  // By blocks of rows of about 1 MiB; every process takes part in as many collective writes as
  // the process with the most rows, with an empty selection once its own rows are written.
  void write_dense(hid_t parent, const std::string& name, const std::string& class_where, const md::ClassRows& rows,
                   const std::vector<std::uint64_t>& values, std::uint32_t n, std::uint64_t total, const Offsets& o) {
    const std::string where = class_where + "/" + name;
    // A class without traffic is never written, as in the serial merge, where it then takes no
    // space; MPI-IO would allocate it at creation: rank 0 creates it after the collective part.
    if (total == 0) {
      if (world_rank() == 0) unwritten_.push_back({class_where, name, n});
      return;
    }
    h5::Handle ds = h5::create_dense(parent, name, n, n, class_where);
    const std::uint32_t block = md::dense_block_rows(n);
    const std::uint32_t mine = o.end_row - o.first_row;
    std::uint64_t blocks = (mine + block - 1) / block;
    MPI_Allreduce(MPI_IN_PLACE, &blocks, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    std::vector<std::uint64_t> indptr{0};
    for (auto e : rows.ends_between(o.first_row, o.end_row, 0)) indptr.push_back(e);
    for (std::uint64_t b = 0; b < blocks; ++b) {
      const auto first = static_cast<std::uint32_t>(std::min<std::uint64_t>(b * block, mine));
      const std::uint32_t count = std::min(block, mine - first);
      if (count > 0) md::fill_dense_rows(first, count, n, indptr, rows.indices, values, buffer_);
      write(ds.get(), std::uint64_t{o.first_row} + first, buffer_, count, where);
    }
  }

  void write_communicators(hid_t group, const std::string& dump_where, DumpShare& share, const DumpLayout& layout,
                           const Offsets& o) {
    const std::string where = dump_where + "/communicators";
    h5::Handle g = h5::create_group(group, "communicators", dump_where);
    // Variable-length strings cannot be written through MPI-IO: rank 0 fills the names later.
    h5::create_strings(g.get(), "names", layout.communicators, where);
    const bool zero = world_rank() == 0;
    const hsize_t members_dims[] = {layout.members};
    h5::Handle members = h5::create_dataset(g.get(), "members", members_dims, H5T_STD_I64LE, where);
    if (layout.members > 0) write(members.get(), 0, zero ? table_->members : none_, zero ? layout.members : 0, where);
    const hsize_t indptr_dims[] = {layout.communicators + 1};
    h5::Handle indptr = h5::create_dataset(g.get(), "members_indptr", indptr_dims, H5T_STD_I64LE, where);
    write(indptr.get(), 0, zero ? table_->members_indptr : none_, zero ? layout.communicators + 1 : 0, where);
    std::vector<std::uint64_t>& records = share.rows.comm_rows;
    const std::size_t columns = md::kCommColumns.size();
    for (std::size_t r = 0; r < records.size(); r += columns) records[r] = layout.comm_map[records[r]];
    const hsize_t records_dims[] = {o.total[Offsets::kRecords], columns};
    h5::Handle ds = h5::create_dataset(g.get(), "records", records_dims, H5T_STD_U64LE, where);
    if (o.total[Offsets::kRecords] > 0)
      write(ds.get(), o.before[Offsets::kRecords], records, o.mine[Offsets::kRecords], where + "/records");
    md::write_comm_columns(ds.get());
  }

  hid_t file_;
  const md::CommunicatorTable* table_ = nullptr;
  std::vector<Unwritten> unwritten_;
  h5::Handle dxpl_;
  std::vector<std::uint64_t> buffer_;
  const std::vector<std::int64_t> none_;
};

}  // namespace

std::vector<DumpSummary> write_shares(const std::vector<DumpInputs>& dumps, std::vector<DumpShare>& shares,
                                      const std::string& temporary, const std::string& output, AtomicOutput* out,
                                      const MergeOptions& options) {
  const int rank = world_rank();
  const int processes = world_size();
  // Rank 0 checks the dumps as wholes, from every share's summary, dump by dump.
  Decision decision;
  Outcome outcome;
  std::vector<char> decided;
  if (rank != 0) {
    for (const DumpShare& share : shares) send_bytes(summarise(share), 0);
  } else {
    try {
      decided = decide(dumps, shares, processes, options, decision);
    } catch (...) {
      outcome = Outcome::of_current_exception();
    }
  }
  share_outcome(outcome);
  broadcast_bytes(decided);
  read_decision(decided, dumps.size(), rank, processes, decision);
  const std::vector<Offsets> offsets = offsets_of(shares, decision.dumps);

  // Every process writes its rows into the one file, collectively. A process that fails here
  // cannot tell the others, which may be waiting in a collective call it will never make: it ends
  // the merge (abort_merge) without closing the file (a collective call too).
  std::vector<Unwritten> unwritten;
  h5::Handle file;
  try {
    file = h5::create_file(temporary, [&](hid_t fapl) {
      h5::check_status(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), temporary, "MPI-IO driver");
      h5::check_status(H5Pset_all_coll_metadata_ops(fapl, true), temporary, "collective metadata");
      h5::check_status(H5Pset_coll_metadata_write(fapl, true), temporary, "collective metadata");
    });
    md::write_root_attributes(file.get(), options, decision.created_utc);
    SharedFileWriter writer(file.get());
    for (std::size_t d = 0; d < dumps.size(); ++d)
      writer.write_dump(dumps[d], shares[d], decision.dumps[d], offsets[d], rank == 0 ? &decision.tables[d] : nullptr);
    unwritten = writer.unwritten();
    h5::flush(file.get(), output);  // the metadata's writes fail here rather than unseen in the close
  } catch (...) {
    abort_merge(md::write_failure(output, Outcome::of_current_exception().message), temporary);
  }
  file.reset();
  MPI_Barrier(MPI_COMM_WORLD);  // every process has written (or one has aborted the merge)

  // Then rank 0 alone: the communicator names, the dense matrices without traffic, the rename.
  if (rank == 0) {
    try {
      file = h5::open_file_readwrite(temporary);
      for (const auto& [where, name, n] : unwritten) {
        h5::Handle g = h5::open_group(file.get(), where, "");
        (void)h5::create_dense(g.get(), name, n, n, where);
      }
      for (std::size_t d = 0; d < dumps.size(); ++d) {
        const std::string where = "/" + dumps[d].name + "/communicators";
        h5::Handle g = h5::open_group(file.get(), where, "");
        h5::Handle names = h5::open_dataset(g.get(), "names", where);
        if (!decision.tables[d].names.empty())
          h5::fill_strings(names.get(), decision.tables[d].names, where + "/names");
      }
      h5::flush(file.get(), out->path());
      file.reset();
      out->commit();
    } catch (...) {
      outcome = Outcome::of_current_exception();
      outcome.message = md::write_failure(output, outcome.message);
    }
  }
  share_outcome(outcome);
  return decision.summaries;
}

}  // namespace mpimon::parallel_detail
