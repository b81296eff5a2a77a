// A world's haptic API: the tools' coupling is HapticToolCoupling's
// (server/world/coupling/); the world names itself and its bodies of other kinds to it.

#include "server/world/world.h"

namespace ligature {

absl::Status World::AttachHapticTool(const std::string& body_id,
                                     std::shared_ptr<haptics::ToolChannel> channel) {
  absl::Status attached =
      haptic_tools_.Attach(View(), name_, HasBody(body_id), body_id, std::move(channel));
  if (!attached.ok()) return attached;
  // The tool moves with its device from now on (and stays awake while held).
  WakeBody(bodies_.Index(body_ids_.at(body_id)));
  PublishHapticModels();
  return absl::OkStatus();
}

void World::DetachHapticTool(const std::string& body_id, const haptics::ToolChannel* channel) {
  haptic_tools_.Detach(body_id, channel);
}

void World::ApplyHapticCouplings() { haptic_tools_.ApplyCouplingForces(View(), step_); }

void World::PublishHapticModels() {
  haptic_tools_.PublishModels(View(), step_, tick_, sim_time_);
}

std::vector<std::pair<std::string, World::HapticToolFacts>> World::HapticToolCandidates()
    const {
  std::vector<std::pair<std::string, HapticToolFacts>> out;
  for (int i = 0; i < bodies_.size(); ++i) {
    if (!bodies_.IsDynamic(i) || !(bodies_.inv_mass[i] > 0.0)) continue;
    const Mat3 inertia = bodies_.inv_inertia_local[i].inverse();
    out.emplace_back(bodies_.id[i],
                     HapticToolFacts{1.0 / bodies_.inv_mass[i], inertia.diagonal().minCoeff()});
  }
  return out;
}

}  // namespace ligature
