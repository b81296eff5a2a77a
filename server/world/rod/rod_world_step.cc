// The rod stage of a world's step (RodWorld::Step and its parts): assembly, contacts, the
// KKT solves with the active set, the Newton projection, pearls and releases.

#include <algorithm>
#include <cmath>
#include <limits>

#include "server/world/rod/rod_world.h"

namespace ligature {
namespace {

// Constraint tolerance of the Newton projection (m).
constexpr double kTolerance = 5e-10;
constexpr int kMaxNewtonSteps = 10;
constexpr int kMaxActiveSetRounds = 8;
constexpr double kContactJoin = 1e-6;   // m
constexpr double kContactLeave = 1e-6;  // N

// A bead as a one-point system: `stiffness` (its mass / h^2) on its position, no force;
// its twist entry is 1 so that the twist system stays regular.
RodSystem BeadSystem(double stiffness) {
  RodSystem bead;
  bead.upper.assign(1, {Mat4::Zero(), Mat4::Zero(), Mat4::Zero(), Mat4::Zero()});
  bead.upper[0][0].diagonal() << Vec3::Constant(stiffness), 1.0;
  bead.rhs.assign(1, Vec4::Zero());
  return bead;
}

}  // namespace

// Where each dynamic rod's control points start in the system (-1 for held rods).
std::vector<int> RodWorld::FirstPoints(int* total) const {
  std::vector<int> first(rods_.size(), -1);
  *total = 0;
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (rods_[r].desc.kinematic) continue;
    first[r] = *total;
    *total += rods_[r].model.control_points();
  }
  return first;
}

std::vector<RodView> RodWorld::Views(const std::vector<int>& first_point) const {
  std::vector<RodView> views(rods_.size());
  for (size_t r = 0; r < rods_.size(); ++r) {
    views[r] = {&rods_[r].model, &rods_[r].state, first_point[r]};
  }
  return views;
}

KktProblem RodWorld::BuildProblem(const std::vector<RodView>& views,
                                  const std::vector<RodSystem>& systems,
                                  const std::vector<int>& first_point, int total_points,
                                  double h, RodDofs dofs, std::vector<int>* owner) const {
  KktProblem problem;
  problem.dofs_per_point = static_cast<int>(dofs);
  problem.control_points = total_points;
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (first_point[r] < 0) continue;
    problem.rods.push_back(&systems[r]);
    problem.first_point.push_back(first_point[r]);
  }
  for (size_t b = 0; b < beads_.size(); ++b) {
    problem.rods.push_back(&systems[rods_.size() + b]);
    problem.first_point.push_back(constraints_[beads_[b]].bead_point);
  }
  owner->clear();
  for (size_t k = 0; k < constraints_.size(); ++k) {
    if (constraints_[k].released) continue;
    KktGroup group = BuildRodRows(constraints_[k], views, h, dofs);
    // Nothing in this system, or acting on held rods only.
    if (group.rows.empty() || group.anchor_a < 0) continue;
    problem.groups.push_back(std::move(group));
    owner->push_back(static_cast<int>(k));
  }
  if (dofs == RodDofs::kTwist) return problem;
  for (size_t k = 0; k < contacts_.size(); ++k) {
    problem.groups.push_back(BuildRodContactRow(contacts_[k], views, h));
    owner->push_back(static_cast<int>(constraints_.size() + k));
  }
  for (size_t k = 0; k < pair_contacts_.size(); ++k) {
    KktGroup group = BuildRodPairContactRow(pair_contacts_[k], views);
    if (group.rows.empty()) continue;
    problem.groups.push_back(std::move(group));
    owner->push_back(static_cast<int>(constraints_.size() + contacts_.size() + k));
  }
  return problem;
}

void RodWorld::ApplyDisplacements(const KktSolution& sol, const std::vector<int>& first_point,
                                  RodDofs dofs, const std::vector<int>& owner) {
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (first_point[r] < 0) continue;
    RodState& s = rods_[r].state;
    for (int i = 0; i < rods_[r].model.control_points(); ++i) {
      if (dofs == RodDofs::kTwist) {
        s.theta[i] += sol.dx[first_point[r] + i];
      } else {
        const int base = 3 * (first_point[r] + i);
        s.x[i] += Vec3(sol.dx[base], sol.dx[base + 1], sol.dx[base + 2]);
      }
    }
  }
  if (dofs == RodDofs::kTwist) return;
  for (const int k : beads_) {
    RodConstraint& c = constraints_[k];
    const int base = 3 * c.bead_point;
    c.bead_push += Vec3(sol.dx[base], sol.dx[base + 1], sol.dx[base + 2]);
  }
  // A rod that slides out of its keyhole leaves it: the constraint is released now and
  // removed at the end of the step (ReleaseSlidOut).
  for (size_t g = 0; g < owner.size(); ++g) {
    if (IsContactOwner(owner[g])) {
      const size_t k = owner[g] - constraints_.size();
      if (k < contacts_.size()) contacts_[k].push += sol.slide[g];
      continue;
    }
    RodConstraint& c = constraints_[owner[g]];
    if (!IsSliding(c.desc.kind)) continue;
    c.u_a += sol.slide[g];
    c.released = c.u_a < 0.0 || c.u_a > rods_[c.rod_a].model.length();
  }
}

// Whether the active set of unilateral rows (unilateral constraints, contacts) is right for
// `sol`: an active row must push (lambda >= 0) and an inactive one must not end up
// violated. Flips the rows that are not.
bool RodWorld::UpdateActiveSet(const KktProblem& problem, const KktSolution& sol,
                               const std::vector<int>& owner) {
  bool changed = false;
  for (size_t g = 0; g < owner.size(); ++g) {
    bool* active = nullptr;
    // Contacts join once they would overlap by more than a micrometre and leave once they
    // pull by more than a micronewton, so that rows at rest against each other's compliance
    // (or round-off) do not flicker in and out.
    double join = kTolerance;
    double leave = 0.0;
    if (IsContactOwner(owner[g])) {
      active = ContactActive(owner[g]);
      join = kContactJoin;
      leave = kContactLeave;
    } else if (constraints_[owner[g]].desc.unilateral) {
      active = &constraints_[owner[g]].active;
    } else {
      continue;
    }
    const KktRow& row = problem.groups[g].rows[0];
    if (*active && sol.force[g][0] < -leave) {
      *active = false;
      changed = true;
    } else if (!*active) {
      double after = -row.rhs;
      for (const auto& [dof, coeff] : row.terms) after += coeff * sol.dx[dof];
      if (after < -join) {
        *active = true;
        changed = true;
      }
    }
  }
  return changed;
}

bool* RodWorld::ContactActive(int owner) {
  const size_t k = owner - constraints_.size();
  return k < contacts_.size() ? &contacts_[k].active
                              : &pair_contacts_[k - contacts_.size()].active;
}

void RodWorld::SetContactForce(int owner, double force) {
  const size_t k = owner - constraints_.size();
  if (k < contacts_.size()) {
    contacts_[k].force = force;
  } else {
    pair_contacts_[k - contacts_.size()].force = force;
  }
}

// Contacts among the rods that collide with rods, away from the points that relative
// constraints join (where the rods touch by design).
void RodWorld::FindPairContacts(double h) {
  std::vector<RodShapeView> shapes(rods_.size());
  bool any = false;
  for (size_t r = 0; r < rods_.size(); ++r) {
    shapes[r] = {&rods_[r].model, &rods_[r].state, rods_[r].desc.rod_contact,
                 rods_[r].desc.collision};
    any |= rods_[r].desc.rod_contact;
  }
  if (!any) return;
  std::vector<RodContactExclusion> exclusions;
  for (const RodConstraint& c : constraints_) {
    if (!IsRelative(c.desc.kind) || c.rod_b < 0) continue;
    const RodModel& a = rods_[c.rod_a].model;
    const RodModel& b = rods_[c.rod_b].model;
    const double reach = 2.0 * (a.material().radius + b.material().radius) +
                         std::max(a.spline().segment_length(), b.spline().segment_length());
    exclusions.push_back({c.rod_a, c.rod_b, c.u_a - reach, c.u_a + reach, c.u_b - reach,
                          c.u_b + reach});
  }
  FindRodPairContacts(shapes, h, kContactMargin, exclusions, &pair_contacts_);
}

// Constraints' violation; contacts are linear and compliant, so they take no Newton steps.
double RodWorld::OwnerViolation(int owner, const KktGroup& group) const {
  return IsContactOwner(owner) ? 0.0 : GroupViolation(constraints_[owner], group);
}

void RodWorld::Step(double h, const Vec3& gravity, const BodyPoseLookup& poses,
                    std::span<const Obstacle> obstacles) {
  if (!BeginStep(h, gravity, poses, obstacles)) return;
  EndStep(h);
}

// The step up to the dynamic solve of the positions (applied): pearls' loads, every
// dynamic rod's system, contacts with `obstacles` and between rods, constraints at their
// followed bodies, beads. False when there is nothing to step or the solve failed (the
// rods keep their state).
bool RodWorld::BeginStep(double h, const Vec3& gravity, const BodyPoseLookup& poses,
                         std::span<const Obstacle> obstacles) {
  stats_ = {};
  released_.clear();
  contacts_.clear();
  pair_contacts_.clear();
  if (rods_.empty()) return false;
  int total = 0;
  first_point_ = FirstPoints(&total);
  const std::vector<int>& first_point = first_point_;
  const std::vector<std::vector<std::pair<double, Vec3>>> loads = StepPearls(h, gravity);

  // Free motion of every dynamic rod.
  systems_.resize(rods_.size());
  std::vector<RodSystem>& systems = systems_;
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (first_point[r] < 0) continue;
    Rod& rod = rods_[r];
    if (rod.constant_h != h) {
      AssembleConstantPart(rod.model, h, &rod.constant);
      rod.constant_h = h;
    }
    AssembleRodSystem(rod.model, rod.state, h, gravity, loads[r], rod.constant, &systems[r]);
  }
  const std::vector<RodView> views = Views(first_point);
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (first_point[r] < 0) continue;
    FindRodContacts(static_cast<int>(r), rods_[r].model, rods_[r].state,
                    rods_[r].desc.collision, h, kContactMargin, obstacles, &contacts_);
  }
  ShareObstacleMass(&contacts_);
  stats_.contacts = static_cast<int>(contacts_.size());
  FindPairContacts(h);
  stats_.rod_contacts = static_cast<int>(pair_contacts_.size());
  // Constraints follow their bodies; a keyhole on a dynamic body makes it a bead: an extra
  // point of the system with the body's mass (a block of mass / h^2, no force, since the
  // body's own step already moved it).
  beads_.clear();
  int points = total;
  for (size_t k = 0; k < constraints_.size(); ++k) {
    RodConstraint& c = constraints_[k];
    std::optional<FollowedBody> body;
    if (!c.desc.follow_body.empty() && poses) body = poses(c.desc.follow_body);
    PrepareRodConstraintStep(c, views, body ? &body->pose : nullptr);
    c.bead_point = -1;
    c.bead_push.setZero();
    if (body && body->mass > 0.0 && c.desc.kind == RodConstraintKind::kKeyhole) {
      c.bead_point = points++;
      c.bead_mass = body->mass;
      beads_.push_back(static_cast<int>(k));
      systems.push_back(BeadSystem(body->mass / (h * h)));
    }
  }
  total = points;
  total_points_ = total;
  std::vector<RodState>& start = start_;
  start.clear();
  start.reserve(rods_.size());
  for (const Rod& rod : rods_) start.push_back(rod.state);

  if (!SolvePositions(views, systems, first_point, total, h)) {
    stats_.solve_failed = true;
    return false;
  }
  return true;
}

// The rest of the step after the positions' dynamic solve: twist, the projection onto the
// non-linear constraints, velocities, pearls and releases.
void RodWorld::EndStep(double h) {
  const std::vector<int>& first_point = first_point_;
  const int total = total_points_;
  const std::vector<RodView> views = Views(first_point);
  std::vector<RodSystem>& systems = systems_;
  const std::vector<RodState>& start = start_;
  SolveTwist(views, systems, first_point, total, h);
  ProjectPositions(views, systems, first_point, total, h);

  // Velocities of the whole step; a non-finite result keeps the rod's previous state.
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (first_point[r] < 0) continue;
    RodState& s = rods_[r].state;
    bool finite = true;
    for (int i = 0; i < rods_[r].model.control_points(); ++i) {
      s.v[i] = (s.x[i] - start[r].x[i]) / h;
      s.omega[i] = (s.theta[i] - start[r].theta[i]) / h;
      finite &= s.x[i].allFinite() && std::isfinite(s.theta[i]);
    }
    if (!finite) {
      s = start[r];
      std::fill(s.v.begin(), s.v.end(), Vec3::Zero());
      std::fill(s.omega.begin(), s.omega.end(), 0.0);
      stats_.solve_failed = true;
    }
  }
  MoveAllPearls(h);
  ReleaseSlidOut();
}

// The dynamic solve of the positions, repeated while the unilateral rows' active set
// changes. Returns false when the system could not be solved (the rods keep their state).
bool RodWorld::SolvePositions(const std::vector<RodView>& views,
                              const std::vector<RodSystem>& systems,
                              const std::vector<int>& first_point, int total, double h) {
  std::vector<int>& owner = solved_owner_;
  for (int round = 0;; ++round) {
    KktProblem problem =
        BuildProblem(views, systems, first_point, total, h, RodDofs::kPositions, &owner);
    absl::StatusOr<KktSolution> sol = kkt_.Solve(problem);
    if (!sol.ok()) return false;
    stats_.unknowns = sol->unknowns;
    stats_.bandwidth = sol->bandwidth;
    stats_.active_set_rounds = round + 1;
    if (round + 1 < kMaxActiveSetRounds && UpdateActiveSet(problem, *sol, owner)) continue;
    ApplyDisplacements(*sol, first_point, RodDofs::kPositions, owner);
    // What each contact pushed with: its obstacle takes it on its next step.
    for (size_t g = 0; g < owner.size(); ++g) {
      if (!IsContactOwner(owner[g])) continue;
      SetContactForce(owner[g], *ContactActive(owner[g]) ? std::max(0.0, sol->force[g][0]) : 0.0);
    }
    // The factorized system's layout, for solves with more forces (the coupled contacts).
    solved_problem_ = std::move(problem);
    return true;
  }
}

// Twist is decoupled from the positions: its own small banded system, with the twist rows
// of orientation constraints (linear, so one solve meets them).
void RodWorld::SolveTwist(const std::vector<RodView>& views,
                          const std::vector<RodSystem>& systems,
                          const std::vector<int>& first_point, int total, double h) {
  std::vector<int> owner;
  const KktProblem problem =
      BuildProblem(views, systems, first_point, total, h, RodDofs::kTwist, &owner);
  // No twisting moment and nothing to remove: the (regular) system's answer is zero.
  bool loaded = false;
  for (const RodSystem* sys : problem.rods) {
    for (const Vec4& f : sys->rhs) loaded |= f[3] != 0.0;
  }
  for (const KktGroup& g : problem.groups) {
    for (const KktRow& row : g.rows) loaded |= row.active && row.rhs != 0.0;
  }
  if (!loaded) return;
  absl::StatusOr<KktSolution> sol = twist_kkt_.Solve(problem);
  if (sol.ok()) ApplyDisplacements(*sol, first_point, RodDofs::kTwist, owner);
}

// What the linearization left of the non-linear constraints (distances, keyholes) is
// projected away by displacements that solve the step's own system with no force: chord
// steps reuse its factorization while they cut the violation fourfold each; otherwise the
// system is refactored at the corrected state (a full Newton step).
void RodWorld::ProjectPositions(const std::vector<RodView>& views,
                                std::vector<RodSystem>& systems,
                                const std::vector<int>& first_point, int total, double h) {
  for (RodSystem& sys : systems) {
    for (Vec4& f : sys.rhs) f.setZero();
  }
  std::vector<int> owner;
  double last = std::numeric_limits<double>::infinity();
  for (int it = 0; it <= kMaxNewtonSteps; ++it) {
    const KktProblem problem =
        BuildProblem(views, systems, first_point, total, h, RodDofs::kPositions, &owner);
    double violation = 0.0;
    for (size_t g = 0; g < owner.size(); ++g) {
      violation = std::max(violation, OwnerViolation(owner[g], problem.groups[g]));
    }
    stats_.max_violation = violation;
    if (violation <= kTolerance || it == kMaxNewtonSteps) return;
    absl::StatusOr<KktSolution> sol =
        violation < 0.25 * last ? kkt_.Resolve(problem) : kkt_.Solve(problem);
    if (!sol.ok()) sol = kkt_.Solve(problem);
    if (!sol.ok()) return;
    last = violation;
    ApplyDisplacements(*sol, first_point, RodDofs::kPositions, owner);
    ++stats_.newton_steps;
  }
}

std::vector<std::vector<std::pair<double, Vec3>>> RodWorld::StepPearls(double h,
                                                                      const Vec3& gravity) {
  std::vector<std::vector<std::pair<double, Vec3>>> loads(rods_.size());
  for (Pearl& p : pearls_) {
    const int r = rod_index_.at(p.desc.rod);
    const Vec3 load = StepPearlSpeed(rods_[r].model, rods_[r].state, h,
                                     p.desc.mass * gravity, &p);
    loads[r].emplace_back(p.u, load);
  }
  return loads;
}

void RodWorld::MoveAllPearls(double h) {
  for (size_t r = 0; r < rods_.size(); ++r) {
    std::vector<Pearl*> on_rod;
    for (Pearl& p : pearls_) {
      if (p.desc.rod == rods_[r].desc.id) on_rod.push_back(&p);
    }
    if (!on_rod.empty()) MovePearls(rods_[r].model, rods_[r].state, h, on_rod);
  }
}

// A rod that slid out of its keyhole is free of it: the constraint goes, and is reported.
void RodWorld::ReleaseSlidOut() {
  std::erase_if(constraints_, [&](const RodConstraint& c) {
    if (c.released) released_.push_back(c.desc.id);
    return c.released;
  });
}

std::vector<RodWorld::BeadPush> RodWorld::BeadPushes() const {
  std::vector<BeadPush> out;
  for (const RodConstraint& c : constraints_) {
    if (c.bead_point >= 0) out.push_back({c.desc.follow_body, c.bead_push});
  }
  return out;
}

std::pair<int, int> RodWorld::Bandwidths() const {
  int total = 0;
  const std::vector<int> first_point = FirstPoints(&total);
  std::vector<RodSystem> systems(rods_.size());
  for (size_t r = 0; r < rods_.size(); ++r) {
    if (first_point[r] < 0) continue;
    AssembleRodSystem(rods_[r].model, rods_[r].state, 1e-3, Vec3::Zero(), {}, &systems[r]);
  }
  // The last step's beads, as extra points.
  for (const int k : beads_) {
    systems.push_back(BeadSystem(1.0));
    total = std::max(total, constraints_[k].bead_point + 1);
  }
  std::vector<int> owner;
  const KktProblem problem = BuildProblem(Views(first_point), systems, first_point, total,
                                          1e-3, RodDofs::kPositions, &owner);
  RodKkt kkt;  // a fresh ordering, leaving the world's own untouched
  const int natural = kkt.NaturalBandwidth(problem);
  absl::StatusOr<KktSolution> sol = kkt.Solve(problem);
  return {natural, sol.ok() ? sol->bandwidth : -1};
}

}  // namespace ligature
