// Reverse Cuthill-McKee ordering: paths, grids, two ropes joined by links, disconnected and
// empty graphs; every result must be a permutation with a small bandwidth.

#include "server/math/rcm.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <numeric>
#include <random>
#include <vector>

namespace ligature {
namespace {

using Graph = std::vector<std::vector<int>>;

// Adds the undirected edge (a, b) to both lists.
void AddEdge(Graph& graph, int a, int b) {
  graph[a].push_back(b);
  graph[b].push_back(a);
}

// True when `order` holds every node of 0..count-1 exactly once.
bool IsPermutation(const std::vector<int>& order, int count) {
  if (static_cast<int>(order.size()) != count) return false;
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int k = 0; k < count; ++k) {
    if (sorted[k] != k) return false;
  }
  return true;
}

// The bandwidth of `graph` under the RCM ordering, after checking it is a permutation.
int RcmBandwidth(const Graph& graph) {
  const std::vector<int> order = ReverseCuthillMcKee(graph);
  EXPECT_TRUE(IsPermutation(order, static_cast<int>(graph.size())));
  return GraphBandwidth(graph, InversePermutation(order));
}

TEST(RcmTest, InversePermutationAndBandwidthOfKnownOrder) {
  const std::vector<int> order = {2, 0, 3, 1};
  EXPECT_EQ(InversePermutation(order), (std::vector<int>{1, 3, 0, 2}));
  Graph graph(4);
  AddEdge(graph, 0, 3);
  AddEdge(graph, 1, 2);
  EXPECT_EQ(GraphBandwidth(graph, {}), 3);
  EXPECT_EQ(GraphBandwidth(graph, {0, 1, 2, 3}), 3);
  EXPECT_EQ(GraphBandwidth(graph, InversePermutation({0, 3, 1, 2})), 1);
  EXPECT_EQ(GraphBandwidth(Graph(5), {}), 0);
}

// Orders worked out by hand. Path 0-1-2-3: node 0 is already peripheral, Cuthill-McKee
// gives 0 1 2 3, reversed 3 2 1 0. The tree 0-1, 0-2, 0-3, 1-4, 2-5: George-Liu moves the
// start from 0 to 4 (5 levels instead of 3) and stays there; from 4 the order is 4 1 0,
// then 0's neighbours by degree, 3 (degree 1) before 2 (degree 2), then 5; reversed.
TEST(RcmTest, SmallGraphsGiveTheExpectedOrder) {
  Graph path(4);
  for (int k = 0; k + 1 < 4; ++k) AddEdge(path, k, k + 1);
  EXPECT_EQ(ReverseCuthillMcKee(path), (std::vector<int>{3, 2, 1, 0}));

  Graph tree(6);
  AddEdge(tree, 0, 1);
  AddEdge(tree, 0, 2);
  AddEdge(tree, 0, 3);
  AddEdge(tree, 1, 4);
  AddEdge(tree, 2, 5);
  EXPECT_EQ(ReverseCuthillMcKee(tree), (std::vector<int>{5, 2, 3, 0, 1, 4}));
}

// A path whose nodes are labelled at random: the ordering must find it again.
TEST(RcmTest, ScrambledPathGetsBandwidthOne) {
  const int count = 200;
  std::vector<int> label(count);
  std::iota(label.begin(), label.end(), 0);
  std::mt19937 rng(17);
  std::shuffle(label.begin(), label.end(), rng);
  Graph graph(count);
  for (int k = 0; k + 1 < count; ++k) AddEdge(graph, label[k], label[k + 1]);
  ASSERT_GT(GraphBandwidth(graph, {}), 1);
  EXPECT_EQ(RcmBandwidth(graph), 1);
}

// A 10 x 30 grid numbered down its long columns (natural bandwidth 30). RCM starts at a
// corner, so its levels are anti-diagonals of up to 10 nodes, and an edge from one full
// anti-diagonal to the next spans at most 10 + 1 positions: the short side, plus one.
TEST(RcmTest, GridGetsBandwidthOfItsShortSide) {
  const int width = 10;
  const int height = 30;
  const auto id = [height](int x, int y) { return x * height + y; };
  Graph graph(width * height);
  for (int x = 0; x < width; ++x) {
    for (int y = 0; y < height; ++y) {
      if (x + 1 < width) AddEdge(graph, id(x, y), id(x + 1, y));
      if (y + 1 < height) AddEdge(graph, id(x, y), id(x, y + 1));
    }
  }
  EXPECT_EQ(GraphBandwidth(graph, {}), height);
  const int after = RcmBandwidth(graph);
  std::cout << "grid 10x30 bandwidth: natural " << height << ", RCM " << after << "\n";
  EXPECT_LE(after, width + 1);
}

// Two ropes of 150 nodes numbered one after the other, joined by a rung every 5 nodes (as
// distance links between two ropes): the natural bandwidth is the rope length.
TEST(RcmTest, LadderOfTwoRopesGetsNarrowBand) {
  const int rope = 150;
  Graph graph(2 * rope);
  for (int k = 0; k + 1 < rope; ++k) {
    AddEdge(graph, k, k + 1);
    AddEdge(graph, rope + k, rope + k + 1);
  }
  for (int k = 0; k < rope; k += 5) AddEdge(graph, k, rope + k);
  const int before = GraphBandwidth(graph, {});
  const int after = RcmBandwidth(graph);
  std::cout << "ladder 2x" << rope << " bandwidth: natural " << before << ", RCM " << after
            << "\n";
  RecordProperty("bandwidth_natural", before);
  RecordProperty("bandwidth_rcm", after);
  EXPECT_EQ(before, rope);
  EXPECT_LE(after, 10);
}

// Duplicate entries, self loops and edges listed on one side only do not change the result.
TEST(RcmTest, IgnoresDuplicatesAndSelfLoops) {
  Graph clean(6);
  for (int k = 0; k + 1 < 6; ++k) AddEdge(clean, k, k + 1);
  Graph messy(6);
  for (int k = 0; k + 1 < 6; ++k) {
    messy[k].push_back(k + 1);  // one side only
    messy[k].push_back(k + 1);  // duplicated
    messy[k].push_back(k);      // self loop
  }
  EXPECT_EQ(ReverseCuthillMcKee(messy), ReverseCuthillMcKee(clean));
  EXPECT_EQ(RcmBandwidth(messy), 1);
}

// Three components (two scrambled paths and isolated nodes) all end up in the order.
TEST(RcmTest, DisconnectedGraphKeepsEveryNode) {
  const int count = 40;
  std::vector<int> label(count);
  std::iota(label.begin(), label.end(), 0);
  std::mt19937 rng(8);
  std::shuffle(label.begin(), label.end(), rng);
  Graph graph(count);
  for (int k = 0; k + 1 < 15; ++k) AddEdge(graph, label[k], label[k + 1]);
  for (int k = 15; k + 1 < 35; ++k) AddEdge(graph, label[k], label[k + 1]);
  // label[35..39] stay isolated.
  EXPECT_EQ(RcmBandwidth(graph), 1);
}

TEST(RcmTest, EmptyGraphAndGraphWithoutEdges) {
  EXPECT_TRUE(ReverseCuthillMcKee({}).empty());
  EXPECT_EQ(GraphBandwidth({}, {}), 0);
  const Graph isolated(7);
  EXPECT_TRUE(IsPermutation(ReverseCuthillMcKee(isolated), 7));
  EXPECT_EQ(RcmBandwidth(isolated), 0);
}

}  // namespace
}  // namespace ligature
