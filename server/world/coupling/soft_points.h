#pragma once
// The solver points on soft bodies that the soft-rigid, soft-soft and rod-soft couplings
// share (StepContext::soft_points): numbered body by body, so that each body's points form
// one run, with one compliance group per body whose implicit system couples them.

#include <cstdint>
#include <vector>

#include "server/world/step_context.h"
#include "server/world/world_view.h"

namespace ligature {

// Renumbers the points body by body (a stable sort). Returns each old point's new index,
// or nothing when they were in order already (the couplings then keep their numbers).
std::vector<uint32_t> GroupSoftPoints(std::vector<SoftPoint>* points);

// The points' compliance: one coupled group per corotational body whose implicit system
// can give it, the lumped h^2 / m of each point otherwise.
void AddSoftPointCompliance(const WorldView& w, StepContext& ctx);

// Each soft body takes the solved forces on its points (ctx.soft_point_forces), through
// its implicit system when its points were coupled.
void ApplySoftPointForces(const WorldView& w, StepContext& ctx);

}  // namespace ligature
