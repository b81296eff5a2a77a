// Rods against rigid bodies through the world's Gauss-Seidel solve.
//
// Before the solve, every dynamic rod's samples are collided with the rigid shapes at the
// start-of-tick poses, within the rods' contact margin plus how far the rod point and the
// body move over the step (speculative, as the rigid contacts). When some touch (or touch
// a soft body, RodSoftCoupling), the rods' step begins there (RodWorld::BeginCoupledStep):
// their free motion with their own constraints, from the factorized KKT system. Each
// touching rod point is then a solver point with linear DOFs only, numbered after the soft
// bodies' points, whose compliance is the rods' constrained compliance between all such
// points (C = G K^-1 G^T, one coupled group per set of points the rods' system couples);
// its contacts are unilateral rows with Coulomb friction (the rod's coefficient and the
// shape's, combined as two rigid bodies' are), warm-started from last tick's forces. The
// solve thus treats a rod point like any body: a box resting on the floor under a cable
// carries the cable's weight into its floor contacts, in the same solve. The solved forces
// go back to the rods through the same factorization (RodWorld::FinishCoupledStep, in the
// world's rod stage), so their constraints hold as in their own step, and the rigid bodies
// take their displacements in the correction motion.
//
// A tick where no rod touches a body before the solve (or where more points touch than
// kMaxCoupledRodPoints) runs the rods' own step after the rigid bodies as before (a body
// met only at the end-of-tick poses then takes the in-KKT coupling's push); so does every
// tick under the tunable solver.

#include "server/world/coupling/rod_rigid_coupling.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "server/constraint/contact_rows.h"
#include "server/geometry/aabb.h"

namespace ligature {
namespace {

// Most rod points one tick's solve takes (their dense compliance grows as the square).
constexpr size_t kMaxCoupledRodPoints = 192;
// How far beyond a rod's surface its samples look for contacts, at least (m): the rods'
// contact margin (RodWorld's, 5 mm), with room to spare for the bounds test only.
constexpr double kRodContactReach = 0.01;

// Union-find root with path halving.
int Root(std::vector<int>& parent, int i) {
  while (parent[i] != i) {
    parent[i] = parent[parent[i]];
    i = parent[i];
  }
  return i;
}

}  // namespace

void RodRigidCoupling::FindContacts(const WorldView& w, StepContext& ctx) {
  ctx.rod_step_begun = false;
  ctx.rod_step_ok = false;
  ctx.rod_points_placed = false;
  ctx.rod_point_of_candidate.clear();
  contacts_.clear();
  ctx.rod_points.clear();
  groups_.clear();
  if (w.rods.empty() || w.settings.solver.kind != SolverKind::kGaussSeidel) return;
  const double h = w.settings.dt();
  const RigidBodies& bodies = w.bodies;

  // Where the dynamic rods may be over the step: their control points' hull (which holds
  // the curve) grown by their radius, the contact margin (with room to spare) and their
  // motion; the bodies' bounds below (ctx.aabbs) are grown by their own motion.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Aabb reach_of_rods{Vec3::Constant(kInf), Vec3::Constant(-kInf)};
  for (const RodWorld::Rod& rod : w.rods.rods()) {
    if (rod.desc.kinematic) continue;
    double fastest = 0.0;
    for (size_t i = 0; i < rod.state.x.size(); ++i) {
      reach_of_rods.min = reach_of_rods.min.cwiseMin(rod.state.x[i]);
      reach_of_rods.max = reach_of_rods.max.cwiseMax(rod.state.x[i]);
      fastest = std::max(fastest, rod.state.v[i].norm());
    }
    const double grow = rod.model.material().radius + kRodContactReach + h * fastest;
    reach_of_rods.min.array() -= grow;
    reach_of_rods.max.array() += grow;
  }

  // The rigid shapes at the start of the tick near the rods, each reaching as far as its
  // body moves. Handles (bodies that rod or soft constraints follow) are no obstacles.
  start_obstacles_.clear();
  std::optional<absl::flat_hash_set<uint32_t>> handles;
  for (int i = 0; i < bodies.size(); ++i) {
    // ctx.aabbs holds each body's bounds at these poses grown by its motion.
    if (!ctx.aabbs[i].Overlaps(reach_of_rods)) continue;
    if (!handles) handles = w.Handles();
    if (handles->contains(static_cast<uint32_t>(i))) continue;
    const double reach =
        bodies.kind[i] == BodyKind::kStatic ? 0.0 : h * bodies.linear_velocity[i].norm();
    w.AppendObstacles(static_cast<uint32_t>(i), reach, &start_obstacles_);
  }
  std::vector<RodContact> found;
  w.rods.FindObstacleContacts(h, start_obstacles_, &found);
  const std::vector<RodSoftCandidate>& touching_soft = ctx.rod_soft_candidates;
  if (found.empty() && touching_soft.empty()) return;

  // The distinct rod points, in the order first met: this coupling's, then the
  // candidates'.
  absl::flat_hash_map<std::pair<int, int>, uint32_t> point_of;
  std::vector<RodWorld::PointRef> refs;
  contacts_.reserve(found.size());
  for (const RodContact& c : found) {
    auto [it, added] =
        point_of.try_emplace(std::pair(c.rod, c.sample), static_cast<uint32_t>(refs.size()));
    if (added) refs.push_back({c.rod, c.u});
    contacts_.push_back(
        {it->second, c.body, c.rod, c.sample, ContactPoint{c.point, c.normal, c.distance}});
  }
  std::vector<uint32_t> soft_point_of(touching_soft.size());
  for (size_t k = 0; k < touching_soft.size(); ++k) {
    const RodSoftCandidate& c = touching_soft[k];
    auto [it, added] =
        point_of.try_emplace(std::pair(c.rod, c.sample), static_cast<uint32_t>(refs.size()));
    if (added) refs.push_back({c.rod, c.u});
    soft_point_of[k] = it->second;
  }
  if (refs.size() > kMaxCoupledRodPoints) {
    contacts_.clear();
    return;
  }

  // The rods' free motion, with followed bodies where their free motion takes them.
  ctx.rod_step_begun = true;
  const auto free_pose = [&](const std::string& id) -> std::optional<FollowedBody> {
    auto it = w.body_ids.find(id);
    if (it == w.body_ids.end()) return std::nullopt;
    const uint32_t i = bodies.Index(it->second);
    const bool dynamic = bodies.IsDynamic(i) && bodies.inv_mass[i] > 0.0;
    const Quat& q = ctx.free_orientation[i];
    return FollowedBody{Transform{ctx.free_position[i] - q * bodies.center_local[i], q},
                        dynamic ? 1.0 / bodies.inv_mass[i] : 0.0};
  };
  ctx.rod_step_ok = w.rods.BeginCoupledStep(h, w.settings.gravity, free_pose, std::move(found));
  std::optional<Eigen::MatrixXd> compliance;
  if (ctx.rod_step_ok) compliance = w.rods.PointCompliance(refs);
  if (!compliance) {
    // Nothing for the solve: the rods end their step without the contacts' forces.
    contacts_.clear();
    return;
  }

  // Points the rods' system couples (a non-zero block between them) form one group; the
  // groups' points are numbered consecutively for the solver.
  const int k = static_cast<int>(refs.size());
  std::vector<int> parent(k);
  std::iota(parent.begin(), parent.end(), 0);
  for (int p = 0; p < k; ++p) {
    for (int q = p + 1; q < k; ++q) {
      if (!compliance->block<3, 3>(3 * p, 3 * q).isZero(0.0)) {
        parent[Root(parent, q)] = Root(parent, p);
      }
    }
  }
  std::vector<int> order(k);
  std::iota(order.begin(), order.end(), 0);
  std::vector<int> root(k);
  for (int p = 0; p < k; ++p) root[p] = Root(parent, p);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return root[a] < root[b]; });
  std::vector<uint32_t> place(k);
  for (int i = 0; i < k; ++i) place[order[i]] = static_cast<uint32_t>(i);
  ctx.rod_points.resize(k);
  for (int i = 0; i < k; ++i) {
    const RodWorld::PointRef& ref = refs[order[i]];
    ctx.rod_points[i] = {ref, w.rods.PointDisplacement(ref) / h};
  }
  for (Contact& c : contacts_) c.point = place[c.point];
  for (uint32_t& p : soft_point_of) p = place[p];
  ctx.rod_point_of_candidate = std::move(soft_point_of);
  ctx.rod_points_placed = true;
  for (int first = 0; first < k;) {
    int end = first;
    while (end < k && root[order[end]] == root[order[first]]) ++end;
    CoupledPoints group;
    group.first = static_cast<uint32_t>(first);
    group.count = end - first;
    group.compliance.resize(3 * group.count, 3 * group.count);
    for (int a = 0; a < group.count; ++a) {
      for (int b = 0; b < group.count; ++b) {
        group.compliance.block<3, 3>(3 * a, 3 * b) =
            compliance->block<3, 3>(3 * order[first + a], 3 * order[first + b]);
      }
    }
    groups_.push_back(std::move(group));
    first = end;
  }
  w.stats.contacts += static_cast<int>(contacts_.size());
}

// One contact block per contact, after the soft contacts, warm-started from last tick's
// force at the same rod sample against the same body.
void RodRigidCoupling::BuildRows(const WorldView& w, StepContext& ctx) {
  first_block_ = ctx.rows.blocks.size();
  ctx.rod_first_point = static_cast<uint32_t>(w.bodies.size() + ctx.soft_points.size());
  const double h = w.settings.dt();
  for (const Contact& c : contacts_) {
    const ContactBody a = PointBody(ctx.rod_first_point + c.point, c.contact.position,
                                    ctx.rod_points[c.point].velocity);
    const ContactBody b = w.RigidContactBody(c.rigid, w.bodies.position[c.rigid]);
    const double mu =
        std::sqrt(w.rods.rods()[c.rod].desc.friction * w.bodies.material[c.rigid].friction);
    ConstraintBlock block = MakeContactBlock(c.contact, a, b, mu, h);
    WarmStartBlock(warm_, {c.rod, c.sample, c.rigid}, &block);
    ctx.rows.blocks.push_back(block);
  }
}

// The rod points' compliance is their groups' (their own entries are unused); the solve
// takes the soft bodies' groups and the rods' together.
void RodRigidCoupling::AddCompliance(const WorldView&, StepContext& ctx) {
  if (ctx.rod_points.empty()) return;
  ctx.compliance.resize(ctx.rod_first_point + ctx.rod_points.size());
  for (size_t p = 0; p < ctx.rod_points.size(); ++p) {
    BodyCompliance& c = ctx.compliance[ctx.rod_first_point + p];
    c.linear = 0.0;
    c.angular.setZero();
  }
  ctx.solver_groups = ctx.soft_groups;
  for (const CoupledPoints& g : groups_) {
    CoupledPoints& placed = ctx.solver_groups.emplace_back(g);
    placed.first += ctx.rod_first_point;
  }
}

// Each rod point's force (its rows' Jacobians on the point carry it back) joins its sum,
// and each contact's normal force is kept, for the rods' step; the forces are kept for the
// next tick's warm start.
void RodRigidCoupling::ApplySolvedForces(const WorldView&, StepContext& ctx) {
  warm_.clear();
  ctx.rod_normal_forces.assign(contacts_.size(), 0.0);
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const ConstraintBlock& b = ctx.rows.blocks[first_block_ + k];
    const Contact& c = contacts_[k];
    assert(c.point < ctx.rod_point_forces.size());
    ctx.rod_point_forces[c.point] += b.jacobian_a.leftCols<3>().transpose() * b.force;
    ctx.rod_normal_forces[k] = b.force.x();
    warm_[{c.rod, c.sample, c.rigid}] = b.force;
  }
}

void RodRigidCoupling::ForEachContact(
    absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const {
  for (size_t k = 0; k < contacts_.size(); ++k) {
    const Contact& c = contacts_[k];
    fn(first_block_ + k,
       {false, true, static_cast<uint32_t>(c.rod), c.rigid, false, -1, c.contact});
  }
}

void RodRigidCoupling::SaveWarmStart(WorldSavedState* s) const {
  s->rod_warm = SortedEntries(warm_);
}

void RodRigidCoupling::RestoreWarmStart(const WorldSavedState& s) {
  for (const auto& [key, force] : s.rod_warm) warm_[key] = force;
}

}  // namespace ligature
