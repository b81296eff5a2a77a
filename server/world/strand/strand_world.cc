#include "server/world/strand/strand_world.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/model/strand/kinematics.h"

namespace ligature {
namespace {

// A joint turning faster than this, or a point beyond this distance, is a failed step (a
// diverged solve), not motion.
constexpr double kMaxJointSpeed = 1e4;  // rad/s
constexpr double kMaxCoordinate = 1e6;  // m

bool Healthy(const StrandState& state) {
  for (const Quat& q : state.q) {
    if (!q.coeffs().allFinite()) return false;
  }
  for (const Vec3& w : state.w) {
    if (!w.allFinite() || w.norm() > kMaxJointSpeed) return false;
  }
  return true;
}

bool Healthy(const std::vector<Vec3>& points) {
  return std::all_of(points.begin(), points.end(), [](const Vec3& p) {
    return p.allFinite() && p.cwiseAbs().maxCoeff() < kMaxCoordinate;
  });
}

// Base point plus every segment's tip, in the world, for the strand's state on `base`.
std::vector<Vec3> PointsOf(const StrandSimulation& sim, const Transform& base) {
  const StrandModel& model = sim.model();
  StrandKinematics kin;
  ComputeKinematics(model, base, Vec6::Zero(), sim.state().q, sim.state().w, &kin);
  std::vector<Vec3> points = TipPositions(model, kin);
  points.insert(points.begin(), base.Apply(model.segment(model.roots().front()).attach));
  return points;
}

// The base (or a reference frame) from a pose history at `time`: the pose with its
// velocity and acceleration once there are two samples, at rest before. A time that does
// not increase (the world's rate changed) starts the history again.
StrandBase FromHistory(BasePoseHistory* history, double time, const Transform& pose) {
  if (!history->Push(time, pose).ok()) {
    *history = BasePoseHistory();
    (void)history->Push(time, pose);
  }
  absl::StatusOr<StrandBase> base = history->At(time);
  if (base.ok()) return *base;
  StrandBase at_rest;
  at_rest.pose = pose;
  return at_rest;
}

bool Overlaps(const Aabb& a, const Vec3& lo, const Vec3& hi) {
  return (a.min.array() <= hi.array()).all() && (lo.array() <= a.max.array()).all();
}

// A strand's constraints as the model's, their targets at the end of the step.
StrandConstraintSet ConstraintsOf(std::vector<StrandWorld::Constraint>& constraints, double h,
                                  const BodyPoseLookup& poses) {
  StrandConstraintSet set;
  for (StrandWorld::Constraint& c : constraints) {
    const StrandConstraintDesc& d = c.desc;
    switch (d.kind) {
      case StrandConstraintKind::kPoint: {
        // A target on a body moves with it; its velocity is its change over the step.
        Vec3 target = d.target;
        if (!d.follow_body.empty()) {
          const std::optional<FollowedBody> body = poses ? poses(d.follow_body) : std::nullopt;
          target = body ? body->pose.Apply(d.target) : c.last_target.value_or(d.target);
        }
        const Vec3 velocity = c.last_target ? Vec3((target - *c.last_target) / h) : Vec3::Zero();
        c.last_target = target;
        set.points.push_back({d.segment, d.point, target, velocity, Vec3::Zero()});
        break;
      }
      case StrandConstraintKind::kCurve:
        set.curves.push_back({d.segment, d.point, d.curve});
        break;
      case StrandConstraintKind::kJointValue:
        set.joint_values.push_back({d.segment, d.joint});
        break;
      case StrandConstraintKind::kJointLimit:
        set.joint_limits.push_back({d.segment, d.max_bend, d.margin});
        break;
    }
  }
  return set;
}

}  // namespace

Obstacle StrandObstacleOf(const Obstacle& o, const ObstacleMotion& motion, double friction,
                          double restitution) {
  Obstacle out = o;
  // The velocity of the shape's origin, from its body's centre-of-mass motion.
  out.angular_velocity = motion.angular_velocity;
  out.linear_velocity =
      motion.linear_velocity + motion.angular_velocity.cross(o.pose.position - motion.center);
  out.friction = friction;
  out.restitution = restitution;
  return out;
}

absl::Status StrandWorld::AddStrand(const StrandBodyDesc& desc, const Transform& base,
                                    const Vec3& gravity) {
  if (index_.contains(desc.id)) {
    return absl::AlreadyExistsError(absl::StrCat("strand ", desc.id, " already exists"));
  }
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc.strand);
  if (!model.ok()) return model.status();
  if (!std::isfinite(desc.time_scale) || desc.time_scale < 0.0) {
    return absl::InvalidArgumentError("time_scale: must be finite and >= 0");
  }
  if (!(desc.local_dynamics >= 0.0 && desc.local_dynamics <= 1.0)) {
    return absl::InvalidArgumentError("local_dynamics: must be in [0, 1]");
  }
  for (const auto& [value, name] : {std::pair{desc.pose_strength, "pose_strength"},
                                    {desc.pose_damping, "pose_damping"},
                                    {desc.friction, "friction"}}) {
    if (!std::isfinite(value) || value < 0.0) {
      return absl::InvalidArgumentError(absl::StrCat(name, ": must be finite and >= 0"));
    }
  }
  if (!(desc.restitution >= 0.0 && desc.restitution <= 1.0)) {
    return absl::InvalidArgumentError("restitution: must be in [0, 1]");
  }
  if (!desc.wind.allFinite()) return absl::InvalidArgumentError("wind: must be finite");
  if (desc.zero_gravity_rest_shape) {
    if (absl::Status s = ApplyZeroGravityRestShape(&*model, base, gravity); !s.ok()) {
      return absl::FailedPreconditionError(
          absl::StrCat("zero_gravity_rest_shape: ", s.message()));
    }
  }
  StrandSimulationOptions options;
  options.gravity = gravity;
  options.wind = desc.wind;
  Strand s(desc, StrandSimulation(*std::move(model), options));
  s.base_pose = base;
  s.points = PointsOf(s.sim, base);
  // Point k > 0 is the tip of segment k - 1; its parent point is its segment's start.
  if (!desc.strand.parents.empty()) {
    s.point_parents.push_back(-1);
    for (int p : desc.strand.parents) s.point_parents.push_back(p < 0 ? 0 : p + 1);
  }
  index_[desc.id] = static_cast<int>(strands_.size());
  strands_.push_back(std::move(s));
  return absl::OkStatus();
}

bool StrandWorld::RemoveStrand(const std::string& id,
                               std::vector<std::string>* removed_constraints) {
  auto it = index_.find(id);
  if (it == index_.end()) return false;
  for (const Constraint& c : strands_[it->second].constraints) {
    removed_constraints->push_back(c.desc.id);
  }
  strands_.erase(strands_.begin() + it->second);
  Reindex();
  return true;
}

std::vector<std::string> StrandWorld::Unfollow(const std::string& body_id) {
  std::vector<std::string> removed;
  for (Strand& s : strands_) {
    std::erase_if(s.constraints, [&](const Constraint& c) {
      if (c.desc.follow_body != body_id) return false;
      removed.push_back(c.desc.id);
      return true;
    });
    if (s.desc.follow_body == body_id) {
      s.desc.follow_body.clear();
      s.desc.pose = s.base_pose;
      s.base_history = BasePoseHistory();
    }
    if (s.desc.local_dynamics_body == body_id) {
      s.desc.local_dynamics_body.clear();
      s.reference_history = BasePoseHistory();
    }
  }
  return removed;
}

absl::Status StrandWorld::AddConstraint(const StrandConstraintDesc& desc) {
  auto it = index_.find(desc.body);
  if (it == index_.end()) {
    return absl::NotFoundError(absl::StrCat("body: no strand ", desc.body, " in this world"));
  }
  Strand& s = strands_[it->second];
  if (desc.segment >= s.sim.model().segments()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "segment: strand ", desc.body, " has ", s.sim.model().segments(), " segments"));
  }
  s.constraints.push_back(Constraint{desc, std::nullopt});
  return absl::OkStatus();
}

bool StrandWorld::HasConstraint(const std::string& id) const {
  return std::any_of(strands_.begin(), strands_.end(), [&](const Strand& s) {
    return std::any_of(s.constraints.begin(), s.constraints.end(),
                       [&](const Constraint& c) { return c.desc.id == id; });
  });
}

absl::Status StrandWorld::RemoveConstraint(const std::string& id) {
  for (Strand& s : strands_) {
    if (std::erase_if(s.constraints, [&](const Constraint& c) { return c.desc.id == id; }) > 0) {
      return absl::OkStatus();
    }
  }
  return absl::NotFoundError(absl::StrCat("constraint ", id, " not found"));
}

int StrandWorld::constraint_count() const {
  int n = 0;
  for (const Strand& s : strands_) n += static_cast<int>(s.constraints.size());
  return n;
}


bool StrandWorld::References(const std::string& body_id) const {
  return std::any_of(strands_.begin(), strands_.end(), [&](const Strand& s) {
    return s.desc.follow_body == body_id || s.desc.local_dynamics_body == body_id;
  });
}

const StrandWorld::Strand* StrandWorld::FindStrand(const std::string& id) const {
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &strands_[it->second];
}

void StrandWorld::Reindex() {
  index_.clear();
  for (size_t i = 0; i < strands_.size(); ++i) index_[strands_[i].desc.id] = static_cast<int>(i);
}

StrandBase StrandWorld::BaseOf(Strand& s, double time_end, const BodyPoseLookup& poses,
                               std::optional<StrandBase>* reference) {
  reference->reset();
  StrandBase base;
  base.pose = s.desc.pose;
  if (!s.desc.follow_body.empty()) {
    const std::optional<FollowedBody> body = poses ? poses(s.desc.follow_body) : std::nullopt;
    // A followed body that is gone holds the base where it was.
    base.pose = body ? body->pose * s.desc.pose : s.base_pose;
    if (body) base = FromHistory(&s.base_history, time_end, base.pose);
  }
  if (!s.desc.local_dynamics_body.empty() && poses) {
    if (const std::optional<FollowedBody> body = poses(s.desc.local_dynamics_body)) {
      *reference = FromHistory(&s.reference_history, time_end, body->pose);
    }
  }
  return base;
}

std::vector<Obstacle> StrandWorld::NearbyObstacles(const Strand& s, double h,
                                                   std::span<const Obstacle> obstacles,
                                                   const ObstacleMotionLookup& motion) const {
  std::vector<Obstacle> out;
  if (obstacles.empty()) return out;
  // The strand's bounds now, grown by its thickness, the contact margin and how far it
  // can go in a step (twice what it went last step, plus the base's own motion).
  Vec3 lo = s.points.front(), hi = s.points.front();
  for (const Vec3& p : s.points) {
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  double radius = 0.0;
  for (const StrandSegment& seg : s.sim.model().all()) radius = std::max(radius, seg.radius);
  const double grow = radius + 0.01 + s.sim.options().collision_margin + 2.0 * s.last_motion +
                      h * s.base_speed;
  lo.array() -= grow;
  hi.array() += grow;
  for (const Obstacle& o : obstacles) {
    if (!s.desc.collision.Meets(o.filter) || !Overlaps(o.bounds, lo, hi)) continue;
    const std::optional<ObstacleMotion> m = motion ? motion(o.body) : std::nullopt;
    out.push_back(StrandObstacleOf(o, m.value_or(ObstacleMotion{o.pose.position}),
                                   s.desc.friction, s.desc.restitution));
  }
  return out;
}

// Strands are handed out one at a time from a shared counter to the caller and its
// helpers (the fastest thread takes the most); each keeps its own stats, merged by sum and
// max, which do not depend on who stepped what.
void StrandWorld::Step(double time_end, double h, const Vec3& gravity, const BodyPoseLookup& poses,
                       std::span<const Obstacle> obstacles, const ObstacleMotionLookup& motion) {
  stats_ = StrandWorldStats{};
  const int helpers = std::min<int>(threads_, static_cast<int>(strands_.size())) - 1;
  if (helpers <= 0) {
    for (Strand& s : strands_) StepStrand(s, time_end, h, gravity, poses, obstacles, motion, &stats_);
    return;
  }
  std::atomic<size_t> next{0};
  auto work = [&](StrandWorldStats* stats) {
    for (size_t i = next.fetch_add(1); i < strands_.size(); i = next.fetch_add(1)) {
      StepStrand(strands_[i], time_end, h, gravity, poses, obstacles, motion, stats);
    }
  };
  std::vector<StrandWorldStats> helper_stats(helpers);
  {
    std::vector<std::jthread> workers;
    for (int k = 0; k < helpers; ++k) workers.emplace_back(work, &helper_stats[k]);
    work(&stats_);
  }  // joined here
  for (const StrandWorldStats& s : helper_stats) {
    stats_.newton_iterations = std::max(stats_.newton_iterations, s.newton_iterations);
    stats_.contacts += s.contacts;
    stats_.recovered += s.recovered;
  }
}

void StrandWorld::StepStrand(Strand& s, double time_end, double h, const Vec3& gravity,
                             const BodyPoseLookup& poses, std::span<const Obstacle> obstacles,
                             const ObstacleMotionLookup& motion, StrandWorldStats* stats) {
  std::optional<StrandBase> reference;
  const StrandBase base = BaseOf(s, time_end, poses, &reference);
  // How fast the base sweeps the strand: its speed plus its turn rate times the length.
  s.base_speed = base.linear_velocity.norm() +
                 base.angular_velocity.norm() * s.sim.model().total_length();

  StrandStepInput input;
  input.base = base;
  // Local dynamics: without a body of its own, the reference is the base itself.
  input.reference = reference ? &*reference : &base;
  input.obstacles = NearbyObstacles(s, h, obstacles, motion);
  input.constraints = ConstraintsOf(s.constraints, h, poses);
  input.art.time_scale = s.desc.time_scale;
  input.art.local_dynamics = s.desc.local_dynamics;
  if (s.desc.pose_strength > 0.0 || s.desc.pose_damping > 0.0) {
    // The animated pose is the rest shape.
    for (const StrandSegment& seg : s.sim.model().all()) input.art.pose.push_back(seg.rest);
    input.art.pose_strength = s.desc.pose_strength;
    input.art.pose_damping = s.desc.pose_damping;
  }
  s.sim.mutable_options().gravity = gravity;

  // Step; a failed or runaway step is undone and the strand held at rest in its shape.
  const StrandState before = s.sim.state();
  const absl::Status status = s.sim.Step(h, input);
  std::vector<Vec3> points;
  bool ok = status.ok() && Healthy(s.sim.state());
  if (ok) {
    points = PointsOf(s.sim, base.pose);
    ok = Healthy(points);
  }
  const bool base_finite = base.pose.position.allFinite() &&
                           base.pose.orientation.coeffs().allFinite();
  if (!ok) {
    StrandState& state = s.sim.mutable_state();
    state = before;
    std::fill(state.w.begin(), state.w.end(), Vec3::Zero());
    // A base that is not finite leaves the strand where it was.
    points = PointsOf(s.sim, base_finite ? base.pose : s.base_pose);
    ++stats->recovered;
  } else {
    stats->newton_iterations = std::max(stats->newton_iterations, s.sim.stats().newton_iterations);
    stats->contacts += s.sim.stats().contacts;
  }
  s.last_motion = 0.0;
  for (size_t k = 0; k < points.size() && k < s.points.size(); ++k) {
    s.last_motion = std::max(s.last_motion, (points[k] - s.points[k]).norm());
  }
  s.points = std::move(points);
  if (base_finite) s.base_pose = base.pose;
}

std::vector<StrandWorld::SavedStrand> StrandWorld::Save() const {
  std::vector<SavedStrand> out;
  for (const Strand& s : strands_) {
    SavedStrand& saved = out.emplace_back();
    saved.q = s.sim.state().q;
    saved.w = s.sim.state().w;
    saved.base_history = s.base_history.samples();
    saved.reference_history = s.reference_history.samples();
    saved.points = s.points;
    saved.base_pose = s.base_pose;
    saved.last_motion = s.last_motion;
    saved.base_speed = s.base_speed;
    for (const Constraint& c : s.constraints) saved.constraint_targets.push_back(c.last_target);
  }
  return out;
}

void StrandWorld::Restore(std::vector<SavedStrand> strands) {
  for (size_t k = 0; k < strands_.size(); ++k) {
    Strand& s = strands_[k];
    SavedStrand& saved = strands[k];
    s.sim.mutable_state().q = std::move(saved.q);
    s.sim.mutable_state().w = std::move(saved.w);
    s.base_history.Restore(std::move(saved.base_history));
    s.reference_history.Restore(std::move(saved.reference_history));
    s.points = std::move(saved.points);
    s.base_pose = saved.base_pose;
    s.last_motion = saved.last_motion;
    s.base_speed = saved.base_speed;
    for (size_t c = 0; c < s.constraints.size(); ++c) {
      s.constraints[c].last_target = saved.constraint_targets[c];
    }
  }
}

}  // namespace ligature
