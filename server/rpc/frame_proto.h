#pragma once
// Engine frames and world summaries -> ligature.v1 messages, and frames back (for gateways,
// which serve the frames another server published).

#include "absl/container/flat_hash_set.h"
#include "ligature/v1/frame.pb.h"
#include "ligature/v1/world_service.pb.h"
#include "server/world/frame.h"
#include "server/host/world_host.h"

namespace ligature {

// `only` empty: every body; otherwise just those ids.
void FrameToProto(const Frame& frame, const absl::flat_hash_set<std::string>& only,
                  v1::Frame* out);
v1::World WorldInfoToProto(const WorldInfo& info);

// The engine frame a whole-frame message was made of: FrameToProto of it gives `message`
// back, field for field. Values are taken as they are (a frame is never stepped from).
Frame FrameFromProto(const v1::Frame& message);

}  // namespace ligature
