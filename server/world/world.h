#pragma once
// A simulation world: constant model, changing state, and the step pipeline. Not
// thread-safe: one thread at a time (the scheduler's worker, or a test) owns it.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
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
#include "server/world/coupling/haptic_tool_coupling.h"
#include "server/world/coupling/rod_rigid_coupling.h"
#include "server/world/coupling/rod_soft_coupling.h"
#include "server/world/coupling/soft_rigid_coupling.h"
#include "server/world/coupling/soft_soft_coupling.h"
#include "server/world/event_tracker.h"
#include "server/world/events.h"
#include "server/world/frame.h"
#include "server/world/rod/rod_world.h"
#include "server/world/soft/soft_world.h"
#include "server/world/strand/strand_world.h"
#include "server/world/scene_desc.h"
#include "server/world/step_context.h"
#include "server/world/step_counters.h"
#include "server/world/world_saved_state.h"
#include "server/world/world_view.h"

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
  std::optional<CollisionFilter> collision;  // the body's (its children's own stay)
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
  // A joint between rigid bodies as clients gave it (NOT_FOUND, or FAILED_PRECONDITION for
  // a constraint of another kind).
  absl::StatusOr<ConstraintDesc> JointDesc(const std::string& id) const;
  // Replaces a joint's parameters and frames (drives and their targets, limits, break
  // thresholds) with those of `desc`, which keeps its kind and bodies; its runtime state
  // stays. An edit, unless it only streams new targets (`edit` false: like device poses,
  // those do not count in edits(), so they refresh no derived geometry).
  absl::Status UpdateJoint(const std::string& id, const ConstraintDesc& desc, bool edit = true);
  // Switches a soft-body constraint off or on (see SoftWorld::SetConstraintEnabled);
  // FAILED_PRECONDITION for a constraint of another kind, NOT_FOUND for an unknown one.
  absl::Status SetConstraintEnabled(const std::string& id, bool enabled);
  // New settings; a change of gravity or of the sleep settings wakes every body.
  void SetSettings(const WorldSettings& settings);
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

  // Contact and trigger events (world_events.cc). While reporting is on, each step makes
  // the tick's events, which TakeEvents hands out once; switching it off forgets the pairs
  // touching, so that switching it on again begins them anew. Not part of the physics
  // state: a rollback or a restored snapshot keeps the pairs known, so that each pair's
  // events stay a consistent begin ... end sequence.
  void SetEventReporting(const EventReporting& reporting);
  const EventReporting& event_reporting() const { return reporting_; }
  TickEvents TakeEvents() { return std::exchange(tick_events_, {}); }

  const RigidBodies& bodies() const { return bodies_; }
  const RodWorld& rods() const { return rods_; }
  const SoftWorld& soft_bodies() const { return soft_; }
  const StrandWorld& strands() const { return strands_; }
  int joint_count() const { return static_cast<int>(constraints_.joints().size()); }
  // Whether rigid body `id` is a cutting tool.
  bool IsScalpel(const std::string& id) const { return scalpels_.contains(id); }

 private:
  // The step pipeline, one function per stage, in order (world_step.cc). The couplings
  // between body kinds take part in the stages through their own classes
  // (server/world/coupling/).
  void ApplyDeviceTargets();
  void AccumulateForces();
  void ApplyHapticCouplings();
  void IntegrateFreeMotion();
  void IntegrateSoftFreeMotion();
  void DetectCollisions();
  void DetectSoftContacts();
  void DetectRodContacts();
  void BuildConstraintRows();
  void SolveConstraints();
  void ApplyCorrectionMotion();
  void ApplyCouplingForces();
  void StabilizeJoints();
  void BuildObstacles();
  void StepRods();
  void StepSoftBodies();
  void StepStrands();
  void FindBrokenJoints();
  void RemoveEndedJoints();
  void UpdateSleep();
  void ReportEvents();
  // Within the stages: the solve's contacts recorded for LastContacts; the rods' and soft
  // bodies' pushes on rigid bodies; what constraints that follow a body and cuts see.
  void RecordContacts();
  void RecordContactSpeeds();
  void DetectSensorOverlaps(uint32_t a, uint32_t b);
  void FindCandidatePairs();
  // Whether a joint joins rigid bodies a and b and keeps them from colliding; the contacts
  // of their shapes, appended to `out` (whether there are any).
  bool IsJointedPair(uint32_t a, uint32_t b) const;
  bool CollidePair(uint32_t a, uint32_t b, std::vector<RigidContact>* out) const;
  std::vector<EventTracker::Touch> TouchingPairs() const;
  std::vector<EventTracker::Overlap> SensorOverlaps() const;
  void ApplyImpulse(uint32_t body, const Vec3& point, const Vec3& impulse, bool move_pose);
  void ApplyRodPushes();
  std::optional<FollowedBody> Followed(const std::string& id) const;
  std::vector<SoftTool> Scalpels() const;
  // Sleeping (world_sleep.cc): who wakes and why, within the stages and on edits.
  void WakeTouchedSleepers();
  void MarkKeptAwake(std::vector<uint8_t>* keep) const;
  bool MovingKinematic(uint32_t i) const;
  bool Rests(uint32_t i) const { return !bodies_.Moves(i) && !MovingKinematic(i); }
  bool AnyAsleep() const;
  void WakeIslands(std::vector<uint32_t>* islands);
  void WakeBody(uint32_t i);
  void WakeNear(uint32_t i);
  void WakeJointBodies(const Joint& j);
  void WakeAll();
  // What the stages and the couplings see of this world for one call.
  WorldView View();

  // The passes of the two solver pipelines (world_solve.cc) and their rows (world_rows.cc).
  SolveResult RunTunable(const SolverOptions& options);
  void SolveGaussSeidel();
  void SolveTunable();
  double TunablePositionRounds(size_t contacts, int iterations, double budget_end_us,
                               const std::vector<Vec6>* fixed, SolveResult* result);
  double SpentSolveUs() const;
  void StoreFrictionDisplacements(size_t contacts);
  void StoreSoftDisplacements(size_t first, size_t end);
  void MoveFreePoses(const std::vector<Vec6>& dq);
  double DeepestContact() const;
  void UpdateCompliance(const std::vector<Quat>& orientations);
  void BuildContactRows(const std::vector<Vec3>& positions,
                        const std::vector<Quat>& orientations, bool with_friction, bool warm);
  void BuildContactTorqueRows(const std::vector<Vec3>& positions, size_t first);
  // kPosition: geometry only; kVelocity: with drives, at the tick's start poses;
  // kVelocityFree: with drives, at the free-motion poses.
  enum class JointLevel { kPosition, kVelocity, kVelocityFree };
  void BuildJointRows(const std::vector<Vec3>& positions, const std::vector<Quat>& orientations,
                      JointLevel level);
  void StoreWarmStart();
  double MaxPenetration() const;
  // Substeps (world_substeps.cc): how many this tick takes, how its contacts behave, what
  // the rows keep from the start of the tick, and each later substep's start.
  int Substeps() const;
  PenetrationRecovery ContactRecovery() const;
  double SubstepContactSoftness() const;
  void KeepRowsForSubsteps();
  double OverlapPush(double distance) const;
  void BeginSubstep();
  void RebuildJointRows();
  void RelaxSubstep(std::span<const CoupledPoints> groups, SolverOptions options);

  // Edits and read-out (world.cc).
  std::string NextId(const char* prefix);
  ConstraintDesc DescribeJoint(const Joint& j) const;
  absl::StatusOr<std::string> AddDeformableConstraint(const ConstraintDesc& desc);
  absl::StatusOr<std::string> AddStrand(const BodyDesc& desc);
  BodyDesc DescribeRigid(int i) const;
  void AddRodsToFrame(Frame* frame) const;
  void AddSoftBodiesToFrame(Frame* frame) const;
  void AddStrandsToFrame(Frame* frame) const;

  // The model and its state.
  std::string name_;
  WorldSettings settings_;
  WorldLimits limits_;
  uint64_t tick_ = 0;
  uint64_t edits_ = 0;
  double sim_time_ = 0.0;
  uint64_t next_id_ = 1;
  uint32_t next_sleep_island_ = 1;  // the label the next island to fall asleep takes
  StepCounters counters_;
  std::optional<DivergenceEvent> divergence_;  // reported in the next frame
  StepStats stats_;

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
  std::vector<JointBreak> tick_broken_joints_;         // during the last step
  // The rigid contacts' and joints' warm starts (the couplings keep their own).
  ContactCache contact_cache_;
  // The tunable velocity pass's cost with one step, per scalar row, and the contact pass's
  // with at most one step, per contact (us), as last measured under a budget: whether the
  // budget leaves room for a contact pass (SolveTunable).
  double velocity_step_us_per_row_ = 0.0;
  double contact_pass_us_per_contact_ = 0.0;

  // The couplings between body kinds, each keeping its contacts and warm starts.
  SoftRigidCoupling soft_rigid_;
  SoftSoftCoupling soft_soft_;
  RodRigidCoupling rod_rigid_;
  RodSoftCoupling rod_soft_;
  HapticToolCoupling haptic_tools_;

  // The per-tick scratch the stages and the couplings share, kept to reuse capacity.
  StepContext step_;

  // Contact and trigger events: whether they are made, the pairs known, this tick's.
  EventReporting reporting_;
  EventTracker events_;
  TickEvents tick_events_;
};

}  // namespace ligature
