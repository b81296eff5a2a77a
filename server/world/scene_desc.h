#pragma once
// Domain description of a world's settings and content (the engine-side twin of
// ligature.v1.Scene).

#include <optional>
#include <string>
#include <vector>

#include "server/model/rigid/body_desc.h"

namespace ligature {

enum class SolverKind : uint8_t { kGaussSeidel = 0 };

struct SolverSettings {
  SolverKind kind = SolverKind::kGaussSeidel;
  int max_iterations = 20;
  double tolerance = 1e-7;  // m
  bool warm_start = true;
};

struct WorldSettings {
  double rate_hz = 60.0;
  Vec3 gravity = Vec3(0.0, -9.81, 0.0);
  bool paused = false;
  SolverSettings solver;
  double contact_margin = 0.02;  // m

  double dt() const { return 1.0 / rate_hz; }
};

// A point of body A held to a point of body B (or the world when body_b is empty).
struct PointConstraintDesc {
  std::string body_a;
  Vec3 anchor_a = Vec3::Zero();  // local to A
  std::string body_b;            // empty: world
  Vec3 anchor_b = Vec3::Zero();  // local to B, or world point
};

struct ConstraintDesc {
  std::string id;
  PointConstraintDesc point;
};

struct SceneDesc {
  WorldSettings settings;
  std::vector<BodyDesc> bodies;
  std::vector<ConstraintDesc> constraints;
};

}  // namespace ligature
