#pragma once
// Union-find (disjoint sets) over the indices 0..n-1, with path halving: which indices a
// set of links joins into groups.

#include <numeric>
#include <vector>

namespace ligature {

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }

  // The representative of i's group.
  int Find(int i) {
    while (parent_[i] != i) {
      parent_[i] = parent_[parent_[i]];
      i = parent_[i];
    }
    return i;
  }
  void Unite(int a, int b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<int> parent_;
};

}  // namespace ligature
