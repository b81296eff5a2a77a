#pragma once
// The haptic loop of one session, free of any transport: device poses in, forces out, on
// an injected monotonic clock (seconds), so that every rule can be tested exactly.
//
// For each pose, in order:
//  1. check it (finite, in range, unit quaternion) and its sequence (strictly increasing);
//     a bad pose gets zero force and the `rejected_pose` flag and never reaches the world;
//  2. take the newest local model (re-synchronizing the tool to the world's state when it
//     is new) and step the tool simulator towards the device pose;
//  3. filter the device force (the opposite of the coupling's force on the tool) through
//     the limits (ForceFilter);
//  4. hand the world the opposite of what the device got, weighted by the step's duration
//     (the world averages these over its tick).
// When no valid pose arrives within the watchdog timeout, Idle() ramps the output to zero
// within one device period (estimated from the pose intervals), and the world gets no
// coupling until poses resume.

#include <cstdint>
#include <memory>
#include <optional>

#include "server/haptics/device_pose.h"
#include "server/haptics/force_filter.h"
#include "server/haptics/haptic_params.h"
#include "server/haptics/local_model.h"
#include "server/haptics/tool_simulator.h"

namespace ligature::haptics {

struct HapticReply {
  uint64_t sequence = 0;
  double client_time = 0.0;
  Vec3 force = Vec3::Zero();   // N, on the device
  Vec3 torque = Vec3::Zero();  // N m, on the device
  int contacts = 0;
  bool clamped = false;
  bool rate_limited = false;
  bool watchdog = false;
  bool rejected_pose = false;
  bool out_of_order = false;
  bool stale_model = false;
  uint64_t model_tick = 0;
  // What the world takes: the coupling force and torque on the tool (the opposite of the
  // device's), over `world_weight` seconds (0: nothing for the world).
  Vec3 world_force = Vec3::Zero();
  Vec3 world_torque = Vec3::Zero();
  double world_weight = 0.0;
};

class HapticCore {
 public:
  explicit HapticCore(const HapticParams& params);

  // How a new model re-synchronizes the local tool. Server mode (the default) takes the
  // world's tool state whole: the model is fresh. Remote mode keeps the local state and
  // draws it a share of the way to the model's per model (models arrive a network delay
  // late, and resetting to them would close the coupling loop through twice that delay).
  void SetRemoteResync(double blend) { remote_blend_ = blend; }

  // The newest model (or nullptr); cheap to call before every pose.
  void SetModel(std::shared_ptr<const ToolLocalModel> model);

  // The reply to one pose received at `now`.
  HapticReply OnPose(DevicePose pose, double now);

  // Remote mode: the client computed and rendered `force` and `torque` itself. The pose is
  // checked as in OnPose; the world's share is the opposite of the rendered force, cut to
  // the session's limits (a client cannot push the world harder than its session allows).
  HapticReply OnRemotePose(DevicePose pose, const Vec3& force, const Vec3& torque, double now);

  // Watchdog. While poses keep coming, nothing. Once `timeout` has passed since the last
  // valid pose, a reply flagged `watchdog` whose force ramps linearly from the last output
  // to zero over one device period; after the zero output, nothing until poses resume.
  std::optional<HapticReply> Idle(double now);
  // When Idle() should next be called (monotonic s); +infinity when nothing is pending.
  double NextIdleTime(double now) const;

  // The device period estimate (s): a running mean of the pose intervals.
  double device_period() const { return period_; }
  const ToolSimulator& simulator() const { return sim_; }
  const HapticParams& params() const { return params_; }
  bool released() const { return released_; }

 private:
  DeviceTarget TargetFor(const DevicePose& pose, double h);
  // Checks the pose and its sequence; a refused one fills `reply` and gives false. A taken
  // one gives the step length.
  bool Admit(DevicePose* pose, double now, HapticReply* reply, double* h);
  void Remember(const DevicePose& pose, const DeviceTarget& target, double now);

  HapticParams params_;
  ToolSimulator sim_;
  ForceFilter filter_;
  std::shared_ptr<const ToolLocalModel> model_;
  uint64_t synced_tick_ = 0;
  double remote_blend_ = -1.0;  // < 0: server mode
  bool synced_ = false;

  // Sequence and timing of the last valid pose.
  bool has_pose_ = false;
  uint64_t last_sequence_ = 0;
  double last_client_time_ = 0.0;
  double last_pose_time_ = 0.0;
  double last_output_time_ = 0.0;
  double period_ = 1e-3;
  DeviceTarget last_target_;

  // Watchdog: released_ once the ramp reached zero (or before the first pose).
  bool released_ = true;
  Vec3 ramp_force_ = Vec3::Zero();
  Vec3 ramp_torque_ = Vec3::Zero();
  bool ramping_ = false;
};

}  // namespace ligature::haptics
