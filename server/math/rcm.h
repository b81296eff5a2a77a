#pragma once
// Bandwidth-reducing ordering of the unknowns of a sparse symmetric system (reverse
// Cuthill-McKee), so that a system over a chain-like graph (rods, ropes joined by links)
// becomes a band matrix with a narrow band.

#include <vector>

namespace ligature {

// Reverse Cuthill-McKee ordering of an undirected graph given as adjacency lists (nodes
// 0..N-1; duplicate entries and self loops are ignored, a one-sided edge counts both
// ways). Returns `order`, where order[k] is the old node placed at new position k. Each
// connected component starts from a pseudo-peripheral node and is numbered breadth first,
// neighbours by increasing degree; the whole list is then reversed.
std::vector<int> ReverseCuthillMcKee(const std::vector<std::vector<int>>& adjacency);

// The inverse of a permutation: position[order[k]] = k (the new position of each old node).
std::vector<int> InversePermutation(const std::vector<int>& order);

// Largest |position[i] - position[j]| over the edges (i, j) of the graph; `position` empty
// means the identity (the graph's own numbering). Zero for a graph without edges.
int GraphBandwidth(const std::vector<std::vector<int>>& adjacency,
                   const std::vector<int>& position);

}  // namespace ligature
