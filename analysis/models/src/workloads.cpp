#include "mpimon/models/workloads.hpp"

#include <algorithm>
#include <vector>

namespace mpimon {

const WorkloadKind* find_workload(std::string_view name) {
  const auto it =
      std::find_if(kWorkloadKinds.begin(), kWorkloadKinds.end(), [&](const auto& w) { return w.name == name; });
  return it == kWorkloadKinds.end() ? nullptr : &*it;
}

bool is_workload(std::string_view name) { return find_workload(name) != nullptr; }

bool is_workload_class(std::string_view name) {
  return std::find(kWorkloadClasses.begin(), kWorkloadClasses.end(), name) != kWorkloadClasses.end();
}

namespace {

template <typename Range, typename Name>
std::string as_sentence(const Range& items, Name name) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += i + 1 == items.size() ? " and " : ", ";
    s += name(items[i]);
  }
  return s;
}

}  // namespace

std::string workload_list() {
  return as_sentence(kWorkloadKinds, [](const WorkloadKind& w) { return std::string(w.name); });
}

std::string workload_class_list() {
  return as_sentence(kWorkloadClasses, [](std::string_view c) { return std::string(c); });
}

std::string workloads_with(bool WorkloadKind::*property) {
  std::vector<std::string> names;
  for (const auto& w : kWorkloadKinds) {
    if (w.*property) names.emplace_back(w.name);
  }
  return as_sentence(names, [](const std::string& n) { return n; });
}

std::string workload_help() {
  std::string s;
  for (const auto& w : kWorkloadKinds) {
    s += (s.empty() ? "" : ", ") + std::string(w.name) + " (" + std::string(w.summary) +
         (w.square_processes ? "; np must be a square" : "") + ")";
  }
  return s;
}

std::string all_workloads_option() {
  std::string s;
  for (const auto& w : kWorkloadKinds) s += (s.empty() ? "" : ",") + std::string(w.name);
  return s;
}

}  // namespace mpimon
