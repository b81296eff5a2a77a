// Reverse Cuthill-McKee: pseudo-peripheral start nodes (George-Liu), breadth-first numbering
// with neighbours by increasing degree, then the reversal.

#include "server/math/rcm.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

namespace ligature {
namespace {

using Graph = std::vector<std::vector<int>>;

// The graph with sorted, duplicate-free, symmetric lists and no self loops, so that the
// list sizes are the true degrees.
Graph CleanGraph(const Graph& adjacency) {
  const int count = static_cast<int>(adjacency.size());
  Graph graph(count);
  for (int i = 0; i < count; ++i) {
    for (int j : adjacency[i]) {
      assert(j >= 0 && j < count);
      if (j == i) continue;
      graph[i].push_back(j);
      graph[j].push_back(i);
    }
  }
  for (std::vector<int>& list : graph) {
    std::sort(list.begin(), list.end());
    list.erase(std::unique(list.begin(), list.end()), list.end());
  }
  return graph;
}

// Breadth-first level structure of one component. Marks use a stamp per search, so a
// search costs only the size of the component, not of the whole graph.
class LevelSearch {
 public:
  explicit LevelSearch(const Graph& graph) : graph_(graph), stamp_(graph.size(), 0) {}

  // Visits the component of `root` level by level; returns the number of levels.
  int Run(int root) {
    ++current_;
    nodes_.clear();
    last_level_begin_ = 0;
    nodes_.push_back(root);
    stamp_[root] = current_;
    int levels = 0;
    size_t begin = 0;
    while (begin < nodes_.size()) {
      const size_t end = nodes_.size();
      last_level_begin_ = begin;
      ++levels;
      for (size_t k = begin; k < end; ++k) Expand(nodes_[k]);
      begin = end;
    }
    return levels;
  }

  // The node of the deepest level with the smallest degree (lowest id on ties).
  int MinDegreeInLastLevel() const {
    int best = nodes_[last_level_begin_];
    for (size_t k = last_level_begin_; k < nodes_.size(); ++k) {
      const int node = nodes_[k];
      if (Degree(node) < Degree(best) || (Degree(node) == Degree(best) && node < best)) {
        best = node;
      }
    }
    return best;
  }

 private:
  int Degree(int node) const { return static_cast<int>(graph_[node].size()); }

  // Appends the unvisited neighbours of `node`.
  void Expand(int node) {
    for (int next : graph_[node]) {
      if (stamp_[next] == current_) continue;
      stamp_[next] = current_;
      nodes_.push_back(next);
    }
  }

  const Graph& graph_;
  std::vector<int> stamp_;
  int current_ = 0;
  std::vector<int> nodes_;
  size_t last_level_begin_ = 0;
};

// George-Liu: from `start`, move to a minimum-degree node of the deepest level as long as
// that makes the level structure deeper; the node where it stops is far from the rest.
int PseudoPeripheralNode(LevelSearch& search, int start) {
  int root = start;
  int height = search.Run(root);
  for (;;) {
    const int candidate = search.MinDegreeInLastLevel();
    const int candidate_height = search.Run(candidate);
    if (candidate_height <= height) return root;
    root = candidate;
    height = candidate_height;
  }
}

// Cuthill-McKee numbering of the component of `root`, appended to `order`: breadth first,
// the unplaced neighbours of each node in increasing degree (then id).
void CuthillMcKee(const Graph& graph, int root, std::vector<char>& placed,
                  std::vector<int>& order) {
  size_t head = order.size();
  order.push_back(root);
  placed[root] = 1;
  std::vector<int> fresh;
  const auto by_degree = [&graph](int a, int b) {
    const size_t da = graph[a].size();
    const size_t db = graph[b].size();
    return da != db ? da < db : a < b;
  };
  for (; head < order.size(); ++head) {
    fresh.clear();
    for (int next : graph[order[head]]) {
      if (placed[next]) continue;
      placed[next] = 1;
      fresh.push_back(next);
    }
    std::sort(fresh.begin(), fresh.end(), by_degree);
    order.insert(order.end(), fresh.begin(), fresh.end());
  }
}

}  // namespace

// Components are taken in order of their lowest unplaced node; each is numbered from its
// pseudo-peripheral node, and the concatenation is reversed at the end.
std::vector<int> ReverseCuthillMcKee(const std::vector<std::vector<int>>& adjacency) {
  const Graph graph = CleanGraph(adjacency);
  const int count = static_cast<int>(graph.size());
  std::vector<int> order;
  order.reserve(count);
  std::vector<char> placed(count, 0);
  LevelSearch search(graph);
  for (int start = 0; start < count; ++start) {
    if (placed[start]) continue;
    CuthillMcKee(graph, PseudoPeripheralNode(search, start), placed, order);
  }
  std::reverse(order.begin(), order.end());
  return order;
}

// position[order[k]] = k; asserts that `order` is a permutation.
std::vector<int> InversePermutation(const std::vector<int>& order) {
  std::vector<int> position(order.size(), -1);
  for (size_t k = 0; k < order.size(); ++k) {
    assert(order[k] >= 0 && order[k] < static_cast<int>(order.size()));
    assert(position[order[k]] == -1);
    position[order[k]] = static_cast<int>(k);
  }
  return position;
}

// One pass over every list (both directions of an edge give the same distance).
int GraphBandwidth(const std::vector<std::vector<int>>& adjacency,
                   const std::vector<int>& position) {
  assert(position.empty() || position.size() == adjacency.size());
  const auto at = [&position](int node) { return position.empty() ? node : position[node]; };
  int bandwidth = 0;
  for (size_t i = 0; i < adjacency.size(); ++i) {
    for (int j : adjacency[i]) {
      assert(j >= 0 && j < static_cast<int>(adjacency.size()));
      bandwidth = std::max(bandwidth, std::abs(at(static_cast<int>(i)) - at(j)));
    }
  }
  return bandwidth;
}

}  // namespace ligature
