#pragma once
// One-line renderings of worlds and bodies for the `ligature` tool.

#include <string>

#include "ligature/v1/scene.pb.h"
#include "ligature/v1/world_service.pb.h"

namespace ligature::client::cli {

// e.g. "worlds/demo running tick=120 t=2.000s rate=60Hz bodies=3 constraints=0
// missed=0 overruns=0 last_step=0.153ms"
std::string FormatWorldLine(const ligature::v1::World& world);

// e.g. "worlds/demo/bodies/ball dynamic p=(0.000,1.000,0.000) q=(0.000,0.000,0.000,1.000)
// v=(0.000,0.000,0.000) w=(0.000,0.000,0.000)"
std::string FormatBodyLine(const ligature::v1::Body& body);

}  // namespace ligature::client::cli
