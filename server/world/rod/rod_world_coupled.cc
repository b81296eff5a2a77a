// The rods' side of their contacts with rigid bodies through the world's Gauss-Seidel
// solve (guebert's constraint space for a deformable body, with MICADO's system as the
// body's factorized compliance).
//
// The rods' step (S dX = F with their constraints' rows, eq. 2 of MICADO) is linear in the
// forces: constant forces f_p on rod points over the step add G^T f to F (G the points'
// basis weights), so they move the points by G K^-1 G^T f on top of the free motion, K the
// factorized KKT matrix, with every constraint row still met. BeginCoupledStep solves the
// free motion (the step without the rigid contacts); PointCompliance gives the points'
// block of K^-1 (one solve per control point the contacts touch, then the basis weights);
// the world solves its contacts with that compliance; FinishCoupledStep takes the forces
// through one more solve with the same factorization, and the step ends as Step ends it
// (twist, projection onto the non-linear constraints, velocities, pearls).

#include <algorithm>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "server/world/rod/rod_world.h"

namespace ligature {

void RodWorld::FindObstacleContacts(double h, std::span<const Obstacle> obstacles,
                                    std::vector<RodContact>* out) const {
  out->clear();
  if (obstacles.empty()) return;
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (rods_[r].desc.kinematic) continue;
    FindRodContacts(static_cast<int>(r), rods_[r].model, rods_[r].state,
                    rods_[r].desc.collision, h, kContactMargin, obstacles, out);
  }
}

bool RodWorld::BeginCoupledStep(double h, const Vec3& gravity, const BodyPoseLookup& poses,
                                std::vector<RodContact> contacts) {
  coupled_contacts_.clear();
  const bool stepped = BeginStep(h, gravity, poses, {});
  stats_.contacts = static_cast<int>(contacts.size());
  if (stepped) coupled_contacts_ = std::move(contacts);
  return stepped;
}

Vec3 RodWorld::PointDisplacement(const PointRef& p) const {
  const Rod& rod = rods_[p.rod];
  const SplineSample s = rod.model.spline().Sample(p.u);
  return rod.state.Position(s) - start_[p.rod].Position(s);
}

// C = G Z G^T with Z the compliance between the control points the points blend (the
// solved problem's K^-1 there, a column per unknown): G has four 3x3 blocks b_a I per
// point, so C costs 3 solves per touched control point and 36 products per pair of points.
std::optional<Eigen::MatrixXd> RodWorld::PointCompliance(std::span<const PointRef> points) const {
  const int k = static_cast<int>(points.size());
  std::vector<SplineSample> samples(k);
  // Each touched control point's place among the columns.
  absl::flat_hash_map<int, int> column_of;
  std::vector<int> unknowns;
  std::vector<std::array<int, 4>> columns(k);
  for (int p = 0; p < k; ++p) {
    const PointRef& ref = points[p];
    if (ref.rod < 0 || ref.rod >= static_cast<int>(rods_.size()) || first_point_[ref.rod] < 0) {
      return std::nullopt;
    }
    samples[p] = rods_[ref.rod].model.spline().Sample(ref.u);
    for (int a = 0; a < 4; ++a) {
      const int point = first_point_[ref.rod] + samples[p].first + a;
      auto [it, added] = column_of.try_emplace(point, static_cast<int>(unknowns.size()));
      if (added) {
        for (int d = 0; d < 3; ++d) unknowns.push_back(3 * point + d);
      }
      columns[p][a] = it->second;
    }
  }
  absl::StatusOr<Eigen::MatrixXd> z = kkt_.ComplianceColumns(solved_problem_, unknowns);
  if (!z.ok() || !z->allFinite()) return std::nullopt;
  const int m = static_cast<int>(unknowns.size());
  // T = G Z (3k x m), then C = T G^T.
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(3 * k, m);
  for (int p = 0; p < k; ++p) {
    for (int a = 0; a < 4; ++a) {
      t.middleRows<3>(3 * p) += samples[p].b[a] * z->middleRows<3>(columns[p][a]);
    }
  }
  Eigen::MatrixXd c = Eigen::MatrixXd::Zero(3 * k, 3 * k);
  for (int q = 0; q < k; ++q) {
    for (int a = 0; a < 4; ++a) {
      c.middleCols<3>(3 * q) += samples[q].b[a] * t.middleCols<3>(columns[q][a]);
    }
  }
  // Symmetric up to round-off; made exactly so for the solver.
  return Eigen::MatrixXd(0.5 * (c + c.transpose()));
}

void RodWorld::FinishCoupledStep(double h, std::span<const PointRef> points,
                                 std::span<const Vec3> forces,
                                 std::span<const double> normal_forces,
                                 const BodyPoseLookup& poses) {
  // G^T f on the control points the points blend.
  std::vector<std::pair<int, double>> load;
  load.reserve(12 * points.size());
  bool any = false;
  for (size_t p = 0; p < points.size() && p < forces.size(); ++p) {
    if (forces[p].isZero() || !forces[p].allFinite()) continue;
    any = true;
    const SplineSample s = rods_[points[p].rod].model.spline().Sample(points[p].u);
    for (int a = 0; a < 4; ++a) {
      const int point = first_point_[points[p].rod] + s.first + a;
      for (int d = 0; d < 3; ++d) load.emplace_back(3 * point + d, s.b[a] * forces[p][d]);
    }
  }
  if (any) {
    absl::StatusOr<KktSolution> sol = kkt_.ResolveForces(solved_problem_, load);
    const bool finite =
        sol.ok() && std::all_of(sol->dx.begin(), sol->dx.end(),
                                [](double x) { return std::isfinite(x); });
    if (finite) {
      ApplyDisplacements(*sol, first_point_, RodDofs::kPositions, solved_owner_);
    } else {
      stats_.solve_failed = true;
    }
  }
  // Targets on dynamic bodies where the solve left them (held and driven bodies' free
  // motion is their motion; a bead is a point of the system and moved with it): the
  // projection in EndStep takes the rods there, as the plain step's constraints are there.
  if (poses) {
    for (RodConstraint& c : constraints_) {
      if (c.desc.follow_body.empty() || c.bead_point >= 0 || c.released) continue;
      const std::optional<FollowedBody> body = poses(c.desc.follow_body);
      if (!body || !(body->mass > 0.0)) continue;
      c.target = body->pose.Apply(c.desc.target);
      c.direction = body->pose.Rotate(c.desc.direction).normalized();
      if (c.desc.kind == RodConstraintKind::kOrientation ||
          c.desc.kind == RodConstraintKind::kKeyhole) {
        c.tangent_target = c.tangent_target.norm() * c.direction;
      }
    }
  }
  EndStep(h);
  // Reported as the rods' contacts, with what each pushed with (no push on the bodies:
  // the world's solve moved them).
  contacts_ = std::move(coupled_contacts_);
  coupled_contacts_.clear();
  for (size_t k = 0; k < contacts_.size(); ++k) {
    RodContact& c = contacts_[k];
    c.force = k < normal_forces.size() ? normal_forces[k] : 0.0;
    c.active = c.force > 0.0;
    c.mass = 0.0;
    c.push = 0.0;
  }
}

}  // namespace ligature
