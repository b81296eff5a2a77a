#pragma once
// Our engine's side of the rigid benchmarks: a World built from a SceneDesc, whose notes
// summarize the solver's figures (StepStats) over the timed steps.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/world/events.h"
#include "server/world/scene_desc.h"
#include "tests/bench/registry.h"

namespace ligature::bench {

// The solver's short name for labels and notes: "tunable" or "gauss-seidel".
std::string SolverName(SolverKind kind);

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeLigatureScene(const SceneDesc& scene);
// The same, the world reporting `events` and each step taking them, as a host with a
// reader does; the notes then give the events per step.
absl::StatusOr<std::unique_ptr<SteppedScene>> MakeReportingScene(const SceneDesc& scene,
                                                                const EventReporting& events);

}  // namespace ligature::bench
