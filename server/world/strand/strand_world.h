#pragma once
// The strands of a world: oriented strands (hair, braids, tufts), each a tree of rigid
// segments on spherical joints hanging from a base that is held at a pose or follows a
// rigid body. One step advances every strand by its own implicit reduced-coordinate step
// (StrandSimulation) with the world's rigid shapes as obstacles; a strand whose step fails
// or turns non-finite keeps its previous shape, at rest, and is counted. Strands do not
// touch each other, so a step shares them out over a few threads; each strand's step reads
// only its own state and the world's (unchanged) bodies, so results do not depend on the
// number of threads.

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "server/constraint/strand/strand_constraint_desc.h"
#include "server/geometry/obstacle.h"
#include "server/world/strand/strand_simulation.h"
#include "server/model/strand/art_direction.h"
#include "server/model/strand/strand_body_desc.h"
#include "server/world/rod/rod_world.h"

namespace ligature {

// The motion of a rigid body an obstacle belongs to: velocities of its centre of mass.
struct ObstacleMotion {
  Vec3 center = Vec3::Zero();            // m, world
  Vec3 linear_velocity = Vec3::Zero();   // m/s, of the centre
  Vec3 angular_velocity = Vec3::Zero();  // rad/s
};
// Motion of the world's dense body index (nullopt: at rest).
using ObstacleMotionLookup = std::function<std::optional<ObstacleMotion>(uint32_t)>;

// A world rigid shape as one strand meets it: moving with its body's `motion`, with the
// strand's contact parameters.
Obstacle StrandObstacleOf(const Obstacle& o, const ObstacleMotion& motion, double friction,
                          double restitution);

struct StrandWorldStats {
  int newton_iterations = 0;  // largest over the strands
  int contacts = 0;           // collision points, all strands
  int recovered = 0;          // strands whose step failed and was undone
};

class StrandWorld {
 public:
  // A constraint on a strand and the target it had last step (for its velocity).
  struct Constraint {
    StrandConstraintDesc desc;
    std::optional<Vec3> last_target;
  };
  struct Strand {
    Strand(StrandBodyDesc d, StrandSimulation s) : desc(std::move(d)), sim(std::move(s)) {}
    StrandBodyDesc desc;
    StrandSimulation sim;
    // Poses of the followed body and of the local-dynamics body, for their velocities
    // and accelerations.
    BasePoseHistory base_history;
    BasePoseHistory reference_history;
    // Base point and segment tips after the last step (world, m).
    std::vector<Vec3> points;
    // Parent of each point (-1 for the base point); empty for a serial chain.
    std::vector<int> point_parents;
    Transform base_pose;  // world, after the last step
    double last_motion = 0.0;  // m, largest point displacement of the last step
    double base_speed = 0.0;   // m/s, how fast the base's motion sweeps the strand
    std::vector<Constraint> constraints;
  };

  // INVALID_ARGUMENT naming the field for a bad curve or material; FAILED_PRECONDITION
  // when the zero-gravity rest shape cannot be reached by the strand's springs. `base`
  // is the base frame's world pose now (the followed body's pose times desc.pose).
  absl::Status AddStrand(const StrandBodyDesc& desc, const Transform& base, const Vec3& gravity);
  // Removes the strand and its constraints, whose ids go to `removed_constraints`.
  bool RemoveStrand(const std::string& id, std::vector<std::string>* removed_constraints);
  // A followed body is being deleted: strands that follow it stay where they are, held;
  // constraints whose target rides on it are removed, and their ids returned.
  std::vector<std::string> Unfollow(const std::string& body_id);

  // Snapshots: a strand's changing state (its model is in the scene) and the pose
  // histories its base velocities come from.
  struct SavedStrand {
    std::vector<Quat> q;  // joint quaternions, per segment
    std::vector<Vec3> w;  // rad/s, per segment
    std::deque<BasePoseHistory::Sample> base_history;
    std::deque<BasePoseHistory::Sample> reference_history;
    std::vector<Vec3> points;  // m
    Transform base_pose;
    double last_motion = 0.0;  // m
    double base_speed = 0.0;   // m/s
    std::vector<std::optional<Vec3>> constraint_targets;  // per constraint
  };
  std::vector<SavedStrand> Save() const;
  // Takes `strands`, checked by the caller against strands() (one per strand, its sizes).
  void Restore(std::vector<SavedStrand> strands);

  // NOT_FOUND for an unknown strand, INVALID_ARGUMENT for a segment it does not have.
  // Whether follow_body exists is the caller's to check.
  absl::Status AddConstraint(const StrandConstraintDesc& desc);
  bool HasConstraint(const std::string& id) const;
  absl::Status RemoveConstraint(const std::string& id);
  int constraint_count() const;

  bool HasStrand(const std::string& id) const { return index_.contains(id); }
  // A new filter (layers and mask) for strand `id`, which exists.
  void SetCollision(const std::string& id, const CollisionFilter& filter) {
    strands_[index_.at(id)].desc.collision = filter;
  }
  const Strand* FindStrand(const std::string& id) const;
  const std::vector<Strand>& strands() const { return strands_; }
  bool empty() const { return strands_.empty(); }
  // Whether any strand follows (or takes its local dynamics from) `body_id`.
  bool References(const std::string& body_id) const;

  // One step of h seconds ending at simulated time `time_end`: bases take the followed
  // bodies' poses (`poses`), and strands meet the `obstacles` (held for the step, moving
  // as `motion` says).
  void Step(double time_end, double h, const Vec3& gravity, const BodyPoseLookup& poses,
            std::span<const Obstacle> obstacles = {},
            const ObstacleMotionLookup& motion = nullptr);
  const StrandWorldStats& last_stats() const { return stats_; }

  // Threads a step uses, the caller's included (1: the caller alone).
  void set_threads(int threads) { threads_ = threads < 1 ? 1 : threads; }
  int threads() const { return threads_; }

 private:
  // One strand's step; its Newton iterations, contacts and recovery go into `stats`.
  void StepStrand(Strand& s, double time_end, double h, const Vec3& gravity,
                  const BodyPoseLookup& poses, std::span<const Obstacle> obstacles,
                  const ObstacleMotionLookup& motion, StrandWorldStats* stats);
  // The base of one strand at the end of the step, and the local-dynamics reference.
  StrandBase BaseOf(Strand& s, double time_end, const BodyPoseLookup& poses,
                    std::optional<StrandBase>* reference);
  // The obstacles near a strand, as it meets them (see StrandObstacleOf).
  std::vector<Obstacle> NearbyObstacles(const Strand& s, double h,
                                        std::span<const Obstacle> obstacles,
                                        const ObstacleMotionLookup& motion) const;
  void Reindex();

  std::vector<Strand> strands_;
  absl::flat_hash_map<std::string, int> index_;
  StrandWorldStats stats_;
  int threads_ = 2;
};

}  // namespace ligature
