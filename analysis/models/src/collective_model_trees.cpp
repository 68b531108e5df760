// The process trees of Open MPI's coll/base (coll_base_topo.c), written from their definitions
// on virtual ranks v = (rank - root) mod P; docs/collectives.md draws them.

#include <functional>

#include "mpimon/base/error.hpp"
#include "mpimon/models/collective_model.hpp"

namespace mpimon {

namespace {

/// Open MPI refuses trees wider than this (MAXTREEFANOUT) and clamps chains to it.
constexpr std::uint32_t kMaxTreeFanout = 32;

/// A tree built on virtual ranks, then renamed to communicator ranks.
class VirtualTree {
 public:
  VirtualTree(std::uint32_t nprocs, std::uint32_t root) : nprocs_(nprocs), root_(root) {
    tree_.root = root;
    tree_.children.resize(nprocs);
  }
  void link(std::uint32_t parent_v, std::uint32_t child_v) { tree_.children[real(parent_v)].push_back(real(child_v)); }
  ProcessTree take() { return std::move(tree_); }

 private:
  [[nodiscard]] std::uint32_t real(std::uint32_t v) const { return (v + root_) % nprocs_; }
  std::uint32_t nprocs_, root_;
  ProcessTree tree_;
};

void check_size(std::uint32_t nprocs, std::uint32_t root) {
  if (nprocs == 0 || root >= nprocs)
    raise_error(Error::Kind::input, "tree", "root must be a rank of at least one process");
}

}  // namespace

std::vector<std::uint32_t> ProcessTree::parents() const {
  std::vector<std::uint32_t> parent(children.size());
  for (std::uint32_t r = 0; r < parent.size(); ++r) parent[r] = r;
  for (std::uint32_t p = 0; p < children.size(); ++p) {
    for (std::uint32_t c : children[p]) parent[c] = p;
  }
  return parent;
}

ProcessTree kary_tree(std::uint32_t fanout, std::uint32_t nprocs, std::uint32_t root) {
  check_size(nprocs, root);
  if (fanout < 1 || fanout > kMaxTreeFanout) raise_error(Error::Kind::input, "tree", "fan-out must be 1 to 32");
  VirtualTree tree(nprocs, root);
  for (std::uint64_t v = 0; v < nprocs; ++v) {
    // Find v's level: its first node and its width k^L.
    std::uint64_t first = 0, width = 1;
    while (v >= first + width) {
      first += width;
      width *= fanout;
    }
    for (std::uint64_t i = 1; i <= fanout && v + width * i < nprocs; ++i) {
      tree.link(static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v + width * i));
    }
  }
  return tree.take();
}

ProcessTree binomial_tree(std::uint32_t nprocs, std::uint32_t root) {
  check_size(nprocs, root);
  VirtualTree tree(nprocs, root);
  for (std::uint64_t v = 0; v < nprocs; ++v) {
    std::uint64_t step = 1;
    while (step <= v) step <<= 1;  // the smallest power of two above v
    for (; v + step < nprocs; step <<= 1)
      tree.link(static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v + step));
  }
  return tree.take();
}

ProcessTree in_order_binomial_tree(std::uint32_t nprocs, std::uint32_t root) {
  check_size(nprocs, root);
  VirtualTree tree(nprocs, root);
  for (std::uint64_t v = 0; v < nprocs; ++v) {
    for (std::uint64_t step = 1; step < nprocs && (v & step) == 0; step <<= 1) {
      if (v + step < nprocs) tree.link(static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v + step));
    }
  }
  return tree.take();
}

ProcessTree knomial_tree(std::uint32_t radix, std::uint32_t nprocs, std::uint32_t root) {
  check_size(nprocs, root);
  if (radix < 2) raise_error(Error::Kind::input, "tree", "k-nomial radix must be at least 2");
  VirtualTree tree(nprocs, root);
  for (std::uint64_t v = 0; v < nprocs; ++v) {
    // The weight of v's lowest non-zero digit (for the root: the first power of k >= P).
    std::uint64_t digit = 1;
    while (digit < nprocs && v % (digit * radix) == 0) digit *= radix;
    for (std::uint64_t position = digit / radix; position > 0; position /= radix) {
      for (std::uint64_t d = 1; d < radix; ++d) {
        if (v + d * position < nprocs)
          tree.link(static_cast<std::uint32_t>(v), static_cast<std::uint32_t>(v + d * position));
      }
    }
  }
  return tree.take();
}

ProcessTree chain_tree(std::uint32_t fanout, std::uint32_t nprocs, std::uint32_t root) {
  check_size(nprocs, root);
  VirtualTree tree(nprocs, root);
  std::uint32_t chains = std::min(std::max(fanout, 1U), kMaxTreeFanout);
  chains = std::min(chains, nprocs - 1);
  if (chains == 0) return tree.take();
  const std::uint32_t others = nprocs - 1;
  const std::uint32_t longest = (others + chains - 1) / chains;
  const std::uint32_t long_chains = others % chains == 0 ? chains : others % chains;
  std::uint32_t head = 1;
  for (std::uint32_t c = 0; c < chains; ++c) {
    const std::uint32_t length = c < long_chains ? longest : longest - 1;
    tree.link(0, head);
    for (std::uint32_t v = head; v + 1 < head + length; ++v) tree.link(v, v + 1);
    head += length;
  }
  return tree.take();
}

ProcessTree in_order_binary_tree(std::uint32_t nprocs) {
  check_size(nprocs, 0);
  ProcessTree tree;
  tree.root = nprocs - 1;
  tree.children.resize(nprocs);
  // The node owning [lo, hi] is hi; its subtrees own the upper and lower parts of the rest.
  std::function<void(std::uint32_t, std::uint32_t)> build = [&](std::uint32_t lo, std::uint32_t hi) {
    const std::uint32_t size = hi - lo + 1;
    if (size == 2) tree.children[hi].push_back(lo);  // a single leaf below
    if (size <= 2) return;
    const std::uint32_t half = size / 2;
    tree.children[hi].push_back(hi - 1);
    build(lo + half, hi - 1);
    tree.children[hi].push_back(lo + half - 1);
    build(lo, lo + half - 1);
  };
  build(0, nprocs - 1);
  return tree;
}

}  // namespace mpimon
