// mpimon-overhead-bench's command line: operations, sizes, the designs' options.

#include "overhead_bench.hpp"

#include <algorithm>
#include <charconv>
#include <limits>

#include "mpimon/overhead_design/interleave.hpp"
#include "mpimon/overhead_design/sizes.hpp"

namespace mpimon::bench {

namespace {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  for (std::size_t start = 0;;) {
    const std::size_t end = text.find(sep, start);
    out.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return out;
    start = end + 1;
  }
}

template <class T>
T parse_number(std::string_view text, std::string_view what, T min, T max) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() || value < min || value > max)
    throw UsageError(std::string(what) + ": '" + std::string(text) + "' is not an integer in [" + std::to_string(min) +
                     ", " + std::to_string(max) + "]");
  return value;
}

std::vector<Op> parse_ops(std::string_view list) {
  std::vector<Op> ops;
  for (std::string_view name : split(list, ',')) {
    const std::optional<Op> op = parse_bench_op(name);
    if (!op) throw UsageError("--ops: unknown operation '" + std::string(name) + "'");
    if (std::find(ops.begin(), ops.end(), *op) != ops.end())
      throw UsageError("--ops: '" + std::string(name) + "' given twice");
    ops.push_back(*op);
  }
  return ops;
}

std::vector<int> parse_sizes(std::string_view spec) {
  if (auto named = named_sizes(spec)) return *named;
  std::vector<int> sizes;
  for (std::string_view item : split(spec, ',')) {
    const int size = parse_number<int>(item, "--sizes", 0, std::numeric_limits<int>::max());
    if (std::find(sizes.begin(), sizes.end(), size) != sizes.end())
      throw UsageError("--sizes: " + std::to_string(size) + " given twice");
    sizes.push_back(size);
  }
  return sizes;
}

}  // namespace

std::string usage() {
  return "usage: mpimon-overhead-bench [--ops LIST] [--sizes " + sizes_synopsis() +
         "] [--iterations N] [--warmup W]\n"
         "                             [--seed S] [--samples FILE] [--mpit-off] [--clock C]\n"
         "                             [--interleave B [--switch S] [--blocks FILE]] [--benchmark_* flags]\n"
         "  --ops LIST      comma list of " +
         bench_op_names() +
         "; default: all\n"
         "  --sizes SPEC    comma list of byte counts, " +
         named_sizes_help() +
         "; default paper\n"
         "  --iterations N  timed iterations per (op, size), default 1000\n"
         "  --warmup W      untimed iterations before them, default 100\n"
         "  --seed S        seed of the shuffled run order (rank 0's value is used), default 12345\n"
         "  --samples FILE  rank 0 writes every per-iteration maximum: op<TAB>size<TAB>v1,...,vN (ns)\n"
         "  --mpit-off      switch Open MPI's monitoring off through MPI_T right after MPI_Init\n"
         "  --interleave B  interleaved design: timed iterations in blocks of B, the cost switched on and off in\n"
         "                  ABBA order (iterations must be a multiple of 2B)\n"
         "  --switch S      what --interleave switches: mpit (monitoring's counting, default) or delay (the\n"
         "                  calibration library's loop)\n"
         "  --blocks FILE   rank 0 writes each run's blocks: op<TAB>size<TAB>B<TAB>states<TAB>counted\n"
         "  --clock C       auto (the invariant TSC when usable on every rank, default), tsc (or fail), monotonic\n"
         "See docs/benchmarks.md.\n";
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    std::string_view key = arg, value;
    bool has_value = false;
    if (const auto eq = arg.find('='); arg.starts_with("--") && eq != std::string_view::npos) {
      key = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      has_value = true;
    }
    auto take_value = [&]() -> std::string_view {
      if (has_value) return value;
      if (i + 1 >= argc) throw UsageError(std::string(key) + " needs a value");
      return argv[++i];
    };
    if (key == "--ops") {
      o.ops = parse_ops(take_value());
    } else if (key == "--sizes") {
      o.sizes_spec = take_value();
    } else if (key == "--iterations") {
      o.iterations = parse_number<int>(take_value(), "--iterations", 1, 100'000'000);
    } else if (key == "--warmup") {
      o.warmup = parse_number<int>(take_value(), "--warmup", 0, 100'000'000);
    } else if (key == "--seed") {
      o.seed = parse_number<std::uint64_t>(take_value(), "--seed", 0, std::numeric_limits<std::uint64_t>::max());
    } else if (key == "--samples") {
      o.samples = take_value();
      if (o.samples.empty()) throw UsageError("--samples needs a file name");
    } else if (key == "--interleave") {
      o.interleave = parse_number<int>(take_value(), "--interleave", 1, 100'000'000);
    } else if (key == "--switch") {
      o.switch_kind = take_value();
      if (o.switch_kind != "mpit" && o.switch_kind != "delay")
        throw UsageError("--switch: '" + o.switch_kind + "' is not mpit or delay");
    } else if (key == "--blocks") {
      o.blocks = take_value();
      if (o.blocks.empty()) throw UsageError("--blocks needs a file name");
    } else if (key == "--clock") {
      o.clock = take_value();
      if (o.clock != "auto" && o.clock != "tsc" && o.clock != "monotonic")
        throw UsageError("--clock: '" + o.clock + "' is not auto, tsc or monotonic");
    } else if (arg == "--mpit-off") {
      o.mpit_off = true;
    } else if (arg == "--help" || arg == "-h") {
      o.help = true;
    } else {
      // These would break the fixed, rank-identical run structure (or, for repetitions, the
      // one-samples-line-per-benchmark rule): random interleaving shuffles per rank.
      for (const char* banned :
           {"--benchmark_enable_random_interleaving", "--benchmark_repetitions", "--benchmark_min_warmup_time"})
        if (key == banned)
          throw UsageError(std::string(banned) +
                           " is not supported: the order is shuffled with --seed, repeat by launching again");
      o.benchmark_args.emplace_back(arg);
    }
  }
  if (o.interleave > 0) {
    if (const std::string e =
            mpimon::abba_plan_error(static_cast<std::size_t>(o.iterations), static_cast<std::size_t>(o.interleave));
        !e.empty())
      throw UsageError("--interleave: " + e);
    if (o.mpit_off) throw UsageError("--interleave and --mpit-off: give one");
  }
  o.sizes = parse_sizes(o.sizes_spec);
  if (o.sizes.empty()) throw UsageError("--sizes: empty list");
  return o;
}

std::string join(const std::vector<int>& values) {
  std::string out;
  for (int v : values) out += (out.empty() ? "" : ",") + std::to_string(v);
  return out;
}

}  // namespace mpimon::bench
