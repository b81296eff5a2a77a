#pragma once
// Built-in scenes made by code, where a scene file would be too large to write by hand:
// Gissler's hanging cubes (tetrahedralized cubes in columns, the top of each column nailed,
// each cube linked to the next by points-to-point constraints).

#include <optional>
#include <string>
#include <vector>

#include "ligature/v1/scene.pb.h"

namespace ligature {

// Names of the generated scenes, sorted.
std::vector<std::string> GeneratedSceneNames();

// The scene of that name, or nothing for a name that is not a generated scene.
std::optional<v1::Scene> GenerateScene(const std::string& name);

}  // namespace ligature
