#include "server/constraint/rod/rod_rows.h"

#include <algorithm>
#include <cmath>

namespace ligature {
namespace {

// A rod point during row building: its rod, basis at u, and the unknowns' layout.
struct PointEval {
  const RodView* rod = nullptr;
  SplineSample s;
  int stride = 4;  // unknowns per control point
  Vec3 x() const { return rod->state->Position(s); }
  Vec3 xp() const { return rod->state->Tangent(s); }
  Vec3 xpp() const { return rod->state->Curvature(s); }
};

PointEval Eval(std::span<const RodView> rods, int rod, double u, int stride = 4) {
  PointEval p;
  p.rod = &rods[rod];
  p.s = rods[rod].model->spline().Sample(u);
  p.stride = stride;
  return p;
}

// The same, through a constraint's cache of the basis at that u.
PointEval Eval(std::span<const RodView> rods, int rod, double u, int stride,
               RodConstraint::CachedSample& cache) {
  if (cache.u != u) {
    cache.u = u;
    cache.s = rods[rod].model->spline().Sample(u);
  }
  PointEval p;
  p.rod = &rods[rod];
  p.s = cache.s;
  p.stride = stride;
  return p;
}

// Which basis a term uses: the value b (positions) or the slope b' (tangents).
enum class Basis { kValue, kSlope };

// Adds scale * (basis_i * dir) . dx_i over the four control points of p (nothing when p's
// rod is held).
void AddTerms(const PointEval& p, Basis basis, const Vec3& dir, double scale, KktRow* row) {
  if (p.rod->first_point < 0) return;
  const auto& w = basis == Basis::kValue ? p.s.b : p.s.db;
  for (int k = 0; k < 4; ++k) {
    const int base = p.stride * (p.rod->first_point + p.s.first + k);
    for (int d = 0; d < 3; ++d) {
      const double c = scale * w[k] * dir[d];
      if (c != 0.0) row->terms.emplace_back(base + d, c);
    }
  }
}
void AddTwistTerms(const PointEval& p, KktRow* row) {
  if (p.rod->first_point < 0) return;
  for (int k = 0; k < 4; ++k) {
    const int twist = p.stride == 1 ? 0 : 3;
    row->terms.emplace_back(p.stride * (p.rod->first_point + p.s.first + k) + twist, p.s.b[k]);
  }
}

// The control point with the largest weight at p: where the constraint sits in the graph.
int Anchor(const PointEval& p) {
  if (p.rod->first_point < 0) return -1;
  const auto it = std::max_element(p.s.b.begin(), p.s.b.end());
  return p.rod->first_point + p.s.first + static_cast<int>(it - p.s.b.begin());
}

// Three rows g_k = e_k . (value) with the terms given by `fill`.
template <typename Fill>
void AddVectorRows(const Vec3& g, Fill fill, KktGroup* group) {
  for (int k = 0; k < 3; ++k) {
    KktRow row;
    fill(Vec3::Unit(k), &row);
    row.rhs = -g[k];
    group->rows.push_back(std::move(row));
  }
}

// Two unit normals of a unit direction.
void Normals(const Vec3& d, Vec3* n1, Vec3* n2) {
  const Vec3 helper = std::abs(d.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY();
  *n1 = d.cross(helper).normalized();
  *n2 = d.cross(*n1);
}

// The rotation taking unit a to unit b by the shortest arc.
Mat3 ShortestArc(const Vec3& a, const Vec3& b) {
  return Quat::FromTwoVectors(a, b).toRotationMatrix();
}

}  // namespace

void PrepareRodConstraintStep(RodConstraint& c, std::span<const RodView> rods,
                              const Transform* follow_pose) {
  const RodConstraintDesc& d = c.desc;
  c.target = follow_pose ? follow_pose->Apply(d.target) : d.target;
  c.direction = (follow_pose ? follow_pose->Rotate(d.direction) : d.direction).normalized();
  const PointEval a = Eval(rods, c.rod_a, c.u_a);
  switch (d.kind) {
    case RodConstraintKind::kOrientation:
    case RodConstraintKind::kKeyhole:
      // |x'| is kept: only the direction of the tangent is imposed.
      c.tangent_target = a.xp().norm() * c.direction;
      break;
    case RodConstraintKind::kFusion: {
      // Carry the relative rotation along with rod a's tangent.
      const Vec3 ta = a.xp().normalized();
      const Mat3 q = ShortestArc(c.reference_tangent, ta);
      c.relative = q * c.relative * q.transpose();
      c.reference_tangent = ta;
      const PointEval b = Eval(rods, c.rod_b, c.u_b);
      c.tangent_scale = b.xp().norm() / std::max(a.xp().norm(), 1e-12);
      break;
    }
    case RodConstraintKind::kRelativePlane:
      if (d.normal_from_tangent) c.direction = a.xp().normalized();
      break;
    default:
      break;
  }
}

KktGroup BuildRodRows(const RodConstraint& c, std::span<const RodView> rods, double h,
                      RodDofs dofs) {
  const RodConstraintDesc& d = c.desc;
  KktGroup group;
  const int stride = static_cast<int>(dofs);
  const PointEval a = Eval(rods, c.rod_a, c.u_a, stride, c.sample_a);
  group.anchor_a = Anchor(a);
  // The twist system holds only the twist rows of orientation constraints.
  if (dofs == RodDofs::kTwist) {
    if (d.kind == RodConstraintKind::kOrientation && d.twist) {
      KktRow row;
      AddTwistTerms(a, &row);
      row.rhs = *d.twist - a.rod->state->Twist(a.s);
      group.rows.push_back(std::move(row));
    }
    return group;
  }
  const bool relative = IsRelative(d.kind);
  PointEval b;
  if (relative) {
    b = Eval(rods, c.rod_b, c.u_b, stride, c.sample_b);
    group.anchor_b = Anchor(b);
    // A relative constraint whose rod a is held acts on b alone: absolute in the graph.
    if (group.anchor_a < 0) std::swap(group.anchor_a, group.anchor_b);
  }
  auto scalar_row = [&](const Vec3& n, double g, bool with_b) {
    KktRow row;
    AddTerms(a, Basis::kValue, n, 1.0, &row);
    if (with_b) AddTerms(b, Basis::kValue, n, -1.0, &row);
    row.rhs = -g;
    row.active = !d.unilateral || c.active;
    group.rows.push_back(std::move(row));
  };

  switch (d.kind) {
    case RodConstraintKind::kPosition:
      AddVectorRows(a.x() - c.target,
                    [&](const Vec3& e, KktRow* r) { AddTerms(a, Basis::kValue, e, 1.0, r); },
                    &group);
      break;
    case RodConstraintKind::kOrientation:
      AddVectorRows(a.xp() - c.tangent_target,
                    [&](const Vec3& e, KktRow* r) { AddTerms(a, Basis::kSlope, e, 1.0, r); },
                    &group);
      if (d.twist && dofs == RodDofs::kAll) {
        KktRow row;
        AddTwistTerms(a, &row);
        row.rhs = *d.twist - a.rod->state->Twist(a.s);
        group.rows.push_back(std::move(row));
      }
      break;
    case RodConstraintKind::kPlane:
      scalar_row(c.direction, c.direction.dot(a.x() - c.target), false);
      break;
    case RodConstraintKind::kAxis: {
      Vec3 n1, n2;
      Normals(c.direction, &n1, &n2);
      scalar_row(n1, n1.dot(a.x() - c.target), false);
      scalar_row(n2, n2.dot(a.x() - c.target), false);
      break;
    }
    case RodConstraintKind::kSphere: {
      const Vec3 r = a.x() - c.target;
      const double dist = r.norm();
      scalar_row(dist > 1e-12 ? Vec3(r / dist) : c.direction, dist - d.distance, false);
      break;
    }
    case RodConstraintKind::kDistance: {
      const Vec3 r = a.x() - b.x();
      const double dist = r.norm();
      scalar_row(dist > 1e-12 ? Vec3(r / dist) : c.direction, dist - d.distance, true);
      break;
    }
    case RodConstraintKind::kRelativePlane:
      scalar_row(c.direction, c.direction.dot(a.x() - b.x()) - d.distance, true);
      break;
    case RodConstraintKind::kFusion: {
      AddVectorRows(a.x() - b.x(),
                    [&](const Vec3& e, KktRow* r) {
                      AddTerms(a, Basis::kValue, e, 1.0, r);
                      AddTerms(b, Basis::kValue, e, -1.0, r);
                    },
                    &group);
      // x'_b - s R x'_a = 0: b's tangent along a's, turned by the relative rotation.
      const Mat3& rel = c.relative;
      AddVectorRows(b.xp() - c.tangent_scale * rel * a.xp(),
                    [&](const Vec3& e, KktRow* r) {
                      AddTerms(b, Basis::kSlope, e, 1.0, r);
                      AddTerms(a, Basis::kSlope, rel.transpose() * e, -c.tangent_scale, r);
                    },
                    &group);
      break;
    }
    case RodConstraintKind::kKeyhole:
    case RodConstraintKind::kRelativeKeyhole: {
      // x_a(s) - p = 0 with s free: J_s = x'_a(s); viscous friction c |x'|^2 / h on ds.
      const Vec3 p = d.kind == RodConstraintKind::kKeyhole ? Vec3(c.target + c.bead_push)
                                                           : b.x();
      const Vec3 xp = a.xp();
      const bool with_b = d.kind == RodConstraintKind::kRelativeKeyhole;
      group.has_slide = true;
      group.slide_diagonal = d.friction * xp.squaredNorm() / h;
      // A bead is an extra point of the system, linked to the rod point in the graph.
      if (c.bead_point >= 0) group.anchor_b = c.bead_point;
      const Vec3 g = a.x() - p;
      for (int k = 0; k < 3; ++k) {
        KktRow row;
        AddTerms(a, Basis::kValue, Vec3::Unit(k), 1.0, &row);
        if (with_b) AddTerms(b, Basis::kValue, Vec3::Unit(k), -1.0, &row);
        if (c.bead_point >= 0) row.terms.emplace_back(stride * c.bead_point + k, -1.0);
        row.slide_coeff = xp[k];
        row.rhs = -g[k];
        group.rows.push_back(std::move(row));
      }
      if (d.oriented) {
        // x'_a(s) = |x'| direction: J on the slopes, J_s = x''_a(s).
        const Vec3 xpp = a.xpp();
        const Vec3 go = xp - c.tangent_target;
        for (int k = 0; k < 3; ++k) {
          KktRow row;
          AddTerms(a, Basis::kSlope, Vec3::Unit(k), 1.0, &row);
          row.slide_coeff = xpp[k];
          row.rhs = -go[k];
          group.rows.push_back(std::move(row));
        }
      }
      break;
    }
  }
  return group;
}

KktGroup BuildRodContactRow(const RodContact& c, std::span<const RodView> rods, double h) {
  KktGroup group;
  const PointEval p = Eval(rods, c.rod, c.u, static_cast<int>(RodDofs::kPositions));
  group.anchor_a = Anchor(p);
  KktRow row;
  AddTerms(p, Basis::kValue, c.normal, -1.0, &row);
  if (c.mass > 0.0) {
    group.has_slide = true;
    group.slide_diagonal = c.mass / (h * h);
    row.slide_coeff = 1.0;
  }
  row.rhs = -(c.distance + c.push - c.normal.dot(p.x() - c.anchor));
  row.compliance = kRodContactCompliance;
  row.active = c.active;
  group.rows.push_back(std::move(row));
  return group;
}

KktGroup BuildRodPairContactRow(const RodPairContact& c, std::span<const RodView> rods) {
  KktGroup group;
  const PointEval a = Eval(rods, c.rod_a, c.u_a, static_cast<int>(RodDofs::kPositions));
  const PointEval b = Eval(rods, c.rod_b, c.u_b, static_cast<int>(RodDofs::kPositions));
  group.anchor_a = Anchor(a);
  group.anchor_b = Anchor(b);
  if (group.anchor_a < 0) std::swap(group.anchor_a, group.anchor_b);
  if (group.anchor_a < 0) return group;
  // One rod point alone in the system: an absolute row (not a relative one) on it.
  if (group.anchor_b == group.anchor_a) group.anchor_b = -1;
  KktRow row;
  AddTerms(b, Basis::kValue, c.normal, 1.0, &row);
  AddTerms(a, Basis::kValue, c.normal, -1.0, &row);
  row.rhs = -(c.distance + c.normal.dot((b.x() - c.anchor_b) - (a.x() - c.anchor_a)));
  row.compliance = kRodContactCompliance;
  row.active = c.active;
  group.rows.push_back(std::move(row));
  return group;
}

double GroupViolation(const RodConstraint& c, const KktGroup& group) {
  double worst = 0.0;
  for (const KktRow& row : group.rows) {
    const double g = -row.rhs;
    worst = std::max(worst, row.active ? std::abs(g) : (c.desc.unilateral ? -g : 0.0));
  }
  return worst;
}

}  // namespace ligature
