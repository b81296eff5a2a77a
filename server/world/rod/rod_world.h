#pragma once
// The rods of a world, their MICADO constraints and their pearls, and the rod stage of a
// step: every dynamic rod's linearized backward-Euler system, coupled by the constraints'
// Lagrange multipliers into one KKT system, reordered to a band and solved directly (see
// RodKkt). Unilateral constraints are settled by an active set; constraints that are not
// linear in the unknowns are projected back onto their manifold by Newton steps, so every
// bilateral constraint holds to the tolerance after each step.

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "server/constraint/rod/rod_rows.h"
#include "server/model/rod/pearl.h"
#include "server/model/rod/rod_dynamics.h"
#include "server/solver/rod_kkt.h"

namespace ligature {

struct RodStepStats {
  int unknowns = 0;
  int bandwidth = 0;         // half-bandwidth after reordering
  int newton_steps = 0;      // projections after the dynamic solve
  int active_set_rounds = 0;
  double max_violation = 0.0;  // m, over all constraints after the step
  int contacts = 0;            // rod-obstacle contact points
  int rod_contacts = 0;        // rod-rod contact points
  bool solve_failed = false;   // singular system: the rods kept their state
};

// A body that constraints follow: its pose and, for a dynamic body, its mass (0: the body
// is held or driven, and only moves the target).
struct FollowedBody {
  Transform pose;
  double mass = 0.0;  // kg
};
// The followed body of an id (nullopt: no such body).
using BodyPoseLookup = std::function<std::optional<FollowedBody>(const std::string&)>;

class RodWorld {
 public:
  // Contacts are looked for this far (m) beyond a rod's surface, plus its step's motion.
  static constexpr double kContactMargin = 0.005;
  // Stored rods: constant model, changing state.
  struct Rod {
    RodDesc desc;
    RodModel model;
    RodState state;
    // AssembleConstantPart for steps of constant_h seconds (rebuilt when h changes).
    RodConstantPart constant;
    double constant_h = 0.0;
  };

  absl::Status AddRod(const RodDesc& desc);

  // Snapshots: the rods' and their constraints' changing state (sliding positions are in
  // the scene) and the solvers' orderings.
  struct SavedConstraint {
    bool active = true;
    bool released = false;
    Mat3 relative = Mat3::Identity();
    Vec3 reference_tangent = Vec3::UnitX();
  };
  struct SavedState {
    std::vector<RodState> rods;                 // rods() order
    std::vector<SavedConstraint> constraints;   // constraints() order
    RodKkt::Ordering positions_ordering;
    RodKkt::Ordering twist_ordering;
  };
  SavedState Save() const;
  // Takes `state`, whose sizes the caller checked against rods() and constraints().
  // INVALID_ARGUMENT naming the field ("positions_ordering.node_order[2]: ...") for an
  // ordering that is not a permutation.
  absl::Status Restore(SavedState state);
  // Removes a rod with the constraints and pearls on it; returns their ids.
  std::vector<std::string> RemoveRod(const std::string& id);
  // Validates references and values (INVALID_ARGUMENT naming the field, NOT_FOUND for an
  // unknown rod) and adds nothing on failure.
  absl::Status AddConstraint(const RodConstraintDesc& desc);
  absl::Status RemoveConstraint(const std::string& id);
  // Removes the constraints that follow body `body_id` (being deleted); returns their ids.
  std::vector<std::string> RemoveFollowing(const std::string& body_id);
  absl::Status AddPearl(const PearlDesc& desc);
  absl::Status RemovePearl(const std::string& id);

  bool HasRod(const std::string& id) const { return rod_index_.contains(id); }
  // A new filter (layers and mask) for rod `id`, which exists.
  void SetCollision(const std::string& id, const CollisionFilter& filter) {
    rods_[rod_index_.at(id)].desc.collision = filter;
  }
  bool HasConstraint(const std::string& id) const;
  bool HasPearl(const std::string& id) const;
  const Rod* FindRod(const std::string& id) const;
  const std::vector<Rod>& rods() const { return rods_; }
  const std::vector<RodConstraint>& constraints() const { return constraints_; }
  const std::vector<Pearl>& pearls() const { return pearls_; }
  bool empty() const { return rods_.empty(); }

  // One step of h seconds. `poses` gives followed bodies' poses; rods push on the
  // `obstacles` (held in place for the step) without going through them.
  void Step(double h, const Vec3& gravity, const BodyPoseLookup& poses,
            std::span<const Obstacle> obstacles = {});
  // The last step's contacts, with the force each rod point put on its obstacle (for the
  // rigid bodies' next step).
  const std::vector<RodContact>& contacts() const { return contacts_; }
  // The last step's contacts between rods (of rods with rod_contact), with their forces.
  const std::vector<RodPairContact>& rod_contacts() const { return pair_contacts_; }
  // Keyholes whose point is a dynamic body (beads), with how far this step moved it.
  struct BeadPush {
    std::string body;
    Vec3 push = Vec3::Zero();  // m
  };
  std::vector<BeadPush> BeadPushes() const;
  // The step in two parts around the world's Gauss-Seidel solve, for rods that touch
  // rigid bodies (rod_world_coupled.cc): BeginCoupledStep is the rods' free motion with
  // their own constraints (contacts between rods included, rigid shapes not); the contact
  // points' constrained compliance and free displacements then take part in the world's
  // solve, whose forces FinishCoupledStep applies through the same factorization before
  // ending the step as Step does.
  //
  // The contacts of every dynamic rod with `obstacles` (each found within the rods'
  // contact margin plus the obstacle's reach), for BeginCoupledStep.
  void FindObstacleContacts(double h, std::span<const Obstacle> obstacles,
                            std::vector<RodContact>* out) const;
  // False when the rods' system could not be solved (they keep their state this tick and
  // FinishCoupledStep must not be called).
  bool BeginCoupledStep(double h, const Vec3& gravity, const BodyPoseLookup& poses,
                        std::vector<RodContact> contacts);
  // A point of a dynamic rod.
  struct PointRef {
    int rod = 0;
    double u = 0.0;  // m
  };
  // How far rod point `p` has moved since the start of the step.
  Vec3 PointDisplacement(const PointRef& p) const;
  // The constrained compliance between the points (3 count x 3 count, m/N): under forces
  // f_q, point p moves by sum_q C_pq f_q over the step with every constraint of the rods'
  // system held; nullopt when the solves fail.
  std::optional<Eigen::MatrixXd> PointCompliance(std::span<const PointRef> points) const;
  // Applies forces (N, over the step) on the points and ends the step; `normal_forces`
  // gives each contact of BeginCoupledStep its solved normal force (reported in contacts()).
  // Constraints that follow a dynamic body (beads aside) take its pose from `poses` (where
  // the solve left it; BeginCoupledStep had its free-motion pose) before the projection.
  void FinishCoupledStep(double h, std::span<const PointRef> points,
                         std::span<const Vec3> forces, std::span<const double> normal_forces,
                         const BodyPoseLookup& poses);

  const RodStepStats& last_stats() const { return stats_; }
  // Ids of sliding constraints whose rod slid out of them during the last step.
  const std::vector<std::string>& released() const { return released_; }
  // Natural and reordered half-bandwidths of the current system (diagnostics).
  std::pair<int, int> Bandwidths() const;

 private:
  // The two parts of Step (rod_world_step.cc): up to the positions' dynamic solve, whose
  // result is applied (false: nothing stepped), then the rest of the step.
  bool BeginStep(double h, const Vec3& gravity, const BodyPoseLookup& poses,
                 std::span<const Obstacle> obstacles);
  void EndStep(double h);
  std::vector<RodView> Views(const std::vector<int>& first_point) const;
  std::vector<int> FirstPoints(int* total) const;
  // The rows of every constraint at the current states; *owner maps groups to constraints.
  KktProblem BuildProblem(const std::vector<RodView>& views,
                          const std::vector<RodSystem>& systems,
                          const std::vector<int>& first_point, int total_points, double h,
                          RodDofs dofs, std::vector<int>* owner) const;
  void ApplyDisplacements(const KktSolution& sol, const std::vector<int>& first_point,
                          RodDofs dofs, const std::vector<int>& owner);
  // The positions' dynamic solve (with the unilateral active set) and the twist solve.
  bool SolvePositions(const std::vector<RodView>& views, const std::vector<RodSystem>& systems,
                      const std::vector<int>& first_point, int total, double h);
  void SolveTwist(const std::vector<RodView>& views, const std::vector<RodSystem>& systems,
                  const std::vector<int>& first_point, int total, double h);
  // Newton (chord) steps projecting the positions back onto the constraints.
  void ProjectPositions(const std::vector<RodView>& views, std::vector<RodSystem>& systems,
                        const std::vector<int>& first_point, int total, double h);
  // Pearls' speeds and the loads they put on rods (per rod: (u, force) pairs).
  std::vector<std::vector<std::pair<double, Vec3>>> StepPearls(double h, const Vec3& gravity);
  void MoveAllPearls(double h);
  void ReleaseSlidOut();
  // Groups past the constraints' are contacts: owner index - constraints_.size() indexes
  // the obstacle contacts, then the rod-rod contacts.
  bool IsContactOwner(int owner) const { return owner >= static_cast<int>(constraints_.size()); }
  bool* ContactActive(int owner);
  void SetContactForce(int owner, double force);
  void FindPairContacts(double h);
  bool UpdateActiveSet(const KktProblem& problem, const KktSolution& sol,
                       const std::vector<int>& owner);
  double OwnerViolation(int owner, const KktGroup& group) const;
  void ReindexRods();

  std::vector<Rod> rods_;
  absl::flat_hash_map<std::string, int> rod_index_;
  std::vector<RodConstraint> constraints_;
  std::vector<Pearl> pearls_;
  std::vector<RodSystem> systems_;  // per rod, this step's (kept for its capacity), then
                                    // one point per bead
  std::vector<int> beads_;          // constraints that carry a bead, this step
  // This step's layout between BeginStep and EndStep: where each dynamic rod's points
  // start, their count (beads included), the states at the start of the step, and the
  // problem (with each group's owner) whose factorization kkt_ holds after the dynamic
  // solve.
  std::vector<int> first_point_;
  int total_points_ = 0;
  std::vector<RodState> start_;
  KktProblem solved_problem_;
  std::vector<int> solved_owner_;
  // The contacts a coupled step found, kept out of the rods' own system.
  std::vector<RodContact> coupled_contacts_;
  RodKkt kkt_;        // positions
  RodKkt twist_kkt_;  // twist
  RodStepStats stats_;
  std::vector<std::string> released_;
  std::vector<RodContact> contacts_;
  std::vector<RodPairContact> pair_contacts_;
};

}  // namespace ligature
