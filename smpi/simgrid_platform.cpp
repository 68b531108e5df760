// mpimon-simgrid-platform PLATFORM.xml [HOST...]: reads a SimGrid platform with SimGrid itself, so
// that `mpimon simulate` refuses a bad platform, or a rankfile naming a host it lacks, before any
// simulation starts (docs/simulate.md). Prints, one per line:
//   simgrid VERSION
//   host NAME CORES SPEED_FLOPS          every host of the platform, in SimGrid's order
//   property ZONE KEY VALUE              every property of every network zone
// With HOST arguments, also checks that each is a host of the platform and that a route leads from
// the first to each of the others and back (a platform whose hosts are not connected fails at the
// first message otherwise). Exit 0, or 1 with "error: WHY" (SimGrid's parse errors name the file and
// line) on standard error.

#include <simgrid/s4u.hpp>  // first: simgrid/version.h needs the macros it defines
// Separate block: clang-format keeps the order.
#include <simgrid/version.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace {

void print_properties(const simgrid::s4u::NetZone* zone) {
  if (const auto* properties = zone->get_properties()) {
    for (const auto& [key, value] : *properties) {
      std::printf("property %s %s %s\n", zone->get_cname(), key.c_str(), value.c_str());
    }
  }
  for (const auto* child : zone->get_children()) print_properties(child);
}

simgrid::s4u::Host* host_named(const simgrid::s4u::Engine& engine, const std::string& name) {
  auto* host = engine.host_by_name_or_null(name);
  if (host == nullptr) throw std::runtime_error("the platform has no host named '" + name + "'");
  return host;
}

void check_route(simgrid::s4u::Host* from, simgrid::s4u::Host* to) {
  std::vector<simgrid::s4u::Link*> links;
  double latency = 0;
  from->route_to(to, links, &latency);
  if (links.empty() && from != to) {
    throw std::runtime_error(std::string("no route from host ") + from->get_cname() + " to host " + to->get_cname());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: mpimon-simgrid-platform PLATFORM.xml [HOST...]\n");
    return 2;
  }
  try {
    int engine_argc = 2;
    std::string quiet = "--log=root.thresh:error";
    char* engine_argv[] = {argv[0], quiet.data(), nullptr};
    simgrid::s4u::Engine engine(&engine_argc, engine_argv);
    engine.load_platform(argv[1]);
    std::printf("simgrid %d.%d.%d\n", SIMGRID_VERSION_MAJOR, SIMGRID_VERSION_MINOR, SIMGRID_VERSION_PATCH);
    for (const auto* host : engine.get_all_hosts()) {
      std::printf("host %s %d %.17g\n", host->get_cname(), host->get_core_count(), host->get_speed());
    }
    print_properties(engine.get_netzone_root());
    if (argc > 2) {
      auto* first = host_named(engine, argv[2]);
      for (int i = 3; i < argc; ++i) {
        auto* other = host_named(engine, argv[i]);
        check_route(first, other);
        check_route(other, first);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
