#pragma once
// A simulation world: constant model, changing state, and the step pipeline. Not
// thread-safe: one thread at a time (the scheduler's worker, or a test) owns it.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/collision/broadphase.h"
#include "server/collision/contact.h"
#include "server/collision/placed_shape.h"
#include "server/constraint/constraint_rows.h"
#include "server/constraint/constraint_set.h"
#include "server/constraint/contact_cache.h"
#include "server/constraint/contact_rows.h"
#include "server/haptics/tool_channel.h"
#include "server/model/rigid/rigid_bodies.h"
#include "server/solver/gauss_seidel.h"
#include "server/solver/tunable_lcp.h"
#include "server/world/frame.h"
#include "server/world/rod/rod_world.h"
#include "server/world/soft/soft_world.h"
#include "server/world/strand/strand_world.h"
#include "server/world/scene_desc.h"
#include "server/world/step_counters.h"
#include "server/world/world_saved_state.h"

namespace ligature {

struct WorldLimits {
  int max_bodies = 100000;
  int max_constraints = 100000;
};

// Which fields of a body an update changes.
struct BodyUpdate {
  std::optional<Vec3> position;
  std::optional<Quat> orientation;
  std::optional<Vec3> linear_velocity;
  std::optional<Vec3> angular_velocity;
  std::optional<Material> material;
  std::optional<BodyKind> kind;
};

class World {
 public:
  World(std::string name, const WorldSettings& settings, const WorldLimits& limits);

  // Builds a world from a validated scene; fails (and builds nothing) on a bad reference.
  static absl::StatusOr<std::unique_ptr<World>> FromScene(std::string name,
                                                          const SceneDesc& scene,
                                                          const WorldLimits& limits);

  // Edits. Ids are checked here; values are validated at the boundary before they arrive.
  absl::StatusOr<std::string> AddBody(const BodyDesc& desc);
  absl::Status UpdateBody(const std::string& id, const BodyUpdate& update);
  absl::Status RemoveBody(const std::string& id);
  absl::StatusOr<std::string> AddConstraint(const ConstraintDesc& desc);
  absl::Status RemoveConstraint(const std::string& id);
  // Switches a soft-body constraint off or on (see SoftWorld::SetConstraintEnabled);
  // FAILED_PRECONDITION for a constraint of another kind, NOT_FOUND for an unknown one.
  absl::Status SetConstraintEnabled(const std::string& id, bool enabled);
  void SetSettings(const WorldSettings& settings) { settings_ = settings; }
  // How many body and constraint edits this world has taken (device poses are not edits;
  // a restored snapshot is one):
  // the divergence guard keeps edits through a rollback by copying the world after them.
  uint64_t edits() const { return edits_; }
  // Drives a kinematic body to `pose` over the next tick.
  absl::Status SetDeviceTarget(const std::string& body_id, const Transform& pose);

  // Haptics (world_haptics.cc): a session's channel drives dynamic rigid body `body_id`
  // through a virtual coupling. FAILED_PRECONDITION when another session holds the tool or
  // the body is not a dynamic rigid body, NOT_FOUND when there is no such body. Attaching
  // publishes a first local model at once.
  absl::Status AttachHapticTool(const std::string& body_id,
                                std::shared_ptr<haptics::ToolChannel> channel);
  // Releases the tool if `channel` still holds it.
  void DetachHapticTool(const std::string& body_id, const haptics::ToolChannel* channel);
  // Publishes every tool's local model for the current state (each Step does it; a paused
  // world's host does it after edits).
  void PublishHapticModels();
  // The bodies a haptic session may drive (dynamic rigid bodies), with what its defaults
  // need: the mass and the smallest principal inertia. The host publishes them so that a
  // session can be opened without waiting for the world.
  struct HapticToolFacts {
    double mass = 0.0;         // kg
    double min_inertia = 0.0;  // kg m^2
  };
  std::vector<std::pair<std::string, HapticToolFacts>> HapticToolCandidates() const;

  absl::StatusOr<BodyDesc> GetBody(const std::string& id) const;
  bool HasBody(const std::string& id) const {
    return body_ids_.contains(id) || rods_.HasRod(id) || soft_.HasBody(id) ||
           strands_.HasStrand(id);
  }
  bool HasConstraint(const std::string& id) const {
    return constraints_.Contains(id) || rods_.HasConstraint(id) || rods_.HasPearl(id) ||
           soft_.HasConstraint(id) || strands_.HasConstraint(id);
  }
  SceneDesc Export() const;

  // Advances the world by one tick of settings().dt().
  void Step();
  // Divergence recovery (world_rollback.cc, driven by DivergenceGuard): takes the state of
  // `good`, a copy of this world from an earlier tick, but keeps this world's settings,
  // counters and haptic sessions; the next frame reports the event given to
  // ReportDivergence, which also counts it.
  void RestoreState(const World& good);
  void ReportDivergence(const DivergenceEvent& event);

  // Snapshots (world_saved_state.cc): the changing state the scene export leaves out.
  WorldSavedState SaveState() const;
  // On a world just built from the snapshot's scene: takes `state`, which the caller
  // checked against this world (its sizes, indices and numbers). INVALID_ARGUMENT naming
  // the rods' field for a solver ordering that does not fit (see RodWorld::Restore).
  absl::Status RestoreSavedState(WorldSavedState state);
  // Takes the whole state and settings of `restored` (a world rebuilt from a snapshot) but
  // keeps this world's name, monitoring totals and attached haptic sessions.
  void ReplaceWith(World restored);
  Frame MakeFrame() const;

  const std::string& name() const { return name_; }
  const WorldSettings& settings() const { return settings_; }
  const WorldLimits& limits() const { return limits_; }
  uint64_t tick() const { return tick_; }
  double sim_time() const { return sim_time_; }
  const StepStats& last_stats() const { return stats_; }
  // Totals over every step so far (for monitoring).
  const StepCounters& counters() const { return counters_; }
  int body_count() const {
    return bodies_.size() + static_cast<int>(rods_.rods().size() + soft_.bodies().size()) +
           static_cast<int>(strands_.strands().size());
  }
  int constraint_count() const {
    return constraints_.size() + soft_.constraint_count() + strands_.constraint_count() +
           static_cast<int>(rods_.constraints().size() + rods_.pearls().size());
  }
  // One contact the last step's constraint solve held, with its impulse over the step:
  // between rigid bodies, between a soft body's vertex (A) and a rigid body (B), or between
  // a rod's point (A, Gauss-Seidel only) and a rigid body (B).
  struct ContactReport {
    std::string a;
    std::string b;
    int vertex = -1;              // A's vertex when A is a soft body
    Vec3 point = Vec3::Zero();    // m, world
    Vec3 normal = Vec3::UnitY();  // unit, from A to B
    double normal_impulse = 0.0;  // N s, >= 0, pushing A and B apart
    Vec3 impulse = Vec3::Zero();  // N s, on B (friction included); A takes its opposite
  };
  std::vector<ContactReport> LastContacts() const;

  const RigidBodies& bodies() const { return bodies_; }
  const RodWorld& rods() const { return rods_; }
  const SoftWorld& soft_bodies() const { return soft_; }
  const StrandWorld& strands() const { return strands_; }
  int joint_count() const { return static_cast<int>(constraints_.joints().size()); }
  // Whether rigid body `id` is a cutting tool.
  bool IsScalpel(const std::string& id) const { return scalpels_.contains(id); }

 private:
  // The step pipeline, one function per stage, in order.
  void ApplyDeviceTargets();
  void AccumulateForces();
  void IntegrateFreeMotion();
  void DetectCollisions();
  void BuildConstraintRows();
  void SolveConstraints();
  void ApplyCorrectionMotion();
  void StepRods();
  void StepSoftBodies();
  // Soft contacts through the Gauss-Seidel solve (world_soft_contacts.cc): the FEM soft
  // bodies' free motion, their vertices' contacts with rigid shapes, their rows (solver
  // bodies past the rigid ones) and compliance, and the solved forces applied to them.
  void IntegrateSoftFreeMotion();
  void DetectSoftContacts();
  void BuildSoftContactRows();
  void AddSoftCompliance();
  void ApplySoftContactForces();
  // Rods against rigid bodies through the Gauss-Seidel solve (world_rod_contacts.cc): the
  // rods' contacts found before the solve, their free motion and the contact points'
  // constrained compliance, the points' rows (solver bodies past the soft ones), and the
  // solved forces taken back by the rods.
  void DetectRodContacts();
  void BuildRodContactRows();
  void AddRodCompliance();
  void GatherRodContactForces();
  // Rods against soft bodies in the same solve (world_rod_soft_contacts.cc): a rod sample
  // near an FEM body's surface, found before the rods' step begins.
  struct RodSoftCandidate {
    int rod = 0;
    int sample = 0;
    double u = 0.0;
    int soft = 0;
    SoftWorld::WeightedPoint at;
    ContactPoint contact;
    double friction = 0.0;
  };
  std::vector<RodSoftCandidate> FindRodSoftContacts() const;
  // The candidates' contacts once the rods' points are placed (`point_of_candidate`):
  // their soft points join the soft bodies' groups.
  void AddRodSoftContacts(const std::vector<RodSoftCandidate>& candidates,
                          std::span<const uint32_t> point_of_candidate);
  void BuildRodSoftRows();
  // Soft bodies against each other in the same solve (world_soft_pairs.cc).
  void DetectSoftPairContacts();
  void BuildSoftPairRows();
  void GroupSoftPoints();
  void RecordContacts();
  // Rigid body i as a contact's body (the world when it is not dynamic), its centre of
  // mass at `origin`.
  ContactBody RigidContactBody(uint32_t i, const Vec3& origin) const;
  absl::flat_hash_set<uint32_t> Handles() const;
  void StepStrands();
  void BuildObstacles();
  void AppendObstacles(uint32_t i, double reach, std::vector<Obstacle>* out) const;
  void ApplyImpulse(uint32_t body, const Vec3& point, const Vec3& impulse, bool move_pose);
  std::optional<FollowedBody> Followed(const std::string& id) const;
  void ApplyRodPushes();
  // Haptic stages (world_haptics.cc): the coupling forces averaged since the last tick
  // act on the tools; the local models are exported after the step.
  void ApplyHapticCouplings();
  void AddHapticToolsToFrame(Frame* frame) const;

  std::string NextId(const char* prefix);
  absl::StatusOr<std::string> AddDeformableConstraint(const ConstraintDesc& desc);
  void AddRodsToFrame(Frame* frame) const;
  void AddSoftBodiesToFrame(Frame* frame) const;
  BodyDesc DescribeRigid(int i) const;
  std::vector<SoftTool> Scalpels() const;
  void AddStrandsToFrame(Frame* frame) const;
  absl::StatusOr<std::string> AddStrand(const BodyDesc& desc);

  std::string name_;
  WorldSettings settings_;
  WorldLimits limits_;
  uint64_t tick_ = 0;
  uint64_t edits_ = 0;
  double sim_time_ = 0.0;
  uint64_t next_id_ = 1;
  StepCounters counters_;
  std::optional<DivergenceEvent> divergence_;  // reported in the next frame

  RigidBodies bodies_;
  RodWorld rods_;
  SoftWorld soft_;
  StrandWorld strands_;
  absl::flat_hash_map<std::string, BodyHandle> body_ids_;
  // Rigid bodies that cut, in id order (the order soft bodies meet them in).
  std::map<std::string, ScalpelDesc> scalpels_;
  ConstraintSet constraints_;
  std::vector<std::pair<BodyHandle, Transform>> device_targets_;  // arrival order
  std::vector<BodyHandle> device_driven_;  // bodies moved by a device last tick
  std::vector<std::string> removed_constraints_;       // since the last step
  std::vector<std::string> tick_removed_constraints_;  // during the last step
  // Haptic tools: body id -> the channel of the session driving it.
  absl::flat_hash_map<std::string, std::shared_ptr<haptics::ToolChannel>> haptic_tools_;

  // A contact point found this tick, with the dense indices of its bodies.
  struct Contact {
    uint32_t a = 0;
    uint32_t b = 0;
    ContactPoint point;
  };
  // Where a joint's blocks sit in rows_ (to copy solved forces back).
  struct JointBlocks {
    uint32_t joint = 0;
    uint32_t first = 0;
    int count = 0;
  };

  // The passes of the two solver pipelines (see world_step.cc).
  SolveResult RunSolver(ConstraintSolver& solver, const SolverOptions& options);
  void SolveGaussSeidel();
  void SolveTunable();
  double TunablePositionRounds(size_t contacts, int iterations, double budget_end_us,
                               const std::vector<Vec6>* fixed, SolveResult* result);
  double SpentSolveUs() const;
  void StoreFrictionDisplacements(size_t contacts);
  void MoveFreePoses(const std::vector<Vec6>& dq);
  double DeepestContact() const;
  void UpdateCompliance(const std::vector<Quat>& orientations);
  void BuildContactRows(const std::vector<Vec3>& positions,
                        const std::vector<Quat>& orientations, bool with_friction, bool warm);
  enum class JointLevel { kPosition, kVelocity };
  void BuildJointRows(const std::vector<Vec3>& positions, const std::vector<Quat>& orientations,
                      JointLevel level);
  void StoreWarmStart();
  double MaxPenetration() const;
  void RemoveReleasedJoints();
  void StabilizeJoints();

  // Per-step scratch, kept to reuse capacity.
  std::vector<Vec3> force_;                   // N, external force per body
  std::vector<Obstacle> obstacles_;           // the rigid shapes deformable bodies meet
  std::vector<Vec3> free_position_;           // pose after free motion
  std::vector<Quat> free_orientation_;
  SweepAndPrune broadphase_;
  std::vector<Aabb> aabbs_;
  // Every body's child shapes placed for the tick, body i's from placed_start_[i] up to
  // placed_start_[i + 1].
  std::vector<PlacedShape> placed_;
  std::vector<uint32_t> placed_start_;
  std::vector<double> reach_;  // m, per body: how far it moves this tick (speculative only)
  std::vector<ProxyPair> pairs_;
  std::vector<ProxyPair> jointed_;  // body pairs joined by a constraint, sorted
  std::vector<Contact> contacts_;
  // Per contact: its point in body A's frame at the poses its row was built at (the key of
  // its warm start, looked up and stored under the same key).
  std::vector<Vec3> contact_local_a_;
  // Per contact, its block as the tunable velocity pass solved it, kept aside while the
  // contact pass uses the block (SolveTunable): its violations and impulse.
  struct ContactPass {
    Vec3 violation = Vec3::Zero();
    Vec3 force = Vec3::Zero();
  };
  std::vector<ContactPass> contact_pass_;
  // The tunable pipeline's velocity-pass displacements, kept aside during the contact
  // pass, and the displacements of its friction impulses (SolveTunable).
  std::vector<Vec6> velocity_displacements_;
  std::vector<Vec6> friction_displacements_;
  // A soft body's vertex against a rigid body (A the vertex, as solver body
  // bodies_.size() + point, B the rigid body).
  struct SoftContact {
    int soft = 0;
    int vertex = 0;
    uint32_t point = 0;
    uint32_t rigid = 0;
    ContactPoint contact;
  };
  // A vertex of soft body `soft_a` against a surface point of soft body `soft_b` (A the
  // vertex, solver body bodies_.size() + point_a; B the surface point, + point_b).
  struct SoftPairContact {
    int soft_a = 0;
    int vertex = 0;
    uint32_t point_a = 0;
    int soft_b = 0;
    uint32_t point_b = 0;
    ContactPoint contact;
    double friction = 0.0;  // the two bodies' coefficients combined
  };
  struct SoftPoint {
    int soft = 0;
    SoftWorld::WeightedPoint at;
  };
  std::vector<SoftContact> soft_contacts_;
  std::vector<SoftPairContact> soft_pair_contacts_;
  std::vector<SoftPoint> soft_points_;      // the solver's bodies past the rigid ones
  std::vector<CoupledPoints> soft_groups_;  // points coupled through their soft body
  size_t soft_first_block_ = 0;             // the soft contacts' first block in rows_
  size_t soft_pair_first_block_ = 0;        // the soft-soft contacts' first block
  // Last tick's soft contact forces by (soft body, vertex, rigid body), for warm starts,
  // and the soft-soft ones by (soft body A, its vertex, soft body B).
  absl::flat_hash_map<std::tuple<int, int, uint32_t>, Vec3> soft_warm_;
  // A rod point against a rigid body (A the point, as solver body rod_first_point_ +
  // point, B the rigid body); `contact` is the rods' contact `contact` (RodWorld's order).
  struct RodSolverContact {
    uint32_t point = 0;
    uint32_t rigid = 0;
    int rod = 0;
    int sample = 0;
    ContactPoint contact;
  };
  struct RodSolverPoint {
    RodWorld::PointRef ref;
    Vec3 velocity = Vec3::Zero();  // m/s, of its free motion over the step
  };
  // Whether the rods' step began before the solve this tick (their contacts go through
  // it), and whether that beginning succeeded.
  bool rod_step_begun_ = false;
  bool rod_step_ok_ = false;
  std::vector<Obstacle> rod_start_obstacles_;  // rigid shapes at the start of the tick
  std::vector<RodSolverContact> rod_contacts_;
  // A rod point against a soft body's surface point (A the rod point, B the soft point,
  // solver body bodies_.size() + soft_point).
  struct RodSoftContact {
    uint32_t point = 0;
    int rod = 0;
    int soft = 0;
    uint32_t soft_point = 0;
    ContactPoint contact;
    double friction = 0.0;
  };
  std::vector<RodSoftContact> rod_soft_contacts_;
  size_t rod_soft_first_block_ = 0;
  std::vector<RodSolverPoint> rod_points_;
  std::vector<CoupledPoints> rod_groups_;  // first relative to rod_first_point_
  std::vector<CoupledPoints> solver_groups_;  // soft and rod groups, for the solve
  uint32_t rod_first_point_ = 0;
  size_t rod_first_block_ = 0;
  std::vector<Vec3> rod_point_forces_;   // N, the solve's force on each rod point
  std::vector<double> rod_normal_forces_;  // N, per rod contact
  // Last tick's rod contact forces by (rod, sample, rigid body), for warm starts.
  absl::flat_hash_map<std::tuple<int, int, uint32_t>, Vec3> rod_warm_;
  absl::flat_hash_map<std::tuple<int, int, int>, Vec3> soft_pair_warm_;
  // The last solve's contacts and their forces (LastContacts).
  struct ContactRecord {
    bool soft = false;  // A is soft body `a`'s vertex `vertex`
    bool rod = false;   // A is rod `a`'s point
    uint32_t a = 0;
    uint32_t b = 0;
    bool soft_b = false;  // B is soft body `b`'s surface
    int vertex = -1;
    ContactPoint contact;
    Vec3 impulse = Vec3::Zero();  // on B
    double normal_impulse = 0.0;
  };
  std::vector<ContactRecord> last_contacts_;
  // This tick's soft contact impulses on dynamic rigid bodies (the haptic buffers' load).
  std::vector<SoftWorld::Push> soft_solver_pushes_;
  ContactCache contact_cache_;
  ConstraintRows rows_;
  std::vector<BodyCompliance> compliance_;
  std::vector<Vec6> displacements_;
  std::vector<JointBlocks> joint_blocks_;
  std::vector<uint32_t> released_;  // joints released this step (indices into joints())
  GaussSeidelSolver gauss_seidel_;
  TunableLcpSolver tunable_;
  // The tunable velocity pass's cost with one step, per scalar row, and the contact pass's
  // with at most one step, per contact (us), as last measured under a budget: whether the
  // budget leaves room for a contact pass (SolveTunable).
  double velocity_step_us_per_row_ = 0.0;
  double contact_pass_us_per_contact_ = 0.0;
  StepStats stats_;
};

}  // namespace ligature
