#pragma once
// Haptic tools: a session's channel drives a dynamic rigid body through a virtual
// coupling. Not a solve coupling: the averaged coupling forces act on the tools before
// their free motion, and each tool's local model (its state, the contact planes and soft
// buffers within its reach) is published after the step.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "server/haptics/tool_channel.h"
#include "server/world/frame.h"
#include "server/world/step_context.h"
#include "server/world/world_view.h"

namespace ligature {

class HapticToolCoupling {
 public:
  // Attaches `channel` to rigid body `body_id`: FAILED_PRECONDITION when another session
  // holds the tool or the body is not a dynamic rigid body (`is_other_body`: a body of
  // another kind has that id), NOT_FOUND (naming `world_name`) when there is no such body.
  absl::Status Attach(const WorldView& w, const std::string& world_name, bool is_other_body,
                      const std::string& body_id,
                      std::shared_ptr<haptics::ToolChannel> channel);
  // Releases the tool if `channel` still holds it.
  void Detach(const std::string& body_id, const haptics::ToolChannel* channel);
  // Before the free motion: each tool's averaged coupling force joins ctx.force, its torque
  // changes its angular velocity.
  void ApplyCouplingForces(const WorldView& w, StepContext& ctx);
  // After the step (or an edit of a paused world): every tool's local model for tick
  // `tick`; a tool whose body is gone gets a last model saying so and is released.
  void PublishModels(const WorldView& w, const StepContext& ctx, uint64_t tick,
                     double sim_time);
  // The bodies sessions drive.
  std::vector<std::string> BodyIds() const;
  // The tools' coupling as their sessions display it, sorted by body id.
  void AddToFrame(Frame* frame) const;

 private:
  // Body id -> the channel of the session driving it.
  absl::flat_hash_map<std::string, std::shared_ptr<haptics::ToolChannel>> tools_;
};

}  // namespace ligature
