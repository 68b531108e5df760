#pragma once
// The two files mpimon-overhead-bench writes on rank 0 for the harness (docs/benchmarks.md), one
// line per benchmark, tab-separated: --samples FILE, every per-iteration maximum over ranks
// (`op<TAB>size<TAB>v1,...,vN`, ns), and --blocks FILE, each interleaved run's blocks
// (`op<TAB>size<TAB>B<TAB>states<TAB>c1,...,cK`). Each line's writer beside its reader: the program
// writes with these, mpimon::results reads with them.

#include <cmath>
#include <cstdint>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "mpimon/base/error.hpp"

namespace mpimon {

/// One line of the samples file: a benchmark's samples (ns).
struct SamplesLine {
  std::string op;
  std::uint64_t size = 0;
  std::vector<double> ns;
};

/// The blocks of one benchmark of an interleaved launch, as mpimon-overhead-bench wrote them.
struct BenchmarkBlocks {
  std::string op;
  std::uint64_t size = 0;
  std::uint64_t block_length = 0;
  std::string states;  ///< per block '1' (switched on) or '0' (off)
  /// Per block, the collective records the monitoring counted during it on rank 0 (MPI_T), or
  /// absent when the switch cannot read them (the calibration library).
  std::vector<std::optional<std::uint64_t>> counted;
};

namespace bench_files_detail {

/// An unsigned integer that is the whole of `text`; throws std::invalid_argument otherwise.
inline std::uint64_t whole_number(const std::string& text) {
  std::size_t used = 0;
  const auto value = std::stoull(text, &used);
  if (used != text.size()) throw std::invalid_argument(text);
  return value;
}

}  // namespace bench_files_detail

/// `op<TAB>size<TAB>v1,...,vN` and a newline.
template <typename Sample>
std::string samples_line(std::string_view op, std::uint64_t size, const std::vector<Sample>& ns) {
  std::string line = std::string(op) + '\t' + std::to_string(size) + '\t';
  for (std::size_t i = 0; i < ns.size(); ++i) line += (i ? "," : "") + std::to_string(ns[i]);
  return line + '\n';
}

/// Line `number` of the samples file `where` (not empty); throws Error{input} naming where:number.
inline SamplesLine parse_samples_line(const std::string& line, const std::string& where, std::size_t number) {
  std::istringstream fields(line);
  SamplesLine b;
  std::string size, values;
  if (!std::getline(fields, b.op, '\t') || !std::getline(fields, size, '\t') || !std::getline(fields, values)) {
    raise_input_error(where, number, "expected op<TAB>size<TAB>values");
  }
  try {
    b.size = bench_files_detail::whole_number(size);
    std::istringstream list(values);
    for (std::string v; std::getline(list, v, ',');) {
      std::size_t used = 0;
      const double x = std::stod(v, &used);
      if (used != v.size() || !std::isfinite(x) || x < 0) throw std::invalid_argument(v);
      b.ns.push_back(x);
    }
  } catch (const std::exception&) {
    raise_input_error(where, number, "not a size and a list of non-negative numbers");
  }
  if (b.ns.empty()) raise_input_error(where, number, "no samples");
  return b;
}

/// `op<TAB>size<TAB>B<TAB>states<TAB>c1,...,cK` (`-` for an unread count) and a newline.
inline std::string blocks_line(const BenchmarkBlocks& b) {
  std::string counted;
  for (std::size_t k = 0; k < b.counted.size(); ++k)
    counted += (k ? "," : "") + (b.counted[k] ? std::to_string(*b.counted[k]) : std::string("-"));
  return b.op + '\t' + std::to_string(b.size) + '\t' + std::to_string(b.block_length) + '\t' + b.states + '\t' +
         counted + '\n';
}

/// Line `number` of a blocks file `where` (not empty); throws Error{input} naming where:number.
inline BenchmarkBlocks parse_blocks_line(const std::string& line, const std::string& where, std::size_t number) {
  std::istringstream fields(line);
  BenchmarkBlocks b;
  std::string size, length, counted;
  if (!std::getline(fields, b.op, '\t') || !std::getline(fields, size, '\t') || !std::getline(fields, length, '\t') ||
      !std::getline(fields, b.states, '\t') || !std::getline(fields, counted)) {
    raise_input_error(where, number, "expected op<TAB>size<TAB>B<TAB>states<TAB>counted");
  }
  try {
    b.size = bench_files_detail::whole_number(size);
    b.block_length = bench_files_detail::whole_number(length);
    if (b.block_length == 0) throw std::invalid_argument(length);
    if (b.states.empty() || b.states.find_first_not_of("01") != std::string::npos)
      throw std::invalid_argument(b.states);
    std::istringstream list(counted);
    for (std::string v; std::getline(list, v, ',');) {
      b.counted.push_back(v == "-" ? std::nullopt : std::optional(bench_files_detail::whole_number(v)));
    }
  } catch (const std::exception&) {
    raise_input_error(where, number, "not a size, a block length, 0/1 states and counts");
  }
  if (b.counted.size() != b.states.size()) raise_input_error(where, number, "not one count per block");
  return b;
}

}  // namespace mpimon
