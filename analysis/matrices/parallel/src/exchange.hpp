#pragma once
// Bytes between the processes of the parallel merge: plain values packed into one buffer, sent,
// gathered or broadcast in pieces that fit MPI's int counts, and the errors that every process
// must share.

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "mpimon/base/error.hpp"

namespace mpimon::parallel_detail {

class Packer {
 public:
  template <typename T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const auto* p = reinterpret_cast<const char*>(&v);
    bytes_.insert(bytes_.end(), p, p + sizeof v);
  }
  void put_string(const std::string& s) {
    put<std::uint64_t>(s.size());
    bytes_.insert(bytes_.end(), s.begin(), s.end());
  }
  template <typename T>
  void put_vector(const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    put<std::uint64_t>(v.size());
    const auto* p = reinterpret_cast<const char*>(v.data());
    bytes_.insert(bytes_.end(), p, p + v.size() * sizeof(T));
  }
  void put_strings(const std::vector<std::string>& v) {
    put<std::uint64_t>(v.size());
    for (const auto& s : v) put_string(s);
  }
  std::vector<char>& bytes() { return bytes_; }

 private:
  std::vector<char> bytes_;
};

class Unpacker {
 public:
  explicit Unpacker(const std::vector<char>& bytes) : bytes_(bytes) {}
  template <typename T>
  T get() {
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof v);
    at_ += sizeof v;
    return v;
  }
  std::string get_string() {
    const auto n = get<std::uint64_t>();
    std::string s(bytes_.data() + at_, n);
    at_ += n;
    return s;
  }
  template <typename T>
  std::vector<T> get_vector() {
    std::vector<T> v(get<std::uint64_t>());
    std::memcpy(v.data(), bytes_.data() + at_, v.size() * sizeof(T));
    at_ += v.size() * sizeof(T);
    return v;
  }
  std::vector<std::string> get_strings() {
    std::vector<std::string> v(get<std::uint64_t>());
    for (auto& s : v) s = get_string();
    return v;
  }

 private:
  const std::vector<char>& bytes_;
  std::size_t at_ = 0;
};

void send_bytes(const std::vector<char>& bytes, int to);
std::vector<char> receive_bytes(int from);
/// Rank 0's bytes, on every process.
void broadcast_bytes(std::vector<char>& bytes, int root = 0);

/// An error as it crosses processes: its kind (or none) and its message.
struct Outcome {
  bool failed = false;
  Error::Kind kind = Error::Kind::input;
  std::string message;

  /// The exception being handled, as an outcome.
  static Outcome of_current_exception();
  [[noreturn]] void raise() const { throw Error(kind, message); }
  void pack(Packer& out) const;
  static Outcome unpack(Unpacker& in);
};

/// `root`'s outcome, made every process's: all throw the same error when it failed.
void share_outcome(const Outcome& mine, int root = 0);

/// Processes other than rank 0 print nothing (rank 0 reports for all): their standard output and
/// error go to /dev/null. A copy of the user's standard error is kept for abort_merge, whose
/// message begins with `program`.
void report_from_rank_zero(const std::string& program);

/// The exit code of a merge that abort_merge ended: mpimon's code for every failure but a usage
/// error (docs/cli.md).
inline constexpr int kAbortExitCode = 1;

/// Ends the whole merge from this process alone, when the others may be waiting in a collective
/// call it will never make (an HDF5 write that fails in some processes only: a full disk, which
/// with MPI-IO's collective buffering only the aggregators see). Prints `message` and this
/// process's rank on the user's standard error, removes `temporary`, and MPI_Abort ends every
/// process with kAbortExitCode.
[[noreturn]] void abort_merge(const std::string& message, const std::string& temporary);

}  // namespace mpimon::parallel_detail
