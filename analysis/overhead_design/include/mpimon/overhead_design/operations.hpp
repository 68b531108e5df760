#pragma once
// The operations mpimon-overhead-bench times (docs/benchmarks.md), one table read by the program
// that runs them and by `mpimon bench overhead`, which checks --ops before it launches anything.

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <string_view>

#include "mpimon/base/names.hpp"

namespace mpimon {

enum class BenchOp { send, pingpong, bcast, alltoall, put_lock, put_flush, get_lock, get_flush };

inline constexpr std::array<Named<BenchOp>, 8> kBenchOpNames{{{BenchOp::send, "send"},
                                                              {BenchOp::pingpong, "pingpong"},
                                                              {BenchOp::bcast, "bcast"},
                                                              {BenchOp::alltoall, "alltoall"},
                                                              {BenchOp::put_lock, "put_lock"},
                                                              {BenchOp::put_flush, "put_flush"},
                                                              {BenchOp::get_lock, "get_lock"},
                                                              {BenchOp::get_flush, "get_flush"}}};

/// The operation a --ops word names: a name of the table, or put and get, the short names of the
/// locked forms; nullopt for anything else.
constexpr std::optional<BenchOp> parse_bench_op(std::string_view name) {
  if (name == "put") return BenchOp::put_lock;
  if (name == "get") return BenchOp::get_lock;
  return from_name(kBenchOpNames, name);
}

constexpr bool is_rma(BenchOp op) {
  return op == BenchOp::put_lock || op == BenchOp::put_flush || op == BenchOp::get_lock || op == BenchOp::get_flush;
}

/// "send, pingpong, ..., get_flush (put = put_lock, get = get_lock)": for help and errors.
inline std::string bench_op_names() {
  std::string out;
  for (const auto& entry : kBenchOpNames) out += (out.empty() ? "" : ", ") + std::string(entry.name);
  return out + " (put = put_lock, get = get_lock)";
}

}  // namespace mpimon
