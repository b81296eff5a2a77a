// Entries of a sparse inverse read from the factor's elimination-tree paths, against the
// dense inverse of the same matrix: a 3D grid (a deep tree), two grids that do not touch
// (a forest), and a factor with the identity ordering.

#include "server/math/ldlt_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

namespace ligature {
namespace {

using Sparse = Eigen::SparseMatrix<double>;

// A shifted Laplacian of an nx x ny x nz grid with random positive weights: symmetric,
// positive definite, and its factor fills in like a tet mesh's. `offset` places it in a
// bigger matrix of `size` unknowns.
void AddGrid(int nx, int ny, int nz, int offset, std::mt19937* rng,
             std::vector<Eigen::Triplet<double>>* out) {
  std::uniform_real_distribution<double> weight(0.5, 2.0);
  const auto index = [&](int x, int y, int z) { return offset + x + nx * (y + ny * z); };
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        const int a = index(x, y, z);
        out->emplace_back(a, a, 0.1);
        const int neighbours[3][3] = {{x + 1, y, z}, {x, y + 1, z}, {x, y, z + 1}};
        for (const auto& n : neighbours) {
          if (n[0] >= nx || n[1] >= ny || n[2] >= nz) continue;
          const int b = index(n[0], n[1], n[2]);
          const double w = weight(*rng);
          out->emplace_back(a, a, w);
          out->emplace_back(b, b, w);
          out->emplace_back(a, b, -w);
          out->emplace_back(b, a, -w);
        }
      }
    }
  }
}

template <typename Ordering>
using Ldlt = Eigen::SimplicialLDLT<Sparse, Eigen::Lower, Ordering>;

// The entry (a, c) of B^-1 from single-unknown paths.
double Entry(const PathColumns& a, const PathColumns& c) {
  double out;
  LdltPaths::Dot(a, c, &out);
  return out;
}

// Every entry of B^-1 from the paths against the dense inverse, to 1e-12 of the largest.
template <typename Ordering>
void ExpectInverse(const Sparse& b) {
  Ldlt<Ordering> f(b);
  ASSERT_EQ(f.info(), Eigen::Success);
  std::unique_ptr<LdltPaths> paths = LdltPaths::Of(f);
  const int n = static_cast<int>(b.rows());
  std::vector<PathColumns> z(n);
  for (int a = 0; a < n; ++a) paths->Columns({&a, 1}, &z[a]);
  const Eigen::MatrixXd inverse = Eigen::MatrixXd(b).inverse();
  const double scale = inverse.cwiseAbs().maxCoeff();
  for (int a = 0; a < n; ++a) {
    for (int c = 0; c < n; ++c) {
      EXPECT_NEAR(Entry(z[a], z[c]), inverse(a, c), 1e-12 * scale) << a << ", " << c;
      EXPECT_EQ(Entry(z[a], z[c]), Entry(z[c], z[a]));
    }
  }
}

TEST(LdltPathsTest, GridInverseMatchesDense) {
  std::mt19937 rng(7);
  std::vector<Eigen::Triplet<double>> entries;
  AddGrid(6, 5, 4, 0, &rng, &entries);
  Sparse b(120, 120);
  b.setFromTriplets(entries.begin(), entries.end());
  ExpectInverse<Eigen::AMDOrdering<int>>(b);
  ExpectInverse<Eigen::NaturalOrdering<int>>(b);
}

TEST(LdltPathsTest, PartsThatDoNotTouchShareNoPath) {
  std::mt19937 rng(11);
  std::vector<Eigen::Triplet<double>> entries;
  AddGrid(4, 4, 3, 0, &rng, &entries);
  AddGrid(3, 3, 3, 48, &rng, &entries);
  Sparse b(75, 75);
  b.setFromTriplets(entries.begin(), entries.end());
  ExpectInverse<Eigen::AMDOrdering<int>>(b);
  // Across the parts, the entries are exactly zero.
  Ldlt<Eigen::AMDOrdering<int>> f(b);
  std::unique_ptr<LdltPaths> paths = LdltPaths::Of(f);
  PathColumns first, second;
  const int a = 5, c = 60;
  paths->Columns({&a, 1}, &first);
  paths->Columns({&c, 1}, &second);
  EXPECT_EQ(Entry(first, second), 0.0);
}

// Coupled unknowns share one path: a group's block of B^-1 is the same, to the bit, as
// its entries one unknown at a time. On a 3D grid, a path is short next to n.
TEST(LdltPathsTest, CoupledUnknownsShareAPath) {
  std::mt19937 rng(3);
  std::vector<Eigen::Triplet<double>> entries;
  AddGrid(10, 10, 10, 0, &rng, &entries);
  Sparse b(1000, 1000);
  b.setFromTriplets(entries.begin(), entries.end());
  Ldlt<Eigen::AMDOrdering<int>> f(b);
  std::unique_ptr<LdltPaths> paths = LdltPaths::Of(f);
  // Two groups of two neighbours on the grid.
  const int first[2] = {0, 1}, second[2] = {110, 111};
  PathColumns g, h;
  paths->Columns(first, &g);
  paths->Columns(second, &h);
  EXPECT_LT(g.pivots.size(), 500u);
  EXPECT_TRUE(std::is_sorted(g.pivots.begin(), g.pivots.end()));
  double block[4], transposed[4];
  LdltPaths::Dot(g, h, block);
  LdltPaths::Dot(h, g, transposed);
  for (int c = 0; c < 2; ++c) {
    // Column second[c] of B^-1, by a solve.
    const Eigen::VectorXd column = f.solve(Eigen::VectorXd::Unit(1000, second[c]));
    const double scale = column.cwiseAbs().maxCoeff();
    for (int r = 0; r < 2; ++r) {
      PathColumns zr, zc;
      paths->Columns({&first[r], 1}, &zr);
      paths->Columns({&second[c], 1}, &zc);
      EXPECT_NEAR(block[2 * r + c], column[first[r]], 1e-12 * scale);
      EXPECT_EQ(block[2 * r + c], Entry(zr, zc));
      EXPECT_EQ(block[2 * r + c], transposed[2 * c + r]);
    }
  }
}

}  // namespace
}  // namespace ligature
