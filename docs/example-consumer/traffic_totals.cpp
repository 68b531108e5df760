// traffic-totals FILE...: the bytes and messages per traffic class of Open MPI monitoring dumps
// (NAME.RANK.prof, one rank each) and of mpimon matrices files (.h5, every dump), read with
// mpimon's matrices library (find_package(mpimon COMPONENTS matrices), target mpimon::matrices).

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "mpimon/base/error.hpp"
#include "mpimon/matrices/matrix_file.hpp"
#include "mpimon/matrices/prof.hpp"

namespace {

struct Load {
  std::uint64_t bytes = 0;
  std::uint64_t messages = 0;
};

void print(const std::string& what, const std::map<mpimon::TrafficClass, Load>& loads) {
  for (const auto& [c, load] : loads) {
    std::printf("%s %s: %llu bytes, %llu messages\n", what.c_str(), std::string(mpimon::class_name(c)).c_str(),
                static_cast<unsigned long long>(load.bytes), static_cast<unsigned long long>(load.messages));
  }
}

std::uint64_t sum(const mpimon::SparseMatrix& m) {
  std::uint64_t total = 0;
  mpimon::for_each_nonzero(m, [&](std::uint32_t, std::uint32_t, std::uint64_t v) { total += v; });
  return total;
}

void prof_totals(const std::string& path) {
  const mpimon::RankProfile profile = mpimon::read_prof_file(path, mpimon::parse_prof_name(path).rank);
  std::map<mpimon::TrafficClass, Load> loads;
  for (auto c : mpimon::kAllTrafficClasses) loads[c] = {};
  for (const auto& pair : profile.pairs) {
    loads[pair.traffic_class].bytes += pair.bytes;
    loads[pair.traffic_class].messages += pair.count;
  }
  print(path + " rank " + std::to_string(profile.rank), loads);
}

void matrices_totals(const std::string& path) {
  const mpimon::MatrixFile file(path);
  for (const auto& dump : file.dumps()) {
    std::map<mpimon::TrafficClass, Load> loads;
    for (auto c : mpimon::kAllTrafficClasses) {
      loads[c] = {sum(file.matrix(dump, c, mpimon::Metric::bytes)), sum(file.matrix(dump, c, mpimon::Metric::count))};
    }
    print(path + " dump " + dump + " (" + std::to_string(file.info(dump).nprocs) + " processes)", loads);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: traffic-totals FILE.prof|FILE.h5...\n");
    return 2;
  }
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string path = argv[i];
      if (path.ends_with(".prof")) {
        prof_totals(path);
      } else {
        matrices_totals(path);
      }
    }
  } catch (const mpimon::Error& e) {
    std::fprintf(stderr, "traffic-totals: %s\n", e.what());
    return 1;
  }
  return 0;
}
