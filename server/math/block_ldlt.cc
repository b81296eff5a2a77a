#include "server/math/block_ldlt.h"

#include <algorithm>
#include <cassert>

namespace ligature {

std::optional<BlockLdlt> BlockLdlt::FromScalar(std::span<const int> start,
                                               std::span<const int> count, const int* rows,
                                               const double* values, std::span<const double> d,
                                               std::span<const int> unknown) {
  const int n = static_cast<int>(d.size());
  if (n % 3 != 0 || start.size() != d.size() || count.size() != d.size() ||
      unknown.size() != d.size()) {
    return std::nullopt;
  }
  const int vertices = n / 3;
  BlockLdlt out;
  out.vertex_.resize(vertices);
  out.d_.resize(n);
  out.lower_.assign(3 * vertices, 0.0);
  out.first_.assign(1, 0);
  // Scratch: each block row's place among column k's blocks (-1: none yet).
  std::vector<int> slot(vertices, -1);
  std::vector<int> block_rows;
  for (int k = 0; k < vertices; ++k) {
    // The pivots must be one vertex's three unknowns, in order.
    const int v = unknown[3 * k] / 3;
    for (int c = 0; c < 3; ++c) {
      if (unknown[3 * k + c] != 3 * v + c) return std::nullopt;
      out.d_[3 * k + c] = 1.0 / d[3 * k + c];
    }
    out.vertex_[k] = v;
    // The block rows below the vertex, in increasing order.
    block_rows.clear();
    for (int c = 0; c < 3; ++c) {
      const int j = 3 * k + c;
      for (int e = start[j]; e < start[j] + count[j]; ++e) {
        const int row = rows[e];
        if (row <= j) return std::nullopt;
        if (row < 3 * k + 3) continue;
        if (slot[row / 3] < 0) {
          slot[row / 3] = 0;
          block_rows.push_back(row / 3);
        }
      }
    }
    std::sort(block_rows.begin(), block_rows.end());
    const int base = static_cast<int>(out.rows_.size());
    for (size_t b = 0; b < block_rows.size(); ++b) slot[block_rows[b]] = base + b;
    out.rows_.insert(out.rows_.end(), block_rows.begin(), block_rows.end());
    out.blocks_.resize(9 * out.rows_.size(), 0.0);
    out.first_.push_back(static_cast<int>(out.rows_.size()));
    // The values: within the vertex into its unit triangle, below it into the blocks.
    for (int c = 0; c < 3; ++c) {
      const int j = 3 * k + c;
      for (int e = start[j]; e < start[j] + count[j]; ++e) {
        const int row = rows[e];
        if (row < 3 * k + 3) {
          // (1, 0) -> 0, (2, 0) -> 1, (2, 1) -> 2.
          out.lower_[3 * k + (row - 3 * k) + c - 1] = values[e];
        } else {
          out.blocks_[9 * slot[row / 3] + 3 * c + row % 3] = values[e];
        }
      }
    }
    for (const int r : block_rows) slot[r] = -1;
  }
  return out;
}

void BlockLdlt::Solve(std::span<const Mat3> frames, const double* b, double* x) const {
  const int vertices = static_cast<int>(vertex_.size());
  assert(frames.empty() || frames.size() == 1 || static_cast<int>(frames.size()) == vertices);
  const auto frame = [&](int v) -> const Mat3& { return frames[frames.size() == 1 ? 0 : v]; };
  std::vector<double> y(3 * vertices);
  // Into pivot order, turned into each vertex's frame.
  for (int k = 0; k < vertices; ++k) {
    const int v = vertex_[k];
    Vec3 in(b[3 * v], b[3 * v + 1], b[3 * v + 2]);
    if (!frames.empty()) in = frame(v).transpose() * in;
    y[3 * k] = in.x();
    y[3 * k + 1] = in.y();
    y[3 * k + 2] = in.z();
  }
  // L y' = y, a vertex at a time: its unit triangle, then its blocks below.
  for (int k = 0; k < vertices; ++k) {
    const double* l = &lower_[3 * k];
    double* yk = &y[3 * k];
    yk[1] -= l[0] * yk[0];
    yk[2] -= l[1] * yk[0] + l[2] * yk[1];
    const double y0 = yk[0], y1 = yk[1], y2 = yk[2];
    for (int e = first_[k]; e < first_[k + 1]; ++e) {
      const double* m = &blocks_[9 * e];
      double* yi = &y[3 * rows_[e]];
      yi[0] -= m[0] * y0 + m[3] * y1 + m[6] * y2;
      yi[1] -= m[1] * y0 + m[4] * y1 + m[7] * y2;
      yi[2] -= m[2] * y0 + m[5] * y1 + m[8] * y2;
    }
  }
  for (int i = 0; i < 3 * vertices; ++i) y[i] *= d_[i];
  // L^T y'' = y', the vertices in reverse: their blocks below, then their unit triangle.
  for (int k = vertices - 1; k >= 0; --k) {
    double y0 = y[3 * k], y1 = y[3 * k + 1], y2 = y[3 * k + 2];
    for (int e = first_[k]; e < first_[k + 1]; ++e) {
      const double* m = &blocks_[9 * e];
      const double* yi = &y[3 * rows_[e]];
      y0 -= m[0] * yi[0] + m[1] * yi[1] + m[2] * yi[2];
      y1 -= m[3] * yi[0] + m[4] * yi[1] + m[5] * yi[2];
      y2 -= m[6] * yi[0] + m[7] * yi[1] + m[8] * yi[2];
    }
    const double* l = &lower_[3 * k];
    y1 -= l[2] * y2;
    y0 -= l[0] * y1 + l[1] * y2;
    y[3 * k] = y0;
    y[3 * k + 1] = y1;
    y[3 * k + 2] = y2;
  }
  // Back to the unknowns' order, turned back.
  for (int k = 0; k < vertices; ++k) {
    const int v = vertex_[k];
    Vec3 out(y[3 * k], y[3 * k + 1], y[3 * k + 2]);
    if (!frames.empty()) out = frame(v) * out;
    x[3 * v] = out.x();
    x[3 * v + 1] = out.y();
    x[3 * v + 2] = out.z();
  }
}

}  // namespace ligature
