#include "server/solver/tunable_lcp.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace ligature {
namespace {

// The role of row d of a block under its law, before compliance is looked at.
bool IsNormalRow(ConstraintLaw law, int d) {
  return d == 0 && (law == ConstraintLaw::kUnilateral || law == ConstraintLaw::kFrictionContact);
}
bool IsFrictionRow(ConstraintLaw law, int d) {
  return (law == ConstraintLaw::kFrictionContact && d >= 1) ||
         (law == ConstraintLaw::kBilateralFriction && d == 2) ||
         law == ConstraintLaw::kRollingFriction || law == ConstraintLaw::kDrive;
}

// The first friction row of a block with friction (relative to its row 0); its friction
// rows run from there to its last row.
int FirstFrictionRow(ConstraintLaw law) {
  switch (law) {
    case ConstraintLaw::kFrictionContact:
      return 1;
    case ConstraintLaw::kRollingFriction:
    case ConstraintLaw::kDrive:
      return 0;
    default:
      return 2;
  }
}

// |(x, y)|. Forces and displacements are far from overflow, so the plain root does (hypot's
// care for extreme exponents costs more than the rest of a friction check).
double Norm2(double x, double y) { return std::sqrt(x * x + y * y); }

// Makes v at least n long, keeping what it holds.
template <class T>
void Grow(size_t n, std::vector<T>* v) {
  if (v->size() < n) v->resize(n);
}

// Blocks prepared between two looks at the clock: a look costs about as much as a few
// blocks, and this many take a few microseconds.
constexpr size_t kBlocksPerClockCheck = 128;

// A CG direction whose curvature p . W p is below this share of r . z is taken for one in
// W's null space (see Solve): far below any conditioning real rows reach, far above
// rounding.
constexpr double kMinRelativeCurvature = 1e-12;

// j . (c j) for one half-row j against a body's compliance c.
double Quadratic(const std::array<double, 6>& j, const std::array<double, 9>& ang,
                 double linear) {
  double out = linear * (j[0] * j[0] + j[1] * j[1] + j[2] * j[2]);
  for (int r = 0; r < 3; ++r) {
    out += j[3 + r] * (ang[3 * r] * j[3] + ang[3 * r + 1] * j[4] + ang[3 * r + 2] * j[5]);
  }
  return out;
}

}  // namespace

// W's diagonal on a point block's rows: each side's row d is [l_d, r x l_d] (up to sign).
Vec3 TunableLcpSolver::PointDiagonal(const PointFrame& f, const BodyBlock& a,
                                     const BodyBlock& b) {
  // The point's compliance K = (m_a + m_b) I + S_a + S_b, with S = [r]x^T A [r]x for each
  // side's arm r and angular compliance A (symmetric), so that w_d = l_d^T K l_d. An
  // isotropic side (A = a I) adds m |l_d|^2 + a |r x l_d|^2 to w_d directly; the others add
  // up in K.
  Vec3 w = Vec3::Zero();
  bool general = false;
  double k[6] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0};  // K00 K01 K02 K11 K12 K22
  for (const auto& [r, c] : {std::pair{&f.ra, &a}, std::pair{&f.rb, &b}}) {
    const std::array<double, 9>& m = c->angular;
    const double r0 = (*r)[0], r1 = (*r)[1], r2 = (*r)[2];
    if (c->isotropic) {
      const double rr = r0 * r0 + r1 * r1 + r2 * r2;
      for (int d = 0; d < 3; ++d) {
        const double l0 = f.l[3 * d], l1 = f.l[3 * d + 1], l2 = f.l[3 * d + 2];
        const double ll = l0 * l0 + l1 * l1 + l2 * l2;
        const double rl = r0 * l0 + r1 * l1 + r2 * l2;
        w[d] += c->linear * ll + m[0] * (rr * ll - rl * rl);
      }
      continue;
    }
    general = true;
    // T = A [r]x, column by column.
    double t[3][3];
    for (int i = 0; i < 3; ++i) {
      t[i][0] = m[3 * i + 1] * r2 - m[3 * i + 2] * r1;
      t[i][1] = m[3 * i + 2] * r0 - m[3 * i] * r2;
      t[i][2] = m[3 * i] * r1 - m[3 * i + 1] * r0;
    }
    // S = -[r]x T, upper triangle.
    k[0] += r2 * t[1][0] - r1 * t[2][0] + c->linear;
    k[1] += r2 * t[1][1] - r1 * t[2][1];
    k[2] += r2 * t[1][2] - r1 * t[2][2];
    k[3] += r0 * t[2][1] - r2 * t[0][1] + c->linear;
    k[4] += r0 * t[2][2] - r2 * t[0][2];
    k[5] += r1 * t[0][2] - r0 * t[1][2] + c->linear;
  }
  for (int d = 0; general && d < 3; ++d) {
    const double l0 = f.l[3 * d], l1 = f.l[3 * d + 1], l2 = f.l[3 * d + 2];
    w[d] += k[0] * l0 * l0 + k[3] * l1 * l1 + k[5] * l2 * l2 +
            2.0 * (k[1] * l0 * l1 + k[2] * l0 * l2 + k[4] * l1 * l2);
  }
  return w;
}

// The frame of a point block: l_d are its rows' linear part on body a.
void TunableLcpSolver::SetPointFrame(const ConstraintBlock& b, PointFrame* frame) {
  for (int d = 0; d < 3; ++d) {
    for (int k = 0; k < 3; ++k) frame->l[3 * d + k] = b.jacobian_a(d, k);
  }
  for (int k = 0; k < 3; ++k) {
    frame->ra[k] = b.arm_a[k];
    frame->rb[k] = b.arm_b[k];
  }
#ifndef NDEBUG
  // The rows are those the frame describes (to round-off).
  for (int d = 0; d < 3; ++d) {
    const Vec3 l = b.jacobian_a.row(d).head<3>().transpose();
    assert((b.jacobian_b.row(d).head<3>().transpose() + l).norm() <= 1e-12);
    assert((b.arm_a.cross(l) - b.jacobian_a.row(d).tail<3>().transpose()).norm() <=
           1e-9 * (1.0 + b.arm_a.norm()));
    assert((b.arm_b.cross(l) + b.jacobian_b.row(d).tail<3>().transpose()).norm() <=
           1e-9 * (1.0 + b.arm_b.norm()));
  }
#endif
}

// The compact copy of the rows: per row its two half-Jacobians and body slots (the world
// is slot num_bodies_, without compliance), its kind and Jacobi scale; per body the
// compliance. Rows that no body can move (zero diagonal of W) and friction rows without a
// coefficient become inert.
TunableLcpSolver::Prepared TunableLcpSolver::Prepare(const ConstraintRows& rows,
                                                     std::span<const BodyCompliance> compliance,
                                                     std::span<const CoupledPoints> coupled,
                                                     const SolveClock& clock, bool warm_start,
                                                     bool check_clock, bool stop_when_late) {
  num_bodies_ = compliance.size();
  SetGroups(coupled);
  const uint32_t world = static_cast<uint32_t>(num_bodies_);
  body_c_.resize(num_bodies_ + 1);
  for (size_t j = 0; j < num_bodies_; ++j) {
    BodyBlock& block = body_c_[j];
    block.linear = compliance[j].linear;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 3; ++c) block.angular[3 * r + c] = compliance[j].angular(r, c);
    }
    // Isotropic to round-off: off-diagonals and the diagonal's spread within 1e-12 of it.
    const std::array<double, 9>& m = block.angular;
    const double tiny = 1e-12 * std::abs(m[0]);
    block.isotropic = std::abs(m[1]) <= tiny && std::abs(m[2]) <= tiny &&
                      std::abs(m[5]) <= tiny && std::abs(m[4] - m[0]) <= tiny &&
                      std::abs(m[8] - m[0]) <= tiny;
  }
  body_c_[world] = BodyBlock{};

  size_t num_rows = 0;
  for (const ConstraintBlock& b : rows.blocks) num_rows += static_cast<size_t>(b.dim);
  block_.resize(rows.blocks.size());
  frame_.resize(rows.blocks.size());
  has_points_ = false;
  // Per-row and per-block state is written block by block below (sets, tracking) or by
  // StartSequence (z_, p_) before anything reads it. The per-row arrays only grow (the
  // passes of a tick alternate between fewer and more rows, and growing again would clear
  // what they gained); num_rows_ is their extent.
  held_.resize(rows.blocks.size());
  num_rows_ = num_rows;
  for (auto* v : {&free_, &precond_, &f_, &delta_, &z_, &p_}) Grow(num_rows, v);
  for (auto* v : {&active_, &tracked_}) Grow(num_rows, v);
  Grow(num_rows, &kind_);
  Grow(num_rows, &jac_);
  body_.resize(num_bodies_ + 1);
  body_f_.assign(num_bodies_ + 1, Vec6::Zero());
  // Zero except on bodies a check moved (changed_), between a check and its restart.
  change_.assign(num_bodies_ + 1, Vec6::Zero());
  changed_.assign(num_bodies_ + 1, 0);  // the world slot never changes

  Prepared outcome = Prepared::kInTime;
  uint32_t next = 0;
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    if (check_clock && outcome == Prepared::kInTime &&
        bi % kBlocksPerClockCheck == kBlocksPerClockCheck - 1 && clock.Expired()) {
      if (stop_when_late) return Prepared::kStopped;
      outcome = Prepared::kLate;  // the rest is prepared all the same, for the warm forces
    }
    const ConstraintBlock& b = rows.blocks[bi];
    assert(b.dim >= 1 && b.dim <= 3);
    assert(b.law != ConstraintLaw::kUnilateral || b.dim == 1);
    assert(b.law != ConstraintLaw::kFrictionContact || b.dim == 3);
    assert(b.law != ConstraintLaw::kBilateralFriction || b.dim == 3);
    assert(b.law != ConstraintLaw::kRollingFriction || (b.dim <= 2 && b.normal_block < bi));
    assert(b.law != ConstraintLaw::kDrive || (b.dim == 1 && b.compliance >= 0.0));
    assert(b.body_a == kWorldBody || b.body_a < num_bodies_);
    assert(b.body_b == kWorldBody || b.body_b < num_bodies_);
    BlockInfo& c = block_[bi];
    c.first_row = next;
    c.dim = static_cast<uint8_t>(b.dim);
    c.law = b.law;
    c.friction = b.friction;
    c.compliance = b.compliance;
    // A rolling block's bound follows the normal row of its contact, prepared before it.
    c.normal_row = b.law == ConstraintLaw::kRollingFriction
                       ? block_[b.normal_block].first_row
                       : 0;
    const uint32_t ia = b.body_a == kWorldBody ? world : b.body_a;
    const uint32_t ib = b.body_b == kWorldBody ? world : b.body_b;
    c.body_a = ia;
    c.body_b = ib;
    c.point = b.point && b.dim == 3;
    has_points_ |= c.point;
    // Only W's diagonal is needed (the Jacobi scales): w_d = H_d C H_d^T on each side.
    Vec3 w = Vec3::Zero();
    if (c.point) {
      SetPointFrame(b, &frame_[bi]);
      w = PointDiagonal(frame_[bi], body_c_[ia], body_c_[ib]);
    } else {
      for (int d = 0; d < b.dim; ++d) {
        RowJacobian& j = jac_[next + d];
        j.body_a = ia;
        j.body_b = ib;
        for (int k = 0; k < 6; ++k) {
          j.a[k] = b.jacobian_a(d, k);
          j.b[k] = b.jacobian_b(d, k);
        }
        w[d] = Quadratic(j.a, body_c_[ia].angular, body_c_[ia].linear) +
               Quadratic(j.b, body_c_[ib].angular, body_c_[ib].linear);
      }
    }
    if (!groups_.empty()) w += GroupDiagonal(bi);
    // The two tangent rows of a contact share one scale: the held friction law needs a
    // scalar w_t (its stick estimate f_t - delta_t / w_t then moves the force straight
    // against the slip, so its fixed point is Coulomb's), and CG scales both rows alike.
    // (Divisions cost: each distinct scale is inverted once.)
    const double tangent_scale = std::max(w[1], w[2]);
    const bool shared = b.law == ConstraintLaw::kFrictionContact;
    auto invert = [](double x) { return x > 0.0 ? 1.0 / x : 0.0; };
    const Vec3 inverse(invert(w[0]), invert(shared ? tangent_scale : w[1]),
                       shared ? 0.0 : invert(w[2]));
    // A rolling block's rows (both tangents, or the normal) share one scale likewise.
    const bool rolling = b.law == ConstraintLaw::kRollingFriction;
    const double rolling_scale = b.dim == 2 ? std::max(w[0], w[1]) : w[0];
    c.has_friction = false;
    for (int d = 0; d < b.dim; ++d) {
      RowKind& kind = kind_[next + d];
      kind = IsNormalRow(b.law, d)     ? RowKind::kNormal
             : IsFrictionRow(b.law, d) ? RowKind::kFriction
                                       : RowKind::kBilateral;
      const bool tangent = kind == RowKind::kFriction && shared;
      const double scale = rolling ? rolling_scale : tangent ? tangent_scale : w[d];
      const double scale_inv = rolling ? invert(rolling_scale)
                               : tangent ? inverse[1]
                                         : inverse[d];
      if (!(w[d] > 0.0) || (kind == RowKind::kFriction && !(b.friction > 0.0))) {
        kind = RowKind::kInert;
      }
      precond_[next + d] = kind == RowKind::kInert ? 0.0 : scale_inv;
      if (kind == RowKind::kFriction) {
        c.has_friction = true;
        c.friction_scale = scale;
        c.friction_scale_inv = scale_inv;
      }
      free_[next + d] = b.violation_free[d];
      f_[next + d] = b.force[d];  // the warm start, taken up by InitialBlockSets
      tracked_[next + d] = 1;
      assert(std::isfinite(free_[next + d]));
    }
    InitialBlockSets(bi, warm_start);
    // The starting forces' generalized forces H^T f.
    bool pushes = false;
    for (int d = 0; d < b.dim; ++d) pushes |= f_[next + d] != 0.0;
    if (pushes) BlockSpread(bi, &f_[next], body_f_[ia].data(), body_f_[ib].data());
    next += static_cast<uint32_t>(b.dim);
  }
  ApplyCompliance(&body_f_);  // body_f_ = C H^T f: the starting forces' displacements
  return outcome;
}

// Initial forces and sets of block bi: the previous forces (copied by Prepare) when warm
// starting (a unilateral row that pushed is clamped, its friction active), zero otherwise.
// Inert rows carry nothing. Warm friction that was on its cone (sliding last tick) starts
// held; rolling friction is always held.
void TunableLcpSolver::InitialBlockSets(size_t bi, bool warm_start) {
  {
    const BlockInfo& c = block_[bi];
    const uint32_t k = c.first_row;
    held_[bi] = 0;
    for (int d = 0; d < c.dim; ++d) {
      const uint32_t i = k + d;
      const double warm = warm_start ? f_[i] : 0.0;
      assert(std::isfinite(warm));
      switch (kind_[i]) {
        case RowKind::kBilateral:
          active_[i] = 1;
          break;
        case RowKind::kNormal:
          active_[i] = warm > 0.0;
          break;
        case RowKind::kFriction:
          active_[i] = c.law == ConstraintLaw::kBilateralFriction ||
                       (c.law == ConstraintLaw::kFrictionContact && active_[k]) ||
                       (c.law == ConstraintLaw::kDrive && !AlwaysHeld(c));
          break;
        case RowKind::kInert:
          active_[i] = 0;
          break;
      }
      // (A drive keeps its warm force, held or not.)
      const bool keeps =
          active_[i] || (c.law == ConstraintLaw::kDrive && kind_[i] != RowKind::kInert);
      f_[i] = keeps ? warm : 0.0;
    }
    if (AlwaysHeld(c)) {
      held_[bi] = c.has_friction ? 1 : 0;
    } else if (c.has_friction && c.law == ConstraintLaw::kDrive) {
      // A motor that pushed at its maximum last tick starts there, held.
      if (std::abs(f_[k]) >= (1.0 - 1e-9) * c.friction) {
        held_[bi] = 1;
        active_[k] = 0;
      }
    } else if (c.has_friction &&
               (c.law == ConstraintLaw::kBilateralFriction || active_[k])) {
      const bool contact = c.law == ConstraintLaw::kFrictionContact;
      const double bound = c.friction * (contact ? f_[k] : Norm2(f_[k], f_[k + 1]));
      const double tangential = contact ? Norm2(f_[k + 1], f_[k + 2]) : std::abs(f_[k + 2]);
      if (bound > 0.0 && tangential >= (1.0 - 1e-9) * bound) {
        held_[bi] = 1;
        for (int d = contact ? 1 : 2; d < 3; ++d) active_[k + d] = 0;
      }
    }
  }
}

// Per body its coupled group, or -1 (the world slot too).
void TunableLcpSolver::SetGroups(std::span<const CoupledPoints> coupled) {
  groups_ = coupled;
  group_of_.assign(num_bodies_ + 1, -1);
  size_t total = 0;
  for (size_t g = 0; g < coupled.size(); ++g) {
    assert(coupled[g].first + coupled[g].count <= num_bodies_);
    for (int p = 0; p < coupled[g].count; ++p)
      group_of_[coupled[g].first + p] = static_cast<int>(g);
    total += 3 * static_cast<size_t>(coupled[g].count);
  }
  group_motion_.resize(static_cast<Eigen::Index>(total));
}

// The grouped sides' share of W's diagonal on block bi: row d moves a grouped point along
// its linear part l_d (a point block's l_d on side a, -l_d on side b), so adds l_d^T G_pp l_d.
Vec3 TunableLcpSolver::GroupDiagonal(size_t bi) const {
  const BlockInfo& c = block_[bi];
  Vec3 w = Vec3::Zero();
  for (const uint32_t body : {c.body_a, c.body_b}) {
    const int g = group_of_[body];
    if (g < 0) continue;
    const CoupledPoints& group = groups_[g];
    const Eigen::Index p = 3 * static_cast<Eigen::Index>(body - group.first);
    const Mat3 own = group.compliance.block<3, 3>(p, p);
    for (int d = 0; d < c.dim; ++d) {
      Vec3 l;
      if (c.point) {
        l = Vec3(frame_[bi].l[3 * d], frame_[bi].l[3 * d + 1], frame_[bi].l[3 * d + 2]);
      } else {
        const RowJacobian& j = jac_[c.first_row + d];
        const std::array<double, 6>& half = body == c.body_a ? j.a : j.b;
        l = Vec3(half[0], half[1], half[2]);
      }
      w[d] += l.dot(own * l);
    }
  }
  return w;
}

// Each body's accumulated generalized force g becomes its displacement C g; returns the sum
// of g . C g (the world slot is cleared: it does not move). The points of a coupled group
// move together, G g over the group's linear forces; the loop over the bodies clears their
// own entries (zero compliance), and the groups' displacements are written in after it.
double TunableLcpSolver::ApplyCompliance(std::vector<Vec6>* out) {
  std::vector<Vec6>& acc = *out;
  double xwx = 0.0;
  Eigen::Index offset = 0;
  for (const CoupledPoints& group : groups_) {
    const Eigen::Index size = 3 * static_cast<Eigen::Index>(group.count);
    group_force_.resize(size);
    for (int q = 0; q < group.count; ++q) {
      group_force_.segment<3>(3 * q) = acc[group.first + q].head<3>();
    }
    auto motion = group_motion_.segment(offset, size);
    motion.noalias() = group.compliance * group_force_;
    xwx += group_force_.dot(motion);
    offset += size;
  }
  for (size_t n = 0; n < num_bodies_; ++n) {
    const BodyBlock& c = body_c_[n];
    Vec6& g = acc[n];
    const double t0 = g[3], t1 = g[4], t2 = g[5];
    const double r0 = c.angular[0] * t0 + c.angular[1] * t1 + c.angular[2] * t2;
    const double r1 = c.angular[3] * t0 + c.angular[4] * t1 + c.angular[5] * t2;
    const double r2 = c.angular[6] * t0 + c.angular[7] * t1 + c.angular[8] * t2;
    const double lin = c.linear * (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
    xwx += lin + t0 * r0 + t1 * r1 + t2 * r2;
    g[0] *= c.linear;
    g[1] *= c.linear;
    g[2] *= c.linear;
    g[3] = r0;
    g[4] = r1;
    g[5] = r2;
  }
  acc[num_bodies_].setZero();  // the world does not move
  offset = 0;
  for (const CoupledPoints& group : groups_) {
    for (int q = 0; q < group.count; ++q) {
      acc[group.first + q].head<3>() = group_motion_.segment<3>(offset + 3 * q);
    }
    offset += 3 * static_cast<Eigen::Index>(group.count);
  }
  return xwx;
}

// The next direction and its displacements in one pass over the rows: either p = z + beta p
// on the active rows (CG continues), or, after a set change (`restart`), the pending
// displacement change of the moved bodies gathered into the violations of their rows, the
// CG sequence restarted there (z = -P delta, p = z) and the change joined to body_f_. Each
// row's p is then spread as in Spread. Returns p . W p.
double TunableLcpSolver::SpreadDirection(bool restart, double beta, double* residual) {
  std::fill(body_.begin(), body_.end(), Vec6::Zero());
  double rz = 0.0;  // a local: a member could alias the rows' stores
  double equality = 0.0;
  double rest = 0.0;  // vanishing penetration and held friction's distance
  const bool measure = restart && residual != nullptr;
  // Row by row (not a point block's), each spread into its bodies as it comes.
  auto spread_row = [&](uint32_t i) {
    if (restart) {
      RestartRow(i, GatherChange(i), &rz, &equality);
    } else {
      p_[i] = active_[i] ? z_[i] + beta * p_[i] : 0.0;
    }
    const double x = p_[i];
    if (x == 0.0) return;
    const RowJacobian& j = jac_[i];
    double* ga = body_[j.body_a].data();
    double* gb = body_[j.body_b].data();
    for (int m = 0; m < 6; ++m) ga[m] += j.a[m] * x;
    for (int m = 0; m < 6; ++m) gb[m] += j.b[m] * x;
  };
  // Without point blocks or a residual to measure, the blocks' bounds are not needed.
  if (!has_points_ && !measure) {
    for (uint32_t i = 0; i < num_rows_; ++i) spread_row(i);
  }
  for (size_t bi = 0; (has_points_ || measure) && bi < block_.size(); ++bi) {
    const BlockInfo& c = block_[bi];
    const uint32_t k = c.first_row;
    if (c.point) {
      // A restart first gathers the pending change of the block's bodies, if they moved.
      const uint32_t a = c.body_a;
      const uint32_t b = c.body_b;
      // (Untracked tangents of a vanishing contact are left: their violation is worked out
      // afresh when the contact is clamped.)
      if (restart && (changed_[a] | changed_[b])) {
        const int count = tracked_[k + 1] ? 3 : 1;
        double dq[3];
        BlockDot(bi, count, change_[a].data(), change_[b].data(), dq);
        for (int d = 0; d < count; ++d) delta_[k + d] += dq[d];
      }
      double x[3];
      for (int d = 0; d < 3; ++d) {
        const uint32_t i = k + d;
        if (restart) {
          RestartRow(i, delta_[i], &rz, &equality);
        } else {
          p_[i] = active_[i] ? z_[i] + beta * p_[i] : 0.0;
        }
        x[d] = p_[i];
      }
      if (x[0] != 0.0 || x[1] != 0.0 || x[2] != 0.0) {
        BlockSpread(bi, x, body_[a].data(), body_[b].data());
      }
    } else {
      for (uint32_t i = k; i < k + c.dim; ++i) spread_row(i);
    }
    if (measure) {
      for (uint32_t i = k; i < k + c.dim; ++i) {
        if (!active_[i] && kind_[i] == RowKind::kNormal) rest = std::max(rest, -delta_[i]);
      }
      rest = std::max(rest, FrictionLawDistance(bi));
    }
  }
  if (restart) {
    rz_ = rz;
    JoinChanges();
  }
  if (measure) *residual = std::max(equality, rest);
  return ApplyCompliance(&body_);
}

// The CG step itself. q = W p is gathered row by row from body_ (C H^T p) in the same pass
// that moves the forces and violations and forms the new preconditioned residual; *beta,
// from its r . z, makes the next direction (in SpreadDirection).
double TunableLcpSolver::Step(double pq, double* beta, double* vanishing) {
  const double alpha = rz_ / pq;
  assert(std::isfinite(alpha));
  for (size_t n = 0; n < num_bodies_; ++n) body_f_[n] += alpha * body_[n];
  double rz_next = 0.0;
  double equality = 0.0;
  double penetration = 0.0;
  // Row i's violation moved by q; an active row's force, residual and sums follow.
  auto advance = [&](uint32_t i, double q) {
    const double d = delta_[i] + alpha * q;
    delta_[i] = d;
    if (!active_[i]) {
      if (kind_[i] == RowKind::kNormal) penetration = std::max(penetration, -d);
      return;
    }
    f_[i] += alpha * p_[i];
    const double z = -precond_[i] * d;
    z_[i] = z;
    rz_next -= d * z;
    equality = std::max(equality, std::abs(d));
  };
  // Every tracked row's violation moves (vanishing rows and held friction are checked on
  // it); only active rows carry a direction. Untracked rows are the tangents of a
  // vanishing contact, after its normal.
  auto advance_row = [&](uint32_t i) {
    if (!tracked_[i]) return;
    const RowJacobian& j = jac_[i];
    advance(i, RowDot(j, body_[j.body_a].data(), body_[j.body_b].data()));
  };
  if (!has_points_) {
    for (uint32_t i = 0; i < num_rows_; ++i) advance_row(i);
  }
  for (size_t bi = 0; has_points_ && bi < block_.size(); ++bi) {
    const BlockInfo& c = block_[bi];
    const uint32_t k = c.first_row;
    if (c.point) {
      const int count = tracked_[k + 1] ? 3 : 1;
      double q[3];
      BlockDot(bi, count, body_[c.body_a].data(), body_[c.body_b].data(), q);
      for (int r = 0; r < count; ++r) advance(k + r, q[r]);
    } else {
      for (uint32_t i = k; i < k + c.dim; ++i) advance_row(i);
    }
  }
  *beta = rz_next / rz_;
  rz_ = rz_next;
  *vanishing = penetration;
  return equality;
}

// delta_free + H body_f_ for a block's rows (pending changes are gathered by the restart).
void TunableLcpSolver::BlockViolation(size_t bi, double* out) const {
  const BlockInfo& c = block_[bi];
  BlockDot(bi, c.dim, body_f_[c.body_a].data(), body_f_[c.body_b].data(), out);
  for (int d = 0; d < c.dim; ++d) out[d] += free_[c.first_row + d];
}

// The pending displacement changes join body_f_ and are cleared.
void TunableLcpSolver::JoinChanges() {
  for (size_t n = 0; n < num_bodies_; ++n) {
    if (!changed_[n]) continue;
    body_f_[n] += change_[n];
    change_[n].setZero();
    changed_[n] = 0;
  }
}

// Adds to the pending change of the bodies' displacements (change_, applied to body_f_ and
// delta by the next restart) the displacements of a change `df` of block bi's forces.
void TunableLcpSolver::SpreadBlockChange(size_t bi, const double* df) {
  AddBlockDisplacement(bi, df, &change_, &changed_);
}

// out += C H^T df for a change df of block bi's forces, marking the bodies it moves in
// `moved` (when given).
void TunableLcpSolver::AddBlockDisplacement(size_t bi, const double* df, std::vector<Vec6>* out,
                                            std::vector<uint8_t>* moved) {
  const BlockInfo& c = block_[bi];
  bool moves = false;
  for (int d = 0; d < c.dim; ++d) moves |= df[d] != 0.0;
  if (!moves) return;
  double g[2][6] = {};
  BlockSpread(bi, df, g[0], g[1]);
  const uint32_t bodies[2] = {c.body_a, c.body_b};
  for (int side = 0; side < 2; ++side) {
    const uint32_t body = bodies[side];
    if (body == num_bodies_) continue;
    const double* h = g[side];
    // A point of a coupled group moves the group's every point.
    if (const int gi = group_of_[body]; gi >= 0) {
      const CoupledPoints& group = groups_[gi];
      const Eigen::Index p = 3 * static_cast<Eigen::Index>(body - group.first);
      const Vec3 force(h[0], h[1], h[2]);
      for (int q = 0; q < group.count; ++q) {
        const uint32_t point = group.first + static_cast<uint32_t>(q);
        (*out)[point].head<3>() += group.compliance.block<3, 3>(3 * q, p) * force;
        if (moved != nullptr) (*moved)[point] = 1;
      }
      continue;
    }
    const BodyBlock& bc = body_c_[body];
    if (moved != nullptr) (*moved)[body] = 1;
    Vec6& o = (*out)[body];
    for (int k = 0; k < 3; ++k) o[k] += bc.linear * h[k];
    for (int r = 0; r < 3; ++r) {
      o[3 + r] += bc.angular[3 * r] * h[3] + bc.angular[3 * r + 1] * h[4] +
                  bc.angular[3 * r + 2] * h[5];
    }
  }
}

// The local Coulomb law of a held friction block, given everything else: the stick estimate
// g = f_t - delta_t / w_t (exact when the block's tangential compliance is isotropic) is
// kept if it lies inside the cone, else projected onto the cone's border. Returns how far
// the current force is from it, as the displacement w_t |target - f_t|. Contacts use rows
// 1-2 (bound mu f_n), bilateral-friction blocks row 2 (bound mu |(f0, f1)|).
double TunableLcpSolver::HeldFrictionTarget(size_t bi, double target[2], bool* sticks) const {
  const BlockInfo& c = block_[bi];
  const uint32_t k = c.first_row;
  const double w = c.friction_scale;
  const double w_inv = c.friction_scale_inv;
  if (c.law == ConstraintLaw::kRollingFriction || c.law == ConstraintLaw::kDrive) {
    // The same disc (two rows) or interval (one), bounded by the contact's normal force or
    // the drive's maximum. A drive's own compliance gamma joins its estimate:
    // g = f - (delta + gamma f) / (w + gamma).
    const double bound = HeldBound(c);
    const double f1 = c.dim == 2 ? f_[k + 1] : 0.0;
    const double gamma = c.compliance;
    const double estimate_inv = gamma > 0.0 ? 1.0 / (w + gamma) : w_inv;
    double g[2] = {0.0, 0.0};
    for (int t = 0; t < c.dim; ++t) {
      g[t] = kind_[k + t] == RowKind::kFriction
                 ? f_[k + t] - (delta_[k + t] + gamma * f_[k + t]) * estimate_inv
                 : 0.0;
    }
    const double norm = Norm2(g[0], g[1]);
    *sticks = norm <= bound;
    const double scale = *sticks ? 1.0 : bound / norm;
    target[0] = scale * g[0];
    target[1] = scale * g[1];
    return w * Norm2(target[0] - f_[k], target[1] - f1);
  }
  if (c.law == ConstraintLaw::kFrictionContact) {
    const double bound = c.friction * f_[k];
    double g[2];
    for (int t = 0; t < 2; ++t) {
      const uint32_t i = k + 1 + t;
      g[t] = kind_[i] == RowKind::kFriction ? f_[i] - delta_[i] * w_inv : 0.0;
    }
    const double norm = Norm2(g[0], g[1]);
    *sticks = norm <= bound;
    const double scale = *sticks ? 1.0 : bound / norm;
    target[0] = scale * g[0];
    target[1] = scale * g[1];
    return w * Norm2(target[0] - f_[k + 1], target[1] - f_[k + 2]);
  }
  const double bound = c.friction * Norm2(f_[k], f_[k + 1]);
  const double g = f_[k + 2] - delta_[k + 2] * w_inv;
  *sticks = std::abs(g) <= bound;
  target[0] = *sticks ? g : std::copysign(bound, g);
  target[1] = 0.0;
  return w * std::abs(target[0] - f_[k + 2]);
}

// Radial clamp: a contact's tangential force onto the disc |f_t| <= mu f_n, a
// bilateral-friction block's row 2 onto [-mu |(f0, f1)|, mu |(f0, f1)|].
bool TunableLcpSolver::ClampToCone(size_t bi) {
  const BlockInfo& c = block_[bi];
  const uint32_t k = c.first_row;
  if (c.law == ConstraintLaw::kRollingFriction || c.law == ConstraintLaw::kDrive) {
    const double bound = HeldBound(c);
    const double f1 = c.dim == 2 ? f_[k + 1] : 0.0;
    const double squared = f_[k] * f_[k] + f1 * f1;
    if (!(squared > bound * bound)) return false;
    const double scale = bound > 0.0 ? bound / std::sqrt(squared) : 0.0;
    for (int d = 0; d < c.dim; ++d) f_[k + d] *= scale;
    return true;
  }
  if (c.law == ConstraintLaw::kFrictionContact) {
    const double bound = c.friction * f_[k];
    const double squared = f_[k + 1] * f_[k + 1] + f_[k + 2] * f_[k + 2];
    if (bound >= 0.0 && !(squared > bound * bound)) return false;  // inside: no root needed
    const double tangential = std::sqrt(squared);
    if (!(tangential > bound)) return false;
    const double scale = bound > 0.0 ? bound / tangential : 0.0;
    f_[k + 1] *= scale;
    f_[k + 2] *= scale;
    return true;
  }
  const double bound = c.friction * Norm2(f_[k], f_[k + 1]);
  if (!(std::abs(f_[k + 2]) > bound)) return false;
  f_[k + 2] = std::copysign(bound, f_[k + 2]);
  return true;
}

// How far block bi's friction force lies outside its cone, as the displacement w_t
// (|f_t| - bound) that scaling it back onto the cone would cause; 0 inside (no root then).
double TunableLcpSolver::ConeExcess(size_t bi) const {
  const BlockInfo& c = block_[bi];
  const uint32_t k = c.first_row;
  double bound = 0.0;
  double squared = 0.0;
  if (c.law == ConstraintLaw::kFrictionContact) {
    bound = c.friction * f_[k];
    squared = f_[k + 1] * f_[k + 1] + f_[k + 2] * f_[k + 2];
  } else if (c.law == ConstraintLaw::kRollingFriction || c.law == ConstraintLaw::kDrive) {
    bound = HeldBound(c);
    const double f1 = c.dim == 2 ? f_[k + 1] : 0.0;
    squared = f_[k] * f_[k] + f1 * f1;
  } else {
    bound = c.friction * Norm2(f_[k], f_[k + 1]);
    squared = f_[k + 2] * f_[k + 2];
  }
  bound = std::max(bound, 0.0);
  if (!(squared > bound * bound)) return 0.0;
  return c.friction_scale * (std::sqrt(squared) - bound);
}

// The friction law's violation of block bi (m): a held block's distance from its Coulomb
// force, a sticking block's excess over its cone.
double TunableLcpSolver::FrictionLawDistance(size_t bi) const {
  if (!held_[bi]) return block_[bi].has_friction ? ConeExcess(bi) : 0.0;
  double target[2];
  bool sticks = false;
  return HeldFrictionTarget(bi, target, &sticks);
}

// Friction of one block in play (a clamped contact, or a bilateral-friction block). While
// it sticks, its rows are equality rows; a force that left the cone by more than
// hold_threshold (as the displacement its clamp would cause) is scaled back onto it and the
// block becomes held. A held block returns to sticking when its stick estimate lies inside
// the cone, and takes its Coulomb force when that differs from the current one by more
// than hold_threshold.
// A smaller excess waits, as a held block's refresh does: while CG still has more than that
// to do, the normal forces the cone is measured by are still moving (from a cold start
// they grow from zero), and clamping onto a cone that is still too narrow would let the
// contact slide and restart CG for nothing. The wait is counted in the residual, and
// Finish puts every force it returns into its cone.
bool TunableLcpSolver::CheckFriction(size_t bi, double hold_threshold) {
  const BlockInfo& c = block_[bi];
  const uint32_t k = c.first_row;
  const int first = FirstFrictionRow(c.law);
  if (!held_[bi]) {
    const double excess = ConeExcess(bi);
    if (!(excess > hold_threshold)) {
      friction_distance_ = std::max(friction_distance_, excess);
      return false;
    }
    ClampToCone(bi);
    held_[bi] = 1;
    for (int d = first; d < c.dim; ++d) active_[k + d] = 0;
    return true;
  }
  double target[2];
  bool sticks = false;
  const double distance = HeldFrictionTarget(bi, target, &sticks);
  // (Rolling friction and springs stay held, taking their estimate below.)
  if (sticks && !AlwaysHeld(c)) {
    held_[bi] = 0;
    for (int d = first; d < c.dim; ++d) active_[k + d] = kind_[k + d] == RowKind::kFriction;
    return true;
  }
  if (!(distance > hold_threshold)) {
    friction_distance_ = std::max(friction_distance_, distance);
    return false;
  }
  // The target's rows from the first friction row on (one or two of them).
  for (int d = first; d < c.dim; ++d) f_[k + d] = target[d - first];
  return true;
}

// The friction of block bi, if in play, checked (CheckFriction); a change of its forces is
// spread into the pending change. Returns whether anything changed.
[[gnu::always_inline]] inline bool TunableLcpSolver::CheckBlockFriction(size_t bi,
                                                                       double hold_threshold) {
  const BlockInfo& c = block_[bi];
  const uint32_t k = c.first_row;
  double before[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < c.dim; ++d) before[d] = f_[k + d];
  if (!CheckFriction(bi, hold_threshold)) return false;
  double df[3] = {0.0, 0.0, 0.0};
  for (int d = 0; d < c.dim; ++d) df[d] = f_[k + d] - before[d];
  SpreadBlockChange(bi, df);
  return true;
}

// The normal of block bi. A clamped unilateral row that pulls is released (force 0, its
// friction with it); a vanishing row penetrating by more than the threshold is clamped (its
// friction rows join as sticking, from zero force). Returns whether anything changed;
// *friction_in_play whether the block's friction is then to be checked.
[[gnu::always_inline]] inline bool TunableLcpSolver::CheckNormal(size_t bi,
                                                                double switch_threshold,
                                                                bool* friction_in_play) {
  const BlockInfo& c = block_[bi];
  if (c.law == ConstraintLaw::kRollingFriction) return CheckRollingContact(bi, friction_in_play);
  if (c.law == ConstraintLaw::kDrive) {
    // A drive is always in play: a motor against its bound, a spring by its law.
    *friction_in_play = c.has_friction;
    return false;
  }
  const uint32_t k = c.first_row;
  bool changed = false;
  *friction_in_play = false;
  if (c.law == ConstraintLaw::kUnilateral || c.law == ConstraintLaw::kFrictionContact) {
    if (kind_[k] != RowKind::kNormal) return false;
    if (active_[k] && f_[k] < 0.0) {
      double df[3] = {0.0, 0.0, 0.0};
      for (int d = 0; d < c.dim; ++d) {
        df[d] = -f_[k + d];
        active_[k + d] = 0;
        f_[k + d] = 0.0;
        tracked_[k + d] = d == 0;  // a vanishing contact's tangents are not looked at
      }
      SpreadBlockChange(bi, df);
      held_[bi] = 0;
      return true;
    }
    if (!active_[k] && delta_[k] < -switch_threshold) {
      // Untracked rows (a vanishing contact's tangents) get their violation back.
      double y[3];
      if (c.dim > 1 && !tracked_[k + 1]) BlockViolation(bi, y);
      for (int d = 0; d < c.dim; ++d) {
        active_[k + d] = kind_[k + d] != RowKind::kInert;
        if (!tracked_[k + d]) {
          delta_[k + d] = y[d];
          tracked_[k + d] = 1;
        }
      }
      held_[bi] = 0;
      changed = true;
    }
    if (!active_[k]) return changed;
  }
  *friction_in_play = c.has_friction;
  return changed;
}

// A rolling block follows its contact's normal row, checked before it in the same pass:
// while that vanishes, the block is out of play at zero torque; while it is clamped, the
// block is held and its local law is to be checked (*friction_in_play). Returns whether
// its torque changed.
bool TunableLcpSolver::CheckRollingContact(size_t bi, bool* friction_in_play) {
  const BlockInfo& c = block_[bi];
  const uint32_t k = c.first_row;
  *friction_in_play = false;
  if (!c.has_friction) return false;
  if (!active_[c.normal_row]) {
    bool changed = false;
    double df[2] = {0.0, 0.0};
    for (int d = 0; d < c.dim; ++d) {
      changed |= f_[k + d] != 0.0;
      df[d] = -f_[k + d];
      f_[k + d] = 0.0;
    }
    SpreadBlockChange(bi, df);
    return changed;
  }
  held_[bi] = 1;
  *friction_in_play = true;
  return false;
}

// The inequalities of block bi: its normal (CheckNormal), then its friction against its
// cone, when in play. Returns whether any force or set changed.
[[gnu::always_inline]] inline bool TunableLcpSolver::CheckBlock(size_t bi,
                                                               double switch_threshold,
                                                               double hold_threshold) {
  bool friction_in_play = false;
  const bool changed = CheckNormal(bi, switch_threshold, &friction_in_play);
  if (!friction_in_play) return changed;
  return CheckBlockFriction(bi, hold_threshold) || changed;
}

// The inequality check after a step, block by block (CheckBlock).
bool TunableLcpSolver::CheckInequalities(double switch_threshold, double hold_threshold) {
  bool changed = false;
  friction_distance_ = 0.0;
  for (size_t bi = 0; bi < block_.size(); ++bi) {
    changed |= CheckBlock(bi, switch_threshold, hold_threshold);
  }
  return changed;
}

// The start of a solve in one pass over the blocks. Each block's violation under the
// current forces, delta_free + H (C H^T f) from body_f_; a fresh CG sequence on it (the
// residual of W_AA f_A = -delta_free_A is -delta_A, inactive rows carry no force, and the
// first direction is the preconditioned residual); then the block's inequalities checked
// as after a step, normals first (CheckNormal, every penetrating vanishing row clamped), and
// the tangents of a contact left vanishing untracked. Friction leaves the cone or is
// refreshed only when that moves it by more than the active rows' violation (or half the
// tolerance), which is known at the end of the pass: the blocks whose friction is in play
// are checked then. Returns whether any force or set changed (a restart is then due);
// *equality gets the largest |delta| over active rows and *residual, when nothing changed,
// the residual (as Finish measures it).
bool TunableLcpSolver::StartSequence(double tolerance, double* equality, double* residual) {
  double rz = 0.0;  // a local: a member could alias the rows' stores
  double largest = 0.0;
  double rest = 0.0;  // vanishing penetration
  bool changed = false;
  friction_later_.clear();
  for (size_t bi = 0; bi < block_.size(); ++bi) {
    const BlockInfo& c = block_[bi];
    const uint32_t k = c.first_row;
    double y[3];
    BlockViolation(bi, y);
    for (int d = 0; d < c.dim; ++d) {
      delta_[k + d] = y[d];
      RestartRow(k + d, y[d], &rz, &largest);
    }
    bool friction_in_play = false;
    changed |= CheckNormal(bi, 0.0, &friction_in_play);
    if (friction_in_play) friction_later_.push_back(static_cast<uint32_t>(bi));
    if (!active_[k]) {
      if (kind_[k] == RowKind::kNormal) rest = std::max(rest, -delta_[k]);
      if (c.law == ConstraintLaw::kFrictionContact) tracked_[k + 1] = tracked_[k + 2] = 0;
    }
  }
  rz_ = rz;
  friction_distance_ = 0.0;
  const double hold_threshold = std::max(0.5 * tolerance, largest);
  for (const uint32_t bi : friction_later_) changed |= CheckBlockFriction(bi, hold_threshold);
  *equality = largest;
  *residual = changed ? std::numeric_limits<double>::infinity()
                      : std::max({largest, rest, friction_distance_});
  return changed;
}

// Forces out, and the displacements of exactly these forces, in one pass that also brings
// every row's violation up to date and measures the residual from it. A held friction
// force may lag its normal force by less than the tolerance, a warm start cut short may
// not have been checked at all, and the last step is not checked: a pulling contact is
// released and friction put back onto the cone, so that every output force lies within its
// bounds. Those last clamps move the bodies (body_, joined at the end) but not the
// residual, which is the solve's.
double TunableLcpSolver::Finish(bool fresh, ConstraintRows& rows,
                                std::vector<Vec6>* displacements) {
  std::fill(body_.begin(), body_.end(), Vec6::Zero());
  double residual = 0.0;
  for (size_t bi = 0; bi < rows.blocks.size(); ++bi) {
    ConstraintBlock& b = rows.blocks[bi];
    const BlockInfo& c = block_[bi];
    const uint32_t k = c.first_row;
    if (fresh) {
      double y[3];
      BlockViolation(bi, y);
      for (int d = 0; d < c.dim; ++d) delta_[k + d] = y[d];
    } else if (changed_[c.body_a] | changed_[c.body_b]) {
      double dq[3];
      BlockDot(bi, c.dim, change_[c.body_a].data(), change_[c.body_b].data(), dq);
      for (int d = 0; d < c.dim; ++d) delta_[k + d] += dq[d];
    }
    for (int d = 0; d < c.dim; ++d) {
      const uint32_t i = k + d;
      const double y = delta_[i];
      if (active_[i]) {
        residual = std::max(residual, std::abs(y));
      } else if (kind_[i] == RowKind::kNormal) {
        residual = std::max(residual, -y);
      }
    }
    residual = std::max(residual, FrictionLawDistance(bi));
    // The forces into their bounds: a pulling contact (left by an unchecked last step) lets
    // go, its friction with it; friction goes back onto its cone. The change moves the
    // bodies.
    double before[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < c.dim; ++d) before[d] = f_[k + d];
    if (kind_[k] == RowKind::kNormal && f_[k] < 0.0) {
      for (int d = 0; d < c.dim; ++d) f_[k + d] = 0.0;
    } else if (c.has_friction) {
      ClampToCone(bi);
    }
    double df[3] = {0.0, 0.0, 0.0};
    for (int d = 0; d < c.dim; ++d) df[d] = f_[k + d] - before[d];
    AddBlockDisplacement(bi, df, &body_, nullptr);
    b.force.setZero();
    for (int d = 0; d < c.dim; ++d) b.force[d] = f_[k + d];
    assert(b.force.allFinite());
  }
  JoinChanges();
  for (size_t n = 0; n < num_bodies_; ++n) (*displacements)[n] = body_f_[n] + body_[n];
  return residual;
}

SolveResult TunableLcpSolver::Solve(ConstraintRows& rows,
                                    std::span<const BodyCompliance> compliance,
                                    const SolverOptions& options,
                                    std::vector<Vec6>* displacements) {
  return Solve(rows, compliance, {}, options, displacements);
}

SolveResult TunableLcpSolver::Solve(ConstraintRows& rows,
                                    std::span<const BodyCompliance> compliance,
                                    std::span<const CoupledPoints> coupled,
                                    const SolverOptions& options,
                                    std::vector<Vec6>* displacements) {
  const SolveClock clock(options.time_budget_us);
  std::vector<Vec6>& dq = *displacements;
  dq.assign(compliance.size(), Vec6::Zero());
  SolveResult result;
  if (rows.blocks.empty()) return result;
  const int min_iterations = std::min(options.min_iterations, options.max_iterations);
  // A solve that may end before its first step looks at the clock during its preparation.
  // Once the budget is spent there, a cold solve (or one told not to keep its warm forces)
  // returns zero forces at once; a warm one finishes preparing and returns its warm forces.
  const bool may_skip = min_iterations <= 0;
  const Prepared prepared = Prepare(rows, compliance, coupled, clock, options.warm_start, may_skip,
                                    !(options.warm_start && options.keep_warm_when_late));
  if (prepared == Prepared::kStopped) {
    for (ConstraintBlock& b : rows.blocks) b.force.setZero();
    result.budget_exhausted = true;
    return result;
  }
  if (prepared == Prepared::kLate) {
    result.budget_exhausted = options.max_iterations > 0;
    result.residual = Finish(/*fresh=*/true, rows, displacements);
    return result;
  }

  // The starting forces' violations (delta_free where they are zero), with vanishing rows
  // that already penetrate clamped (without warm start: every row with delta_free < 0) and
  // warm friction brought into the cone before the first step (StartSequence).
  // With a budget, a step is begun only while the end of the solve (Finish, one pass over
  // the rows, judged by that start, which is a little longer) still fits in what is left,
  // its end included (and after a first step, one more like it: see no_room below).
  const bool budgeted = options.time_budget_us > 0.0;
  double mark_us = budgeted ? clock.ElapsedUs() : 0.0;
  // The residual decides the loop only with a positive tolerance; with none the loop runs
  // to its cap or its budget and the residual is needed once, at the end. A set change is
  // not gathered at once: its restart rides on the next step's spread (SpreadDirection),
  // which measures the residual in the same pass, and saves a pass over the rows.
  const bool converge_test = options.tolerance > 0.0;
  double equality = 0.0;
  double residual = 0.0;
  bool restart_pending = StartSequence(options.tolerance, &equality, &residual);
  if (converge_test) result.residual = residual;
  double finish_us = 0.0;
  if (budgeted) {
    const double now = clock.ElapsedUs();
    finish_us = now - mark_us;
    mark_us = now;
  }
  double last_step_us = 0.0;
  double first_step_end_us = 0.0;  // for one_step_us
  auto no_room = [&](int steps, double now) {
    return budgeted && steps >= min_iterations &&
           now + last_step_us + finish_us >= options.time_budget_us;
  };
  if (no_room(0, mark_us)) {
    result.budget_exhausted = options.max_iterations > 0;
    result.residual = Finish(/*fresh=*/false, rows, displacements);
    return result;
  }

  // One CG step on the active rows, then the inequality check; any change restarts CG from
  // the current forces. Stops on convergence, at the iteration cap or when the budget has
  // no room left but for the end (see above). A vanishing row is clamped only when it
  // penetrates by more than half the tolerance, so that round-off cannot cycle a row that
  // just touches between the sets.
  const double switch_threshold = 0.5 * options.tolerance;
  int it = 0;
  double beta = 0.0;  // p is already z after a restart
  while ((!converge_test || result.residual >= options.tolerance) &&
         it < options.max_iterations) {
    const double step_start_us = budgeted ? clock.ElapsedUs() : 0.0;
    if (no_room(it, step_start_us)) {
      result.budget_exhausted = true;
      break;
    }
    const double pq =
        SpreadDirection(restart_pending, beta, converge_test ? &result.residual : nullptr);
    // A restart measured the residual of the changed forces: converged, no step is taken.
    if (restart_pending && converge_test && result.residual < options.tolerance) break;
    restart_pending = false;
    // A direction W barely bends (pq against r . z, which it matches when W is near its
    // diagonal) lies in W's null space: redundant rows, such as many contacts of one body on
    // one plane, make W singular, and such a step's length rz / pq would blow up. CG has
    // then done what it can on these rows.
    const bool can_step = pq > kMinRelativeCurvature * rz_ && rz_ > 0.0;
    beta = 0.0;
    double vanishing = 0.0;
    if (can_step) equality = Step(pq, &beta, &vanishing);
    ++it;
    // The last step (at the cap, or when even a step without its check would not fit) is
    // not checked: no step follows to use the changed sets, and Finish puts the forces
    // into their bounds all the same.
    const double stepped_us = budgeted ? clock.ElapsedUs() : 0.0;
    if (it == 1) first_step_end_us = stepped_us;
    if (it == options.max_iterations ||
        (budgeted && it >= min_iterations &&
         2.0 * stepped_us - step_start_us + finish_us >= options.time_budget_us)) {
      result.budget_exhausted = it < options.max_iterations;
      break;
    }
    // Held friction is refreshed only when that matters more than what CG still has to do.
    const bool changed = CheckInequalities(switch_threshold, std::max(switch_threshold, equality));
    if (changed) {
      // The changed forces' residual is measured by the restart they call for.
      restart_pending = true;
      result.residual = std::numeric_limits<double>::infinity();
    } else if (converge_test && can_step) {
      // The residual without a pass: the step measured the active rows and the vanishing
      // normals, the check the held friction, and nothing has moved since.
      result.residual = std::max({equality, vanishing, friction_distance_});
    }
    // Nothing left to do on the active rows and nothing changed: further steps are idle.
    if (!can_step && !changed) break;
    if (converge_test && result.residual < options.tolerance) break;
    const double now = budgeted ? clock.ElapsedUs() : 0.0;
    last_step_us = now - step_start_us;
    if (no_room(it, now)) {
      result.budget_exhausted = it < options.max_iterations;
      break;
    }
  }
  result.iterations = it;
  // The violations of the final forces (a pending change gathered), and the forces out.
  const double finish_start_us = budgeted ? clock.ElapsedUs() : 0.0;
  result.residual = Finish(/*fresh=*/false, rows, displacements);
  if (budgeted && it > 0) {
    result.one_step_us = first_step_end_us + (clock.ElapsedUs() - finish_start_us);
  }
  return result;
}

}  // namespace ligature
