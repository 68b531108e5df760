// mpimon-pvars: lists the MPI_T performance variables the MPI library offers, as seen before
// MPI_Init (after MPI_T_init_thread) and after it, and says which ones stop being usable.
// Usage: mpimon-pvars [--all]     (default: only variables whose name contains "monitoring")
// `mpimon pvars` runs it under mpirun with the monitoring enabled.

#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "mpimon/mpi/mpit.hpp"

namespace {

using mpimon::mpi::PvarInfo;

std::map<std::string, PvarInfo> by_name(const std::vector<PvarInfo>& list, bool all) {
  std::map<std::string, PvarInfo> m;
  for (const auto& p : list) {
    if (all || p.name.find("monitoring") != std::string::npos) m[p.name] = p;
  }
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  const bool all = argc > 1 && std::strcmp(argv[1], "--all") == 0;
  int provided = 0;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  std::vector<int> failed_before, failed_after;
  auto before = by_name(mpimon::mpi::list_pvars(&failed_before), all);
  MPI_Init(&argc, &argv);
  auto after = by_name(mpimon::mpi::list_pvars(&failed_after), all);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(version, &len);
    std::printf("library: %.*s\n", static_cast<int>(std::strcspn(version, "\n")), version);
    std::printf("%-36s %-10s %-5s %-3s %-23s %s\n", "variable", "class", "bind", "ro", "after", "description");
    for (const auto& [name, p] : before) {
      int error = 0;
      bool usable = mpimon::mpi::find_pvar(name, p.var_class, &error).has_value();
      std::printf("%-36s %-10s %-5s %-3s %-23s %s\n", name.c_str(), mpimon::mpi::pvar_class_name(p.var_class),
                  mpimon::mpi::bind_name(p.bind), p.readonly ? "yes" : "no",
                  usable ? "ok" : mpimon::mpi::mpit_error_name(error).c_str(), p.description.c_str());
    }
    for (const auto& [name, p] : after) {
      if (!before.count(name)) {
        std::printf("%-36s %-10s %-5s %-3s %-23s %s\n", name.c_str(), mpimon::mpi::pvar_class_name(p.var_class),
                    mpimon::mpi::bind_name(p.bind), p.readonly ? "yes" : "no", "new", p.description.c_str());
      }
    }
    std::printf("%zu variables listed; %zu of all variables unreadable before MPI_Init, %zu after\n", before.size(),
                failed_before.size(), failed_after.size());
  }
  MPI_T_finalize();  // before MPI_Finalize: after it, Open MPI 4.1 crashes in MPI_T_finalize
  MPI_Finalize();
  return 0;
}
