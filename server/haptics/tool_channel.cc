#include "server/haptics/tool_channel.h"

namespace ligature::haptics {

ToolChannel::ToolChannel(std::string session_id, std::string device_id)
    : session_id_(std::move(session_id)) {
  display_.device_id = std::move(device_id);
}

CouplingAverage ToolChannel::TakeCoupling() {
  absl::MutexLock lock(&mu_);
  CouplingAverage avg;
  if (weight_sum_ > 0.0) {
    avg.force = force_sum_ / weight_sum_;
    avg.torque = torque_sum_ / weight_sum_;
    avg.duration = weight_sum_;
    avg.samples = samples_;
  }
  force_sum_.setZero();
  torque_sum_.setZero();
  weight_sum_ = 0.0;
  samples_ = 0;
  display_.force = avg.force;
  display_.torque = avg.torque;
  return avg;
}

ToolDisplay ToolChannel::display() const {
  absl::MutexLock lock(&mu_);
  return display_;
}

void ToolChannel::AddCoupling(const Vec3& force, const Vec3& torque, double weight) {
  if (!(weight > 0.0) || !force.allFinite() || !torque.allFinite()) return;
  absl::MutexLock lock(&mu_);
  force_sum_ += weight * force;
  torque_sum_ += weight * torque;
  weight_sum_ += weight;
  ++samples_;
}

void ToolChannel::Refuse(absl::Status status) {
  absl::MutexLock lock(&mu_);
  if (!refusal_) refusal_ = std::move(status);
  refused_.store(true, std::memory_order_release);
}

std::optional<absl::Status> ToolChannel::refusal() const {
  if (!refused_.load(std::memory_order_acquire)) return std::nullopt;
  absl::MutexLock lock(&mu_);
  return refusal_;
}

void ToolChannel::SetDevice(const Transform& pose, uint32_t buttons, int contacts,
                            bool watchdog) {
  absl::MutexLock lock(&mu_);
  display_.device_pose = pose;
  display_.buttons = buttons;
  display_.contacts = contacts;
  display_.watchdog = watchdog;
}

}  // namespace ligature::haptics
