// The time model's bandwidth part with the order the traffic implies (time_model.hpp,
// ordered_bandwidth_seconds): the ranks' strongly connected components, then an event simulation of
// the flows, each link shared max-min fairly by the flows crossing it at the time.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

#include "mpimon/placement/time_model.hpp"
#include "placement_internal.hpp"

namespace mpimon {

namespace {

// The strongly connected component of every rank in the graph of the flows (Tarjan's algorithm,
// iterative: a chain of 10^5 ranks would overflow the stack).
std::vector<std::uint32_t> components(const TimeTraffic& traffic) {
  const std::uint32_t n = traffic.order;
  std::vector<std::vector<std::uint32_t>> out(n);
  for (const auto& f : traffic.flows) out[f.from].push_back(f.to);
  constexpr std::uint32_t kUnseen = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> index(n, kUnseen), low(n, 0), component(n, kUnseen), stack;
  std::vector<std::pair<std::uint32_t, std::size_t>> frames;  // (rank, next edge)
  std::uint32_t next_index = 0, next_component = 0;
  for (std::uint32_t root = 0; root < n; ++root) {
    if (index[root] != kUnseen) continue;
    frames.emplace_back(root, 0);
    index[root] = low[root] = next_index++;
    stack.push_back(root);
    while (!frames.empty()) {
      auto& [v, edge] = frames.back();
      if (edge < out[v].size()) {
        const std::uint32_t w = out[v][edge++];
        if (index[w] == kUnseen) {
          index[w] = low[w] = next_index++;
          stack.push_back(w);
          frames.emplace_back(w, 0);
        } else if (component[w] == kUnseen) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      const std::uint32_t done = v;
      frames.pop_back();
      if (low[done] == index[done]) {
        std::uint32_t w = kUnseen;
        do {
          w = stack.back();
          stack.pop_back();
          component[w] = next_component;
        } while (w != done);
        ++next_component;
      }
      if (!frames.empty()) low[frames.back().first] = std::min(low[frames.back().first], low[done]);
    }
  }
  return component;
}

}  // namespace

std::optional<double> ordered_bandwidth_seconds(const TimeTraffic& recorded, const TreeTopology& topo,
                                                const Mapping& mapping) {
  check_mapping(mapping, recorded.order, topo);
  // The flows that carry bytes: messages without any (a barrier's) order no data, and would join
  // every rank into one component.
  TimeTraffic traffic;
  traffic.order = recorded.order;
  std::copy_if(recorded.flows.begin(), recorded.flows.end(), std::back_inserter(traffic.flows),
               [](const TimeTraffic::Flow& f) { return f.bytes > 0; });
  if (traffic.flows.size() > kOrderedFlowLimit) return std::nullopt;
  const placement_detail::TimeNetwork net(topo);
  const std::size_t flows = traffic.flows.size();
  // Each flow's links with a rate (up the sender's levels c..L-1, down the receiver's; a free level
  // is no constraint), as indices into up and down links: [0, links) up, [links, 2 links) down.
  std::vector<std::vector<std::uint64_t>> path(flows);
  for (std::size_t k = 0; k < flows; ++k) {
    const auto& f = traffic.flows[k];
    const std::uint64_t a = mapping[f.from], b = mapping[f.to];
    for (std::uint32_t l = net.common_level(a, b); l < net.tree.levels; ++l) {
      if (net.seconds_per_byte[l] <= 0) continue;
      path[k].push_back(net.link(l, a));
      path[k].push_back(net.links() + net.link(l, b));
    }
  }
  std::vector<double> capacity(2 * net.links(), 0);  // bytes per second
  for (std::uint32_t l = 0; l < net.tree.levels; ++l) {
    for (std::uint64_t k = net.first_link[l]; k < net.first_link[l + 1]; ++k) {
      if (net.seconds_per_byte[l] > 0) capacity[k] = capacity[net.links() + k] = 1 / net.seconds_per_byte[l];
    }
  }
  // A rank forwards what it received: its flows wait for every flow into it from another component.
  const std::vector<std::uint32_t> component = components(traffic);
  std::vector<std::uint64_t> waiting(traffic.order, 0);
  bool ordered = false;
  for (const auto& f : traffic.flows) {
    if (component[f.from] != component[f.to]) ++waiting[f.to], ordered = true;
  }
  if (!ordered) return std::nullopt;  // every flow at once: the one-phase prediction's case
  std::vector<double> left(flows);
  std::vector<bool> active(flows, false), finished(flows, false);
  for (std::size_t k = 0; k < flows; ++k) left[k] = static_cast<double>(traffic.flows[k].bytes);
  auto release = [&] {
    for (std::size_t k = 0; k < flows; ++k) {
      if (!active[k] && !finished[k] && waiting[traffic.flows[k].from] == 0) active[k] = true;
    }
  };
  release();
  double now = 0;
  std::vector<double> rate(flows), room(capacity.size());
  std::vector<std::uint64_t> unfixed(capacity.size());
  for (std::size_t done = 0; done < flows;) {
    // Max-min fair rates by progressive filling: the link with the least room per unfixed flow fixes
    // its flows at that share, until every active flow has a rate.
    std::vector<std::size_t> running;
    std::fill(unfixed.begin(), unfixed.end(), 0);
    for (std::size_t k = 0; k < flows; ++k) {
      if (!active[k]) continue;
      running.push_back(k);
      rate[k] = -1;
      for (const auto link : path[k]) ++unfixed[link];
    }
    if (running.empty()) break;  // unreachable: some flow always waits on nothing
    room = capacity;
    for (;;) {
      double share = std::numeric_limits<double>::infinity();
      std::uint64_t bottleneck = 0;
      for (std::uint64_t link = 0; link < room.size(); ++link) {
        if (unfixed[link] > 0 && room[link] / static_cast<double>(unfixed[link]) < share)
          share = room[link] / static_cast<double>(unfixed[link]), bottleneck = link;
      }
      if (!std::isfinite(share)) break;
      share = std::max(share, 1e-12 * capacity[bottleneck]);  // rounding must not stop a flow
      for (const auto k : running) {
        if (rate[k] >= 0 || std::find(path[k].begin(), path[k].end(), bottleneck) == path[k].end()) continue;
        rate[k] = share;
        for (const auto link : path[k]) room[link] -= share, --unfixed[link];
      }
    }
    // To the next arrival: flows on no rated link (and empty ones) arrive at once.
    double step = std::numeric_limits<double>::infinity();
    for (const auto k : running) {
      step = std::min(step, rate[k] < 0 || left[k] <= 0 ? 0.0 : left[k] / rate[k]);
    }
    now += step;
    for (const auto k : running) {
      left[k] -= rate[k] < 0 ? left[k] : rate[k] * step;
      if (left[k] > 1e-9 * std::max(1.0, static_cast<double>(traffic.flows[k].bytes))) continue;
      active[k] = false, finished[k] = true, ++done;
      const auto& f = traffic.flows[k];
      if (component[f.from] != component[f.to]) --waiting[f.to];
    }
    release();
  }
  return now;
}

}  // namespace mpimon
