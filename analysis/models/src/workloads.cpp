#include "mpimon/models/workloads.hpp"

#include <algorithm>

namespace mpimon::models {

bool is_workload(std::string_view name) {
  return std::any_of(kWorkloadKinds.begin(), kWorkloadKinds.end(), [&](const auto& w) { return w.name == name; });
}

bool is_workload_class(std::string_view name) {
  return std::find(kWorkloadClasses.begin(), kWorkloadClasses.end(), name) != kWorkloadClasses.end();
}

std::string workload_list() {
  std::string s;
  for (std::size_t i = 0; i < kWorkloadKinds.size(); ++i) {
    if (i > 0) s += i + 1 == kWorkloadKinds.size() ? " and " : ", ";
    s += kWorkloadKinds[i].name;
  }
  return s;
}

std::string all_workloads_option() {
  std::string s;
  for (const auto& w : kWorkloadKinds) s += (s.empty() ? "" : ",") + std::string(w.name);
  return s;
}

}  // namespace mpimon::models
