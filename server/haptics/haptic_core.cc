#include "server/haptics/haptic_core.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ligature::haptics {
namespace {

constexpr double kMinStep = 1e-4;        // s, shortest tool step
constexpr double kMaxStep = 1e-2;        // s, longest tool step
constexpr double kVelocityBlend = 0.5;   // weight of the newest device velocity sample
constexpr double kPeriodBlend = 0.05;    // weight of the newest interval in the period
constexpr double kMinStaleAge = 0.05;    // s

}  // namespace

HapticCore::HapticCore(const HapticParams& params)
    : params_(params), sim_(params.coupling), filter_(params.limits) {}

void HapticCore::SetModel(std::shared_ptr<const ToolLocalModel> model) {
  model_ = std::move(model);
}

// The device pose as a target for the tool's centre of mass, with velocities estimated by
// finite differences, smoothed.
DeviceTarget HapticCore::TargetFor(const DevicePose& pose, double h) {
  DeviceTarget t;
  const Vec3 center = model_ ? model_->center_local : Vec3::Zero();
  t.position = pose.position + pose.orientation * center;
  t.orientation = pose.orientation;
  if (has_pose_ && !released_) {
    const Vec3 v = (t.position - last_target_.position) / h;
    const Vec3 w = RotationBetween(last_target_.orientation, t.orientation) / h;
    t.linear_velocity = kVelocityBlend * v + (1.0 - kVelocityBlend) * last_target_.linear_velocity;
    t.angular_velocity =
        kVelocityBlend * w + (1.0 - kVelocityBlend) * last_target_.angular_velocity;
  }
  return t;
}

bool HapticCore::Admit(DevicePose* pose, double now, HapticReply* reply, double* h) {
  reply->sequence = pose->sequence;
  reply->client_time = pose->client_time;
  // The pose and its order; a refused pose gets zero force at once.
  const bool bad = !CheckDevicePose(pose).ok();
  const bool late = has_pose_ && pose->sequence <= last_sequence_;
  if (bad || late) {
    reply->rejected_pose = true;
    reply->out_of_order = !bad && late;
    filter_.Set(Vec3::Zero(), Vec3::Zero());
    last_output_time_ = now;
    return false;
  }
  // The step: the device's own sample interval when it is sane, else the arrival interval.
  *h = 1e-3;
  if (has_pose_) {
    const double client_dt = pose->client_time - last_client_time_;
    const double arrival_dt = now - last_pose_time_;
    *h = (client_dt > 0.0 && client_dt <= kMaxStep) ? client_dt : arrival_dt;
    *h = std::clamp(*h, kMinStep, kMaxStep);
    if (!released_) period_ += kPeriodBlend * (*h - period_);
  }
  return true;
}

void HapticCore::Remember(const DevicePose& pose, const DeviceTarget& target, double now) {
  has_pose_ = true;
  released_ = false;
  ramping_ = false;
  last_sequence_ = pose.sequence;
  last_client_time_ = pose.client_time;
  last_pose_time_ = now;
  last_output_time_ = now;
  last_target_ = target;
}

HapticReply HapticCore::OnPose(DevicePose pose, double now) {
  HapticReply reply;
  double h = 0.0;
  if (!Admit(&pose, now, &reply, &h)) return reply;

  // The model: a new one re-synchronizes the tool to the world's state, as does the first
  // pose after a watchdog release.
  if (model_ == nullptr) {
    reply.stale_model = true;
    filter_.Set(Vec3::Zero(), Vec3::Zero());
  } else {
    if (!synced_ || released_) {
      sim_.Reset(model_);
      synced_tick_ = model_->tick;
      synced_ = true;
    } else if (model_->tick != synced_tick_) {
      if (remote_blend_ < 0.0) {
        sim_.Reset(model_);
      } else {
        sim_.Refresh(model_, remote_blend_);
      }
      synced_tick_ = model_->tick;
      synced_ = true;
    }
    reply.model_tick = model_->tick;
    reply.stale_model = now - model_->published_at > std::max(3.0 * model_->dt, kMinStaleAge);
  }
  const DeviceTarget target = TargetFor(pose, h);
  ToolStepResult step;
  if (model_ != nullptr) step = sim_.Step(target, h);

  // Safety filter on the device's force.
  const FilteredForce out = model_ != nullptr
                                ? filter_.Apply(-step.force, -step.torque, now - last_output_time_)
                                : FilteredForce{};
  reply.force = out.force;
  reply.torque = out.torque;
  reply.clamped = out.clamped;
  reply.rate_limited = out.rate_limited;
  reply.contacts = step.contacts;

  // The world's share: the opposite of the device's force.
  if (model_ != nullptr) {
    reply.world_force = -out.force;
    reply.world_torque = -out.torque;
    reply.world_weight = h;
  }
  Remember(pose, target, now);
  return reply;
}

HapticReply HapticCore::OnRemotePose(DevicePose pose, const Vec3& force, const Vec3& torque,
                                     double now) {
  HapticReply reply;
  double h = 0.0;
  if (!Admit(&pose, now, &reply, &h)) return reply;
  Vec3 f = force, t = torque;
  reply.clamped = ClampLength(&f, params_.limits.force_limit);
  reply.clamped = ClampLength(&t, params_.limits.torque_limit) || reply.clamped;
  reply.force = f;
  reply.torque = t;
  reply.world_force = -f;
  reply.world_torque = -t;
  reply.world_weight = h;
  filter_.Set(f, t);
  Remember(pose, TargetFor(pose, h), now);
  return reply;
}

std::optional<HapticReply> HapticCore::Idle(double now) {
  if (released_ || !has_pose_) return std::nullopt;
  const double timeout = params_.limits.watchdog_timeout;
  const double late = now - last_pose_time_ - timeout;
  if (late < 0.0) return std::nullopt;
  if (!ramping_) {
    ramping_ = true;
    ramp_force_ = filter_.last_force();
    ramp_torque_ = filter_.last_torque();
  }
  // Linear ramp from the output at the timeout to zero one period later.
  const double scale = std::max(0.0, 1.0 - late / period_);
  HapticReply reply;
  reply.sequence = last_sequence_;
  reply.client_time = last_client_time_;
  reply.watchdog = true;
  reply.force = scale * ramp_force_;
  reply.torque = scale * ramp_torque_;
  reply.model_tick = synced_ ? synced_tick_ : 0;
  filter_.Set(reply.force, reply.torque);
  last_output_time_ = now;
  if (scale == 0.0) released_ = true;
  return reply;
}

double HapticCore::NextIdleTime(double now) const {
  if (released_ || !has_pose_) return std::numeric_limits<double>::infinity();
  const double trip = last_pose_time_ + params_.limits.watchdog_timeout;
  if (now < trip) return trip;
  // While ramping: a few outputs per period, the last one at the ramp's end.
  return std::min(now + 0.25 * period_, trip + period_);
}

}  // namespace ligature::haptics
