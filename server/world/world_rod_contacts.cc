// Rods against rigid bodies through the world's Gauss-Seidel solve.
//
// Before the solve, every dynamic rod's samples are collided with the rigid shapes at the
// start-of-tick poses, within the rods' contact margin plus how far the rod point and the
// body move over the step (speculative, as the rigid contacts). When some touch, the rods'
// step begins there (RodWorld::BeginCoupledStep): their free motion with their own
// constraints, from the factorized KKT system. Each touching rod point is then a solver body
// with linear DOFs only, numbered after the soft bodies' points, whose compliance is the
// rods' constrained compliance between all such points (C = G K^-1 G^T, one coupled group
// per set of points the rods' system couples); its contacts are unilateral rows with Coulomb
// friction (the rod's coefficient and the shape's, combined as two rigid bodies' are),
// warm-started from last tick's forces. The solve thus treats a rod point like any body:
// a box resting on the floor under a cable carries the cable's weight into its floor
// contacts, in the same solve. The solved forces go back to the rods through the same
// factorization (RodWorld::FinishCoupledStep), so their constraints hold as in their own
// step, and the rigid bodies take their displacements in the correction motion.
//
// A tick where no rod touches a rigid body before the solve (or where more points touch than
// kMaxCoupledRodPoints) runs the rods' own step after the rigid bodies as before (a body
// met only at the end-of-tick poses then takes the in-KKT coupling's push); so does every
// tick under the tunable solver.

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>

#include "server/constraint/contact_rows.h"
#include "server/geometry/aabb.h"
#include "server/world/world.h"

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

void World::DetectRodContacts() {
  rod_step_begun_ = false;
  rod_step_ok_ = false;
  rod_contacts_.clear();
  rod_soft_contacts_.clear();
  rod_points_.clear();
  rod_groups_.clear();
  if (rods_.empty() || settings_.solver.kind != SolverKind::kGaussSeidel) return;
  const double h = settings_.dt();

  // Where the dynamic rods may be over the step: their control points' hull (which holds
  // the curve) grown by their radius, the contact margin (with room to spare) and their
  // motion; the bodies' bounds below (aabbs_) are grown by their own motion.
  constexpr double kInf = std::numeric_limits<double>::infinity();
  Aabb reach_of_rods{Vec3::Constant(kInf), Vec3::Constant(-kInf)};
  for (const RodWorld::Rod& rod : rods_.rods()) {
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
  rod_start_obstacles_.clear();
  std::optional<absl::flat_hash_set<uint32_t>> handles;
  for (int i = 0; i < bodies_.size(); ++i) {
    // aabbs_ holds each body's bounds at these poses grown by its motion (DetectCollisions).
    if (!aabbs_[i].Overlaps(reach_of_rods)) continue;
    if (!handles) handles = Handles();
    if (handles->contains(static_cast<uint32_t>(i))) continue;
    const double reach =
        bodies_.kind[i] == BodyKind::kStatic ? 0.0 : h * bodies_.linear_velocity[i].norm();
    AppendObstacles(static_cast<uint32_t>(i), reach, &rod_start_obstacles_);
  }
  std::vector<RodContact> found;
  rods_.FindObstacleContacts(h, rod_start_obstacles_, &found);
  const std::vector<RodSoftCandidate> touching_soft = FindRodSoftContacts();
  if (found.empty() && touching_soft.empty()) return;

  // The distinct rod points, in the order first met.
  absl::flat_hash_map<std::pair<int, int>, uint32_t> point_of;
  std::vector<RodWorld::PointRef> refs;
  rod_contacts_.reserve(found.size());
  for (const RodContact& c : found) {
    auto [it, added] =
        point_of.try_emplace(std::pair(c.rod, c.sample), static_cast<uint32_t>(refs.size()));
    if (added) refs.push_back({c.rod, c.u});
    rod_contacts_.push_back(
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
    rod_contacts_.clear();
    return;
  }

  // The rods' free motion, with followed bodies where their free motion takes them.
  rod_step_begun_ = true;
  const auto free_pose = [this](const std::string& id) -> std::optional<FollowedBody> {
    auto it = body_ids_.find(id);
    if (it == body_ids_.end()) return std::nullopt;
    const uint32_t i = bodies_.Index(it->second);
    const bool dynamic = bodies_.IsDynamic(i) && bodies_.inv_mass[i] > 0.0;
    const Quat& q = free_orientation_[i];
    return FollowedBody{Transform{free_position_[i] - q * bodies_.center_local[i], q},
                        dynamic ? 1.0 / bodies_.inv_mass[i] : 0.0};
  };
  rod_step_ok_ = rods_.BeginCoupledStep(h, settings_.gravity, free_pose, std::move(found));
  std::optional<Eigen::MatrixXd> compliance;
  if (rod_step_ok_) compliance = rods_.PointCompliance(refs);
  if (!compliance) {
    // Nothing for the solve: the rods end their step without the contacts' forces.
    rod_contacts_.clear();
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
  rod_points_.resize(k);
  for (int i = 0; i < k; ++i) {
    const RodWorld::PointRef& ref = refs[order[i]];
    rod_points_[i] = {ref, rods_.PointDisplacement(ref) / h};
  }
  for (RodSolverContact& c : rod_contacts_) c.point = place[c.point];
  for (uint32_t& p : soft_point_of) p = place[p];
  AddRodSoftContacts(touching_soft, soft_point_of);
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
    rod_groups_.push_back(std::move(group));
    first = end;
  }
  stats_.contacts += static_cast<int>(rod_contacts_.size());
}

// One contact block per rod contact, after the soft contacts, warm-started from last
// tick's force at the same rod sample against the same body.
void World::BuildRodContactRows() {
  rod_first_block_ = rows_.blocks.size();
  rod_first_point_ = static_cast<uint32_t>(bodies_.size() + soft_points_.size());
  const double h = settings_.dt();
  for (const RodSolverContact& c : rod_contacts_) {
    const ContactBody a = PointBody(rod_first_point_ + c.point, c.contact.position,
                                    rod_points_[c.point].velocity);
    const ContactBody b = RigidContactBody(c.rigid, bodies_.position[c.rigid]);
    const double mu =
        std::sqrt(rods_.rods()[c.rod].desc.friction * bodies_.material[c.rigid].friction);
    ConstraintBlock block = MakeContactBlock(c.contact, a, b, mu, h);
    WarmStartBlock(rod_warm_, {c.rod, c.sample, c.rigid}, &block);
    rows_.blocks.push_back(block);
  }
  BuildRodSoftRows();
}

// The rod points' compliance is their groups' (their own entries are unused); the solve
// takes the soft bodies' groups and the rods' together.
void World::AddRodCompliance() {
  if (rod_points_.empty()) return;
  compliance_.resize(rod_first_point_ + rod_points_.size());
  for (size_t p = 0; p < rod_points_.size(); ++p) {
    BodyCompliance& c = compliance_[rod_first_point_ + p];
    c.linear = 0.0;
    c.angular.setZero();
  }
  solver_groups_ = soft_groups_;
  for (const CoupledPoints& g : rod_groups_) {
    CoupledPoints& placed = solver_groups_.emplace_back(g);
    placed.first += rod_first_point_;
  }
}

// The solve's force on each rod point (its rows' Jacobians on the point carry it back) and
// each contact's normal force, for the rods' step; the forces are kept for the next tick's
// warm start.
void World::GatherRodContactForces() {
  rod_warm_.clear();
  rod_point_forces_.assign(rod_points_.size(), Vec3::Zero());
  rod_normal_forces_.assign(rod_contacts_.size(), 0.0);
  for (size_t k = 0; k < rod_contacts_.size(); ++k) {
    const ConstraintBlock& b = rows_.blocks[rod_first_block_ + k];
    const RodSolverContact& c = rod_contacts_[k];
    rod_point_forces_[c.point] += b.jacobian_a.leftCols<3>().transpose() * b.force;
    rod_normal_forces_[k] = b.force.x();
    rod_warm_[{c.rod, c.sample, c.rigid}] = b.force;
  }
  for (size_t k = 0; k < rod_soft_contacts_.size(); ++k) {
    const ConstraintBlock& b = rows_.blocks[rod_soft_first_block_ + k];
    rod_point_forces_[rod_soft_contacts_[k].point] +=
        b.jacobian_a.leftCols<3>().transpose() * b.force;
  }
}

}  // namespace ligature
