// Solves with a vertex-blocked LDL^T factor against the dense solution of the same system:
// a grid of vertices coupled by random 3x3 stiffness blocks, factorized in a shuffled
// vertex order, with no turn, one rotation for all vertices and one per vertex; and factors
// whose pivots split a vertex, which cannot be blocked.

#include "server/math/block_ldlt.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>
#include <algorithm>
#include <numeric>
#include <optional>
#include <random>
#include <vector>

namespace ligature {
namespace {

using Sparse = Eigen::SparseMatrix<double>;

// A random rotation.
Mat3 RandomRotation(std::mt19937* rng) {
  std::normal_distribution<double> normal;
  return Quat(normal(*rng), normal(*rng), normal(*rng), normal(*rng))
      .normalized()
      .toRotationMatrix();
}

// An nx x ny x nz grid of vertices, neighbours joined by random symmetric positive definite
// 3x3 blocks K (K on both diagonals, -K between them) over a positive mass on each vertex:
// symmetric positive definite, and a vertex's three unknowns are coupled to each other.
Sparse GridSystem(int nx, int ny, int nz, std::mt19937* rng) {
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<Eigen::Triplet<double>> entries;
  const auto add = [&](int a, int b, const Mat3& m) {
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) entries.emplace_back(3 * a + r, 3 * b + c, m(r, c));
    }
  };
  const auto index = [&](int x, int y, int z) { return x + nx * (y + ny * z); };
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        const int a = index(x, y, z);
        add(a, a, 0.2 * Mat3::Identity());
        const int neighbours[3][3] = {{x + 1, y, z}, {x, y + 1, z}, {x, y, z + 1}};
        for (const auto& n : neighbours) {
          if (n[0] >= nx || n[1] >= ny || n[2] >= nz) continue;
          const int b = index(n[0], n[1], n[2]);
          Mat3 g;
          for (int i = 0; i < 9; ++i) g.data()[i] = uniform(*rng);
          const Mat3 k = g * g.transpose() + 0.1 * Mat3::Identity();
          add(a, a, k);
          add(b, b, k);
          add(a, b, -k);
          add(b, a, -k);
        }
      }
    }
  }
  const int n = 3 * nx * ny * nz;
  Sparse b(n, n);
  b.setFromTriplets(entries.begin(), entries.end());
  return b;
}

// B's factor in the vertex order `order` (pivots 3k..3k+2 are vertex order[k]'s unknowns),
// as the arrays BlockLdlt reads.
struct ScalarFactor {
  Eigen::SimplicialLDLT<Sparse, Eigen::Lower, Eigen::NaturalOrdering<int>> ldlt;
  std::vector<int> start, count, unknown;
  std::vector<double> d;
};
void Factorize(const Sparse& b, const std::vector<int>& order, ScalarFactor* f) {
  const int n = static_cast<int>(b.rows());
  f->unknown.resize(n);
  for (size_t k = 0; k < order.size(); ++k) {
    for (int c = 0; c < 3; ++c) f->unknown[3 * k + c] = 3 * order[k] + c;
  }
  // C = P B P^T, row j of C being unknown[j] of B.
  Eigen::PermutationMatrix<Eigen::Dynamic, Eigen::Dynamic, int> p(n);
  for (int j = 0; j < n; ++j) p.indices()[f->unknown[j]] = j;
  const Sparse c = p * b * p.transpose();
  f->ldlt.compute(c);
  ASSERT_EQ(f->ldlt.info(), Eigen::Success);
  const Sparse& l = f->ldlt.matrixL().nestedExpression();
  f->start.resize(n);
  f->count.resize(n);
  f->d.resize(n);
  for (int j = 0; j < n; ++j) {
    f->start[j] = l.outerIndexPtr()[j];
    f->count[j] = l.outerIndexPtr()[j + 1] - f->start[j];
    f->d[j] = f->ldlt.vectorD()[j];
  }
}

std::optional<BlockLdlt> Blocked(const ScalarFactor& f) {
  const Sparse& l = f.ldlt.matrixL().nestedExpression();
  return BlockLdlt::FromScalar(f.start, f.count, l.innerIndexPtr(), l.valuePtr(), f.d, f.unknown);
}

// W B^-1 W^T b, densely.
Eigen::VectorXd Expected(const Sparse& b, const std::vector<Mat3>& frames,
                         const Eigen::VectorXd& rhs) {
  const Eigen::Index vertices = b.rows() / 3;
  Eigen::MatrixXd w = Eigen::MatrixXd::Identity(b.rows(), b.rows());
  for (Eigen::Index v = 0; v < vertices && !frames.empty(); ++v) {
    w.block<3, 3>(3 * v, 3 * v) = frames[frames.size() == 1 ? 0 : v];
  }
  return w * Eigen::MatrixXd(b).ldlt().solve(w.transpose() * rhs);
}

TEST(BlockLdltTest, SolvesAsTheDenseSystemInEveryTurn) {
  std::mt19937 rng(7);
  const Sparse b = GridSystem(4, 3, 3, &rng);
  const int vertices = static_cast<int>(b.rows() / 3);
  std::vector<int> order(vertices);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  ScalarFactor f;
  Factorize(b, order, &f);
  const std::optional<BlockLdlt> blocks = Blocked(f);
  ASSERT_TRUE(blocks.has_value());
  ASSERT_EQ(blocks->size(), b.rows());

  std::vector<Mat3> each(vertices);
  for (Mat3& r : each) r = RandomRotation(&rng);
  const std::vector<std::vector<Mat3>> turns = {{}, {RandomRotation(&rng)}, each};
  for (const std::vector<Mat3>& frames : turns) {
    const Eigen::VectorXd rhs = Eigen::VectorXd::Random(b.rows());
    Eigen::VectorXd x(b.rows());
    blocks->Solve(frames, rhs.data(), x.data());
    const Eigen::VectorXd expected = Expected(b, frames, rhs);
    EXPECT_LT((x - expected).norm(), 1e-12 * expected.norm()) << frames.size() << " frames";
  }
}

TEST(BlockLdltTest, RefusesPivotsThatSplitAVertex) {
  std::mt19937 rng(11);
  const Sparse b = GridSystem(3, 2, 2, &rng);
  std::vector<int> order(b.rows() / 3);
  std::iota(order.begin(), order.end(), 0);
  ScalarFactor f;
  Factorize(b, order, &f);
  ASSERT_TRUE(Blocked(f).has_value());
  // A vertex's unknowns out of order, then two vertices' unknowns interleaved.
  std::swap(f.unknown[0], f.unknown[1]);
  EXPECT_FALSE(Blocked(f).has_value());
  std::swap(f.unknown[0], f.unknown[1]);
  std::swap(f.unknown[2], f.unknown[3]);
  EXPECT_FALSE(Blocked(f).has_value());
  // Not a whole number of vertices.
  const Sparse& l = f.ldlt.matrixL().nestedExpression();
  EXPECT_FALSE(BlockLdlt::FromScalar(std::span(f.start).first(5), std::span(f.count).first(5),
                                     l.innerIndexPtr(), l.valuePtr(), std::span(f.d).first(5),
                                     std::span(f.unknown).first(5))
                   .has_value());
}

}  // namespace
}  // namespace ligature
