// rod/banded-lu: factor + solve of one rod-like KKT band matrix, our BandedLu against
// LAPACK's dgbtrf + dgbtrs on the same values, interleaved in chunks. The matrix is the
// system of a chain of 150 nodes ordered node by node (3 dofs, then the multiplier of the
// distance to the next node): a mass term plus random positive semi-definite stencils over
// four consecutive nodes (stretch, bend and twist reach that far), so kl = ku = 14 and
// n = 600. The copy of the matrix and right-hand side that each factorization overwrites
// is made outside the timed region. Without LAPACK at build time the line has ours alone.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "server/math/band_matrix.h"
#include "server/math/types.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

#ifdef LIGATURE_HAVE_LAPACK
// LAPACK's banded LU (Fortran calling convention; the last argument of dgbtrs is the
// hidden length of the `trans` string).
extern "C" void dgbtrf_(const int* m, const int* n, const int* kl, const int* ku, double* ab,
                        const int* ldab, int* ipiv, int* info);
extern "C" void dgbtrs_(const char* trans, const int* n, const int* kl, const int* ku,
                        const int* nrhs, const double* ab, const int* ldab, const int* ipiv,
                        double* b, const int* ldb, int* info, std::size_t trans_len);
#endif

namespace ligature::bench {
namespace {

constexpr char kName[] = "rod/banded-lu";
constexpr char kPeer[] = "lapack-3.11 dgbtrf";
constexpr int kNodes = 150;
constexpr int kPerNode = 4;    // 3 dofs + 1 multiplier
constexpr int kStencil = 4;    // nodes coupled by one stiffness stencil
constexpr int kBand = kPerNode * (kStencil - 1) + 2;  // 14: first dof to last dof of a stencil
constexpr int kChunk = 50;     // repetitions per side between switches
constexpr int kWarmup = 20;    // untimed repetitions per side

using Clock = std::chrono::steady_clock;

// The KKT band matrix of the chain and a right-hand side, with fixed random values. The
// last node's multiplier pins its height, so every node has one and n = 4 * kNodes.
struct Problem {
  BandMatrix a{kNodes * kPerNode, kBand, kBand};
  std::vector<double> rhs;
};

// Adds B^T B of a random 3 x 12 B over the dofs of nodes first..first+3 (positive
// semi-definite, like a stencil's Gauss-Newton stiffness).
void AddStencil(BandMatrix& a, int first, double stiffness, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::Matrix<double, 3, 3 * kStencil> b;
  for (int r = 0; r < b.rows(); ++r) {
    for (int c = 0; c < b.cols(); ++c) b(r, c) = u(rng);
  }
  const Eigen::Matrix<double, 3 * kStencil, 3 * kStencil> k = stiffness * b.transpose() * b;
  for (int p = 0; p < 3 * kStencil; ++p) {
    for (int q = 0; q < 3 * kStencil; ++q) {
      a.Add((first + p / 3) * kPerNode + p % 3, (first + q / 3) * kPerNode + q % 3, k(p, q));
    }
  }
}

// Writes the constraint gradient `g` of node `node`'s dofs into multiplier row/column m.
void AddGradient(BandMatrix& a, int m, int node, const Vec3& g) {
  for (int d = 0; d < 3; ++d) {
    a.At(m, node * kPerNode + d) = g[d];
    a.At(node * kPerNode + d, m) = g[d];
  }
}

// The chain's matrix: mass on the dofs, one stencil per run of four nodes, the distance
// gradients (-d, +d) of each segment and the last node's pin; fixed seed, so both sides
// and every run see the same values.
Problem MakeProblem() {
  std::mt19937 rng(20240601);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Problem p;
  const double mass_term = 1.0;  // m / h^2 in scaled units, so that the system is well
                                 // conditioned (the timing does not depend on the values)
  for (int i = 0; i < kNodes; ++i) {
    for (int d = 0; d < 3; ++d) p.a.Add(i * kPerNode + d, i * kPerNode + d, mass_term);
  }
  for (int i = 0; i + kStencil <= kNodes; ++i) AddStencil(p.a, i, 0.05, rng);
  for (int i = 0; i + 1 < kNodes; ++i) {
    const Vec3 d = Vec3(1.0, 0.3 * u(rng), 0.3 * u(rng)).normalized();
    const int m = i * kPerNode + 3;
    AddGradient(p.a, m, i, -d);
    AddGradient(p.a, m, i + 1, d);
  }
  AddGradient(p.a, (kNodes - 1) * kPerNode + 3, kNodes - 1, Vec3::UnitZ());
  p.rhs.resize(p.a.n());
  for (double& v : p.rhs) v = u(rng);
  return p;
}

// |A x - b| / |b| with A the original (unfactored) matrix.
double RelativeResidual(const BandMatrix& a, const std::vector<double>& x,
                        const std::vector<double>& b) {
  double r2 = 0.0;
  double b2 = 0.0;
  for (int i = 0; i < a.n(); ++i) {
    double ax = 0.0;
    for (int j = std::max(0, i - a.kl()); j <= std::min(a.n() - 1, i + a.ku()); ++j) {
      ax += a.At(i, j) * x[j];
    }
    r2 += (ax - b[i]) * (ax - b[i]);
    b2 += b[i] * b[i];
  }
  return std::sqrt(r2 / b2);
}

// One side: its working copies, its samples and its last solution.
struct Side {
  BandMatrix work{kNodes * kPerNode, kBand, kBand};
  std::vector<double> x;
  std::vector<double> ms;
  std::string error;
  int interchanges = 0;  // row interchanges of the last factorization
};

// Pivots that differ from their own row.
int CountInterchanges(const std::vector<int>& pivots) {
  int count = 0;
  for (size_t j = 0; j < pivots.size(); ++j) count += pivots[j] != static_cast<int>(j) ? 1 : 0;
  return count;
}

// Our factor + solve, repeated `reps` times (timed when `record`).
void RunOurs(const Problem& p, Side& side, int reps, bool record) {
  BandedLu lu;
  for (int k = 0; k < reps && side.error.empty(); ++k) {
    side.work = p.a;
    side.x = p.rhs;
    const Clock::time_point t0 = Clock::now();
    const absl::Status status = lu.Factor(&side.work);
    if (status.ok()) lu.Solve(std::span<double>(side.x));
    const Clock::time_point t1 = Clock::now();
    if (!status.ok()) side.error = std::string(status.message());
    side.interchanges = CountInterchanges(lu.pivots());
    if (record) side.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
}

#ifdef LIGATURE_HAVE_LAPACK
// LAPACK's dgbtrf + dgbtrs on the same storage layout, repeated `reps` times.
void RunLapack(const Problem& p, Side& side, int reps, bool record) {
  const int n = p.a.n();
  const int kl = p.a.kl();
  const int ku = p.a.ku();
  const int ldab = p.a.ldab();
  const int nrhs = 1;
  std::vector<int> ipiv(n);
  for (int k = 0; k < reps && side.error.empty(); ++k) {
    side.work = p.a;
    side.x = p.rhs;
    int info = 0;
    const Clock::time_point t0 = Clock::now();
    dgbtrf_(&n, &n, &kl, &ku, side.work.data(), &ldab, ipiv.data(), &info);
    if (info == 0) {
      dgbtrs_("N", &n, &kl, &ku, &nrhs, side.work.data(), &ldab, ipiv.data(), side.x.data(), &n,
              &info, 1);
    }
    const Clock::time_point t1 = Clock::now();
    if (info != 0) side.error = absl::StrCat("dgbtrf/dgbtrs info=", info);
    for (int& pivot : ipiv) --pivot;  // Fortran's 1-based rows
    side.interchanges = CountInterchanges(ipiv);
    if (record) side.ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
}
#endif

// Four significant digits for the notes.
std::string Format(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", value);
  return buf;
}

// The result line: ours against the peer (or alone when `peer` is null).
std::string FormatLine(const Problem& p, const Side& ours, const Side* peer) {
  std::optional<double> median, p99, peer_median, ratio;
  if (!ours.ms.empty()) {
    median = Median(ours.ms);
    p99 = Percentile(ours.ms, 99.0);
  }
  if (peer != nullptr && !peer->ms.empty()) peer_median = Median(peer->ms);
  if (median && peer_median && *peer_median > 0.0) ratio = *median / *peer_median;

  std::string notes = absl::StrCat("n=", p.a.n(), ", kl=", p.a.kl(), ", ku=", p.a.ku(),
                                   ", one right-hand side, chain KKT (", kNodes,
                                   " nodes x 3 dofs + 1 multiplier, 4-node stiffness stencils)");
  if (ours.error.empty() && !ours.x.empty()) {
    absl::StrAppend(&notes, ", row interchanges=", ours.interchanges,
                    ", residual ours=", Format(RelativeResidual(p.a, ours.x, p.rhs)));
  }
  if (peer == nullptr) {
    absl::StrAppend(&notes, ", no peer: LAPACK not found at build time");
  } else {
    if (peer->error.empty() && !peer->x.empty()) {
      absl::StrAppend(&notes, " peer=", Format(RelativeResidual(p.a, peer->x, p.rhs)),
                      ", peer row interchanges=", peer->interchanges);
    }
    if (!peer->ms.empty()) {
      absl::StrAppend(&notes, ", peer p99=", Format(Percentile(peer->ms, 99.0)),
                      " ms n=", peer->ms.size());
    }
    absl::StrAppend(&notes, ", peer: Debian liblapack3 (netlib reference) dgbtrf + dgbtrs");
  }
  absl::StrAppend(&notes, ", interleaved chunks of ", kChunk, " repetitions, ", kWarmup,
                  " warm-up each, matrix copy outside the timed region");
  if (!ours.error.empty()) absl::StrAppend(&notes, ", ours failed: ", ours.error);
  if (peer != nullptr && !peer->error.empty()) {
    absl::StrAppend(&notes, ", peer failed: ", peer->error);
  }

  JsonLine line;
  line.String("bench", kName)
      .String("metric", "factor_solve_ms")
      .Number("median", median)
      .Number("p99", p99)
      .Integer("n", static_cast<long long>(ours.ms.size()))
      .Number("paper", std::nullopt)
      .String("peer", peer != nullptr ? std::optional<std::string>(kPeer) : std::nullopt)
      .Number("peer_median", peer_median)
      .Number("ratio", ratio)
      .String("notes", notes);
  return line.Finish();
}

// Warm-up, then alternating chunks of ours and the peer until each has its repetitions.
RunResult Run(const RunOptions& options) {
  const int reps = options.quick ? 300 : 20000;
  const Problem p = MakeProblem();
  Side ours;
  RunOurs(p, ours, kWarmup, false);
#ifdef LIGATURE_HAVE_LAPACK
  Side peer;
  RunLapack(p, peer, kWarmup, false);
  Side* const peer_side = &peer;
#else
  Side* const peer_side = nullptr;
#endif
  std::fprintf(stderr, "[%s] n=%d kl=%d ku=%d, %d repetitions per side\n", kName, p.a.n(),
               p.a.kl(), p.a.ku(), reps);
  while (static_cast<int>(ours.ms.size()) < reps && ours.error.empty()) {
    const int chunk = std::min(kChunk, reps - static_cast<int>(ours.ms.size()));
    RunOurs(p, ours, chunk, true);
#ifdef LIGATURE_HAVE_LAPACK
    RunLapack(p, peer, chunk, true);
#endif
  }

  RunResult result;
  result.json_lines.push_back(FormatLine(p, ours, peer_side));
  result.ok = ours.error.empty() && (peer_side == nullptr || peer_side->error.empty());
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
