#pragma once
// What must hold of a world after every operation a fuzzer applies: each number of its
// frame is finite, and its frame, summary and exported scene agree on its content. A
// broken invariant aborts, so that the fuzzer records the input.

#include "server/world/world.h"

namespace ligature::fuzz {

// Aborts with `what` when `ok` is false.
void Require(bool ok, const char* what, const std::string& detail = "");

// The frame is finite and lists each body once, as many as the world holds, and the
// exported scene holds the same bodies and constraints.
void CheckWorld(const World& world);

// The exported scene is accepted again as a scene (what ExportScene promises).
void CheckExportRoundTrip(const World& world);

}  // namespace ligature::fuzz
