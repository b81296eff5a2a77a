// Corotational linear finite elements: rest stiffness, polar rotations, and the assembly of
// the backward-Euler system (solved in fem_corotational_solve.cc).

#include "server/model/soft/fem_corotational.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <cmath>
#include <numeric>
#include <utility>

#include <Eigen/Geometry>
#include <Eigen/SVD>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// A distinct id per model, so that a system knows whether its symbolic analysis matches.
uint64_t NextPatternId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

// Shape-function gradients of a tet: rows of Dm^-1 for a, b, c; minus their sum for d.
std::array<Vec3, 4> ShapeGradients(const Mat3& dm_inverse) {
  std::array<Vec3, 4> g;
  for (int i = 0; i < 3; ++i) g[i] = dm_inverse.row(i).transpose();
  g[3] = -(g[0] + g[1] + g[2]);
  return g;
}

// K0 u for tet t without forming K0: with the displacement gradient H = sum_j u_j g_j^T
// and the linear stress S = lambda tr(H) I + mu (H + H^T), block i of K0 u is V S g_i
// (expanding the block formula of K0 over j gives the same three terms). 90 products in
// place of K0's 144.
Vec12 RestStiffnessTimes(const FemRest& rest, const LameParameters& lame, int t, const Vec12& u) {
  const std::array<Vec3, 4> g = ShapeGradients(rest.dm_inverse[t]);
  Mat3 h = Mat3::Zero();
  for (int j = 0; j < 4; ++j) h += u.segment<3>(3 * j) * g[j].transpose();
  Mat3 stress = lame.mu * (h + h.transpose());
  stress.diagonal().array() += lame.lambda * h.trace();
  Vec12 out;
  for (int i = 0; i < 4; ++i) out.segment<3>(3 * i) = rest.volume[t] * (stress * g[i]);
  return out;
}

// The tet's vertex vectors y (positions or velocities) in its rotated frame, R^T y_i - y0_i
// (y0 the rest positions, or nothing), less their mean. K0 ignores the mean (a
// translation), and removing it keeps a large translation from costing round-off.
Vec12 RotatedLocal(const Mat3& r, const std::vector<Vec3>& y, const std::vector<Vec3>* rest,
                   const std::array<int, 4>& tet) {
  Vec12 u;
  Vec3 mean = Vec3::Zero();
  for (int i = 0; i < 4; ++i) {
    Vec3 ui = r.transpose() * y[tet[i]];
    if (rest != nullptr) ui -= (*rest)[tet[i]];
    u.segment<3>(3 * i) = ui;
    mean += 0.25 * ui;
  }
  for (int i = 0; i < 4; ++i) u.segment<3>(3 * i) -= mean;
  return u;
}

// Newton-Schulz from X = F (see PolarRotation) into `out`; false once |E| > 1/2. Written on
// the entries (column-major), which runs about twice as fast as the same steps through
// Eigen's 3x3 products.
bool NearRotation(const Mat3& f, Mat3* out) {
  double x[9];
  std::copy(f.data(), f.data() + 9, x);
  for (int step = 0; step < 8; ++step) {
    // E = X^T X - I: entry (a, b) is the dot product of columns a and b.
    double e[9];
    double error = 0.0;
    for (int a = 0; a < 3; ++a) {
      for (int b = 0; b < 3; ++b) {
        const double* ca = x + 3 * a;
        const double* cb = x + 3 * b;
        e[3 * b + a] = ca[0] * cb[0] + ca[1] * cb[1] + ca[2] * cb[2] - (a == b ? 1.0 : 0.0);
        error += e[3 * b + a] * e[3 * b + a];
      }
    }
    if (error > 0.25) return false;
    // X (I - E / 2), a column at a time.
    double y[9];
    for (int c = 0; c < 3; ++c) {
      for (int r = 0; r < 3; ++r) {
        y[3 * c + r] = x[3 * c + r] -
                       0.5 * (x[r] * e[3 * c] + x[3 + r] * e[3 * c + 1] + x[6 + r] * e[3 * c + 2]);
      }
    }
    std::copy(y, y + 9, x);
    if (error < 1e-16) {
      *out = Eigen::Map<const Mat3>(x);
      return true;
    }
  }
  return false;
}

// The rotation r with its unit quaternion's components rounded to multiples of 2^-20
// (within about 2e-6 rad of r), so that a body at rest, whose best-fit rotation moves by
// round-off from tick to tick, keeps one frame bit for bit and what was turned by it.
Mat3 OnGrid(const Mat3& r) {
  Eigen::Quaterniond q(r);
  if (q.w() < 0.0) q.coeffs() = -q.coeffs();
  constexpr double kGrid = 1048576.0;  // 2^20
  for (int i = 0; i < 4; ++i) q.coeffs()[i] = std::round(q.coeffs()[i] * kGrid) / kGrid;
  return q.normalized().toRotationMatrix();
}

}  // namespace

Mat12 RestStiffness(const Mat3& dm_inverse, double volume, const LameParameters& lame) {
  const std::array<Vec3, 4> g = ShapeGradients(dm_inverse);
  Mat12 k;
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) {
      k.block<3, 3>(3 * i, 3 * j) =
          volume * (lame.lambda * g[i] * g[j].transpose() + lame.mu * g[j] * g[i].transpose() +
                    lame.mu * g[i].dot(g[j]) * Mat3::Identity());
    }
  }
  return k;
}

// A tet that is not inverted nor nearly flat: an iteration for the orthogonal polar factor
// from X = F, each step of which keeps X's singular vectors and moves its singular values
// towards 1, quadratically near it.
//  - Near a rotation (|E| <= 1/2, E = X^T X - I, so every singular value lies within
//    [0.7, 1.23]; the strains of tissue at rest or pressed): Newton-Schulz,
//    X <- X (3 I - X^T X) / 2 = X (I - E / 2), which takes products alone. Its next E is
//    -3/4 E^2 + E^3/4, so the step from |E| < 1e-8 is the last one that round-off can see.
//  - Otherwise Newton's iteration, X <- (g X + X^-T / g) / 2 with
//    g = (|X^-1| / |X|)^(1/2) (Higham's scaling, in the Frobenius norm), a 3x3 inverse a
//    step; it stops once a step changes X by less than 1e-13 (the next would be below
//    round-off).
// An inverted or flat tet takes R = U V^T from the SVD (singular values sorted
// decreasingly, so the smallest is last).
Mat3 PolarRotation(const Mat3& f) {
  const double size = f.squaredNorm() / 3.0;  // the mean squared singular value
  if (f.determinant() > 1e-3 * size * std::sqrt(size)) {
    Mat3 x;
    if (NearRotation(f, &x)) return x;
    x = f;
    for (int i = 0; i < 20; ++i) {
      const Mat3 inverse = x.inverse();
      const double g = std::sqrt(std::sqrt(inverse.squaredNorm() / x.squaredNorm()));
      const Mat3 next = 0.5 * (g * x + inverse.transpose() / g);
      const double change = (next - x).squaredNorm();
      x = next;
      if (change < 1e-26) return x;
    }
  }
  const Eigen::JacobiSVD<Mat3> svd(f, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Mat3 u = svd.matrixU();
  const Mat3& v = svd.matrixV();
  if ((u * v.transpose()).determinant() < 0.0) u.col(2) = -u.col(2);
  return u * v.transpose();
}

absl::StatusOr<CorotationalModel> CorotationalModel::Make(const TetMesh& mesh,
                                                          const FemMaterial& material,
                                                          std::span<const int> fixed) {
  absl::StatusOr<FemRest> rest = MakeFemRest(mesh, material, fixed);
  if (!rest.ok()) return rest.status();
  CorotationalModel model;
  model.mesh_ = mesh;
  model.material_ = material;
  model.lame_ = Lame(material);
  model.rest_ = *std::move(rest);
  const int n = model.vertex_count();
  const int tets = model.tet_count();

  // The pattern: every vertex's diagonal block, and the blocks between two free vertices
  // of a tet. Fixed values are filled in at assembly. Built a vertex at a time: column
  // 3 b + k holds the three rows of each vertex in near[b] (b's free neighbours and b
  // itself, in order), so an entry's place follows from its vertex's place in near[b].
  const std::vector<char>& is_fixed = model.rest_.fixed;
  std::vector<std::vector<int>> near(n);
  for (int v = 0; v < n; ++v) near[v].push_back(v);
  for (const std::array<int, 4>& tet : mesh.tets) {
    for (int a : tet) {
      for (int b : tet) {
        if (a != b && !is_fixed[a] && !is_fixed[b]) near[b].push_back(a);
      }
    }
  }
  int64_t nonzeros = 0;
  for (std::vector<int>& column : near) {
    std::sort(column.begin(), column.end());
    column.erase(std::unique(column.begin(), column.end()), column.end());
    nonzeros += 9 * static_cast<int64_t>(column.size());
  }
  model.pattern_.resize(3 * n, 3 * n);
  model.pattern_.resizeNonZeros(static_cast<Eigen::Index>(nonzeros));
  int* outer = model.pattern_.outerIndexPtr();
  int* inner = model.pattern_.innerIndexPtr();
  int at = 0;
  for (int b = 0; b < n; ++b) {
    for (int k = 0; k < 3; ++k) {
      outer[3 * b + k] = at;
      for (const int a : near[b]) {
        for (int r = 0; r < 3; ++r) inner[at++] = 3 * a + r;
      }
    }
  }
  outer[3 * n] = at;
  std::fill(model.pattern_.valuePtr(), model.pattern_.valuePtr() + nonzeros, 0.0);
  // The entry of row 3 a in column 3 b + k.
  const auto offset = [&](int a, int b, int k) {
    const auto place = std::lower_bound(near[b].begin(), near[b].end(), a) - near[b].begin();
    assert(place < static_cast<int>(near[b].size()) && near[b][place] == a);
    return outer[3 * b + k] + 3 * static_cast<int>(place);
  };
  model.diagonal_offset_.resize(n);
  for (int v = 0; v < n; ++v) {
    for (int k = 0; k < 3; ++k) model.diagonal_offset_[v][k] = offset(v, v, k);
  }
  model.block_offset_.resize(tets);
  for (int t = 0; t < tets; ++t) {
    const std::array<int, 4>& tet = mesh.tets[t];
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) {
        const int a = tet[i], b = tet[j];
        const bool skip = is_fixed[a] || is_fixed[b];
        const int first = skip ? -1 : offset(a, b, 0);
        for (int k = 0; k < 3; ++k) {
          model.block_offset_[t][3 * (4 * i + j) + k] =
              skip ? -1 : first + (outer[3 * b + k] - outer[3 * b]);
        }
      }
    }
  }
  if (std::ranges::none_of(model.rest_.fixed, [](char f) { return f != 0; })) {
    model.free_mass_ = std::accumulate(model.rest_.mass.begin(), model.rest_.mass.end(), 0.0);
  }
  model.vertex_volume_.assign(n, 0.0);
  for (int t = 0; t < tets; ++t) {
    for (const int v : mesh.tets[t]) model.vertex_volume_[v] += model.rest_.volume[t];
  }
  model.pattern_id_ = NextPatternId();
  return model;
}

Mat3 CorotationalModel::Rotation(const std::vector<Vec3>& x, int t) const {
  return PolarRotation(ShapeMatrix(x, mesh_.tets[t]) * rest_.dm_inverse[t]);
}

// Per tet: u_i = R^T x_i - x0_i, w = K0 u, f_i = -R w_i.
void CorotationalModel::AddElasticForces(const std::vector<Vec3>& x,
                                         std::vector<Vec3>* forces) const {
  assert(x.size() == mesh_.vertices.size() && forces->size() == x.size());
  for (int t = 0; t < tet_count(); ++t) {
    const std::array<int, 4>& tet = mesh_.tets[t];
    const Mat3 r = Rotation(x, t);
    const Vec12 u = RotatedLocal(r, x, &mesh_.vertices, tet);
    const Vec12 w = RestStiffnessTimes(rest_, lame_, t, u);
    for (int i = 0; i < 4; ++i) (*forces)[tet[i]] -= r * w.segment<3>(3 * i);
  }
}

double CorotationalModel::StrainEnergy(const std::vector<Vec3>& x) const {
  assert(x.size() == mesh_.vertices.size());
  double e = 0.0;
  for (int t = 0; t < tet_count(); ++t) {
    const std::array<int, 4>& tet = mesh_.tets[t];
    const Mat3 r = Rotation(x, t);
    const Vec12 u = RotatedLocal(r, x, &mesh_.vertices, tet);
    e += 0.5 * u.dot(RestStiffnessTimes(rest_, lame_, t, u));
  }
  return e;
}

double CorotationalModel::ExplicitTimeStep() const {
  return ExplicitStableTimeStep(material_, rest_.min_altitude);
}

// Fills rhs = h (f + M g + f_ext - alpha M v - (h + beta) K v) tet by tet and
// A = (1 + h alpha) M + (h beta + h^2) K into the fixed pattern, then solves the system's
// way.
absl::Status CorotationalModel::Assemble(const FemState& state, double h, const Vec3& gravity,
                                         std::span<const Vec3> external,
                                         CorotationalSystem* system) const {
  const int n = vertex_count();
  if (!(h > 0.0) || !std::isfinite(h)) {
    return absl::InvalidArgumentError(absl::StrCat("h: time step must be > 0 s, got ", h));
  }
  if (static_cast<int>(state.x.size()) != n || static_cast<int>(state.v.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("state: ", state.x.size(), " positions and ",
                                                   state.v.size(), " velocities for ", n,
                                                   " vertices"));
  }
  if (!external.empty() && static_cast<int>(external.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("external: ", external.size(), " forces for ", n, " vertices"));
  }
  CorotationalSystem& sys = *system;
  const double alpha = material_.mass_damping;
  const double beta = material_.stiffness_damping;

  const bool same_pattern = sys.pattern_id_ == pattern_id_;
  if (!same_pattern) sys.matrix_ = pattern_;
  sys.h_ = h;
  sys.fixed_ = rest_.fixed;
  sys.rhs_.setZero(3 * n);
  sys.rotations_.resize(tet_count());

  for (int t = 0; t < tet_count(); ++t) {
    const std::array<int, 4>& tet = mesh_.tets[t];
    const Mat3 r = Rotation(state.x, t);
    sys.rotations_[t] = r;
    const Vec12 u = RotatedLocal(r, state.x, &mesh_.vertices, tet);
    const Vec12 z = RotatedLocal(r, state.v, nullptr, tet);
    // In the rotated frame: K0 (u + (h + beta) z), rotated back, is -(f - (h + beta) K v).
    const Vec12 w = RestStiffnessTimes(rest_, lame_, t, u + (h + beta) * z);
    for (int i = 0; i < 4; ++i) {
      sys.rhs_.segment<3>(3 * tet[i]) -= h * (r * w.segment<3>(3 * i));
    }
  }
  for (int v = 0; v < n; ++v) {
    if (rest_.fixed[v]) {
      sys.rhs_.segment<3>(3 * v).setZero();
      continue;
    }
    const double m = rest_.mass[v];
    Vec3 f = m * gravity - alpha * m * state.v[v];
    if (!external.empty()) f += external[v];
    sys.rhs_.segment<3>(3 * v) += h * f;
  }
  FillMatrix(sys.rotations_, 1.0 + h * alpha, h * beta + h * h, sys.matrix_.valuePtr());

  // (The cached columns are of a factor: A's go with each direct solve, A0's with UseRest.)
  if (!same_pattern) {
    sys.analyzed_ = false;
    sys.pattern_id_ = pattern_id_;
  }
  if (sys.method_ == CorotationalSolve::kPreconditioned) {
    if (absl::Status s = PrepareRestSystem(h, &sys); !s.ok()) return s;
    sys.frame_ = OnGrid(BodyRotation(state.x));
    VertexRotations(sys.rotations_, &sys.vertex_frames_);
    // A body held nowhere keeps its momentum exactly, whatever the iteration left over.
    if (sys.SolveIteratively(state.dv, (1.0 + h * alpha) * free_mass_)) return absl::OkStatus();
  }
  if (!sys.SolveDirectly()) {
    return absl::InternalError("corotational step: factorization of M + h C + h^2 K failed");
  }
  return absl::OkStatus();
}

void CorotationalModel::FillMatrix(std::span<const Mat3> rotations, double mass_scale,
                                   double stiffness_scale, double* values) const {
  std::fill(values, values + pattern_.nonZeros(), 0.0);
  const double lambda = lame_.lambda, mu = lame_.mu;
  for (int t = 0; t < tet_count(); ++t) {
    // R K0 R^T from the turned shape gradients G_i = R g_i: its block (i, j) is
    // V (lambda G_i G_j^T + mu G_j G_i^T + mu (g_i . g_j) I), half the products of turning
    // K0's blocks.
    const std::array<Vec3, 4> g = ShapeGradients(rest_.dm_inverse[t]);
    std::array<Vec3, 4> turned = g;
    if (!rotations.empty()) {
      for (int i = 0; i < 4; ++i) turned[i] = rotations[t] * g[i];
    }
    const double scale = stiffness_scale * rest_.volume[t];
    // Each block above the diagonal is made once and also added, transposed, below it, so
    // that A is exactly symmetric.
    for (int i = 0; i < 4; ++i) {
      for (int j = i; j < 4; ++j) {
        const int* upper = &block_offset_[t][3 * (4 * i + j)];
        if (upper[0] < 0) continue;
        Mat3 block = (scale * lambda) * turned[i] * turned[j].transpose() +
                     (scale * mu) * turned[j] * turned[i].transpose();
        block.diagonal().array() += scale * mu * g[i].dot(g[j]);
        if (i == j) block = 0.5 * (block + block.transpose()).eval();
        const int* lower = &block_offset_[t][3 * (4 * j + i)];
        for (int k = 0; k < 3; ++k) {
          for (int row = 0; row < 3; ++row) {
            values[upper[k] + row] += block(row, k);
            if (i != j) values[lower[k] + row] += block(k, row);
          }
        }
      }
    }
  }
  for (int v = 0; v < vertex_count(); ++v) {
    const std::array<int, 3>& offsets = diagonal_offset_[v];
    // A held vertex's block is the identity (the tets' stiffness was not added to it).
    const bool fixed = rest_.fixed[v] != 0;
    for (int k = 0; k < 3; ++k) {
      if (fixed) {
        for (int row = 0; row < 3; ++row) values[offsets[k] + row] = (row == k) ? 1.0 : 0.0;
      } else {
        values[offsets[k] + k] += mass_scale * rest_.mass[v];
      }
    }
  }
}

Mat3 CorotationalModel::BodyRotation(const std::vector<Vec3>& x) const {
  double total = 0.0;
  Vec3 c = Vec3::Zero(), c0 = Vec3::Zero();
  for (int v = 0; v < vertex_count(); ++v) {
    total += rest_.mass[v];
    c += rest_.mass[v] * x[v];
    c0 += rest_.mass[v] * mesh_.vertices[v];
  }
  if (!(total > 0.0)) return Mat3::Identity();
  c /= total;
  c0 /= total;
  Mat3 covariance = Mat3::Zero();
  for (int v = 0; v < vertex_count(); ++v) {
    covariance += rest_.mass[v] * (x[v] - c) * (mesh_.vertices[v] - c0).transpose();
  }
  return PolarRotation(covariance);
}

void CorotationalModel::VertexRotations(std::span<const Mat3> tet_rotations,
                                        std::vector<Mat3>* out) const {
  out->assign(vertex_count(), Mat3::Zero());
  for (int t = 0; t < tet_count(); ++t) {
    for (const int v : mesh_.tets[t]) (*out)[v] += rest_.volume[t] * tet_rotations[t];
  }
  // The weighted mean of rotations that differ little is close to a rotation itself, where
  // the polar factor costs least.
  for (int v = 0; v < vertex_count(); ++v) {
    const double volume = vertex_volume_[v];
    (*out)[v] = volume > 0.0 ? PolarRotation((*out)[v] / volume) : Mat3::Identity();
  }
}

void CorotationalModel::Advance(const CorotationalSystem& system, FemState* state) const {
  const int n = vertex_count();
  assert(static_cast<int>(state->x.size()) == n && system.dv_.size() == 3 * n);
  state->dv.resize(n);
  for (int v = 0; v < n; ++v) {
    state->dv[v] = system.dv_.segment<3>(3 * v);
    if (rest_.fixed[v]) {
      state->v[v].setZero();
      continue;
    }
    state->v[v] += system.dv_.segment<3>(3 * v);
    state->x[v] += system.h_ * state->v[v];
  }
}

absl::Status CorotationalModel::Step(double h, const Vec3& gravity, std::span<const Vec3> external,
                                     CorotationalSystem* system, FemState* state) const {
  if (absl::Status s = Assemble(*state, h, gravity, external, system); !s.ok()) return s;
  Advance(*system, state);
  return absl::OkStatus();
}

}  // namespace ligature
