#pragma once
// The hand-off between a world and the haptic session driving one of its tools. Neither
// side ever waits for the other:
//  - world -> haptics: the local model, published after every tick as an immutable
//    snapshot through an atomic shared pointer (a store by the world, a load per pose);
//  - haptics -> world: the coupling force of every pose, weighted by its duration, added
//    into an accumulator that the world takes (and resets) at the start of its next tick.
//    Its lock (`mu_`, which also guards what viewers see and the refusal) guards a handful
//    of additions, never a solve or any I/O.
// A channel is created by the session and attached to the tool body by a world command
// (which the session does not wait for: until it runs there is no model, and a refusal
// comes back through Refuse); the world holds it (shared) until the session detaches it or
// the tool disappears.

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "server/haptics/local_model.h"
#include "server/math/transform.h"

namespace ligature::haptics {

// What viewers see of a tool (frames).
struct ToolDisplay {
  std::string device_id;
  Transform device_pose;
  uint32_t buttons = 0;
  int contacts = 0;
  bool watchdog = false;
  Vec3 force = Vec3::Zero();   // N, on the tool: the average the world took last tick
  Vec3 torque = Vec3::Zero();  // N m
};

// The coupling the world takes for one tick.
struct CouplingAverage {
  Vec3 force = Vec3::Zero();   // N, on the tool
  Vec3 torque = Vec3::Zero();  // N m
  double duration = 0.0;       // s of haptic steps averaged; 0: none
  int samples = 0;
};

class ToolChannel {
 public:
  ToolChannel(std::string session_id, std::string device_id);

  const std::string& session_id() const { return session_id_; }

  // World side ------------------------------------------------------------------------
  void PublishModel(std::shared_ptr<const ToolLocalModel> model) {
    model_.store(std::move(model), std::memory_order_release);
  }
  // The world refused to attach the tool (the session ends with `status`).
  void Refuse(absl::Status status) ABSL_LOCKS_EXCLUDED(mu_);
  // The duration-weighted average since the last call, which it resets; also kept as the
  // force viewers see.
  CouplingAverage TakeCoupling() ABSL_LOCKS_EXCLUDED(mu_);
  ToolDisplay display() const ABSL_LOCKS_EXCLUDED(mu_);

  // Haptic side -----------------------------------------------------------------------
  std::shared_ptr<const ToolLocalModel> model() const {
    return model_.load(std::memory_order_acquire);
  }
  void AddCoupling(const Vec3& force, const Vec3& torque, double weight)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Set when the world refused the tool; the session then ends with it.
  std::optional<absl::Status> refusal() const ABSL_LOCKS_EXCLUDED(mu_);
  // The newest device state, for viewers.
  void SetDevice(const Transform& pose, uint32_t buttons, int contacts, bool watchdog)
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  const std::string session_id_;
  std::atomic<std::shared_ptr<const ToolLocalModel>> model_;

  mutable absl::Mutex mu_;
  Vec3 force_sum_ ABSL_GUARDED_BY(mu_) = Vec3::Zero();   // N s
  Vec3 torque_sum_ ABSL_GUARDED_BY(mu_) = Vec3::Zero();  // N m s
  double weight_sum_ ABSL_GUARDED_BY(mu_) = 0.0;
  int samples_ ABSL_GUARDED_BY(mu_) = 0;
  ToolDisplay display_ ABSL_GUARDED_BY(mu_);
  std::optional<absl::Status> refusal_ ABSL_GUARDED_BY(mu_);
  std::atomic<bool> refused_{false};  // refusal_ is set (read per pose without the lock)
};

}  // namespace ligature::haptics
