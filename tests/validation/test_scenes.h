#pragma once
// Small scene builders shared by the validation tests.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/world/world.h"

namespace ligature::testing {

inline BodyDesc MakeBody(const std::string& id, const Shape& shape, const Vec3& position,
                         BodyKind kind = BodyKind::kDynamic) {
  BodyDesc b;
  b.id = id;
  b.kind = kind;
  b.rigid()->shape = shape;
  b.rigid()->pose.position = position;
  return b;
}

inline std::unique_ptr<World> MakeWorld(const SceneDesc& scene) {
  auto world = World::FromScene("worlds/test", scene, WorldLimits{});
  if (!world.ok()) std::abort();
  return std::move(*world);
}

// A built-in scene (server/scenes) as a description; an empty scene, and a test failure,
// when it does not load.
inline SceneDesc BuiltinScene(const std::string& name) {
  absl::StatusOr<v1::Scene> proto = LoadBuiltinScene(name);
  EXPECT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<SceneDesc> scene = SceneFromProto(proto.ok() ? *proto : v1::Scene());
  EXPECT_TRUE(scene.ok()) << scene.status();
  return scene.ok() ? *std::move(scene) : SceneDesc();
}

inline Vec3 PositionOf(const World& w, const std::string& id) {
  return w.GetBody(id)->rigid()->pose.position;
}

inline Vec3 VelocityOf(const World& w, const std::string& id) {
  return w.GetBody(id)->rigid()->linear_velocity;
}

// The mean acceleration (m/s^2) of body `id` along the unit `direction` over `steps` steps,
// after `settle` steps that let its contacts settle.
inline double AccelerationAlong(World& world, const std::string& id, const Vec3& direction,
                                int settle, int steps) {
  for (int i = 0; i < settle; ++i) world.Step();
  const double v0 = VelocityOf(world, id).dot(direction);
  const double t0 = world.sim_time();
  for (int i = 0; i < steps; ++i) world.Step();
  return (VelocityOf(world, id).dot(direction) - v0) / (world.sim_time() - t0);
}

// A box on an incline tilted by `angle` about Z (sliding towards -x turned by it), with
// Coulomb coefficient `mu`, slides at g (sin - mu cos) under the default gravity (within
// 2 % over 400 steps, after 20 that settle its contacts), and does not tumble.
inline void ExpectCoulombSlide(World& world, const std::string& id, double angle, double mu) {
  const Vec3 down_slope = Quat(Eigen::AngleAxisd(angle, Vec3::UnitZ())) * Vec3(-1, 0, 0);
  const double expected = 9.81 * (std::sin(angle) - mu * std::cos(angle));
  EXPECT_NEAR(AccelerationAlong(world, id, down_slope, 20, 400), expected, 0.02 * expected);
  EXPECT_LT(world.GetBody(id)->rigid()->angular_velocity.norm(), 1e-2);
}

// The name of a test run under each solver.
inline std::string SolverName(SolverKind kind) {
  return kind == SolverKind::kGaussSeidel ? "gauss_seidel" : "tunable";
}

// The name of a test run with each soft model.
inline std::string SoftModelName(SoftModelKind model) {
  switch (model) {
    case SoftModelKind::kCorotational: return "Corotational";
    case SoftModelKind::kStVK: return "StVK";
    case SoftModelKind::kMassPoint: return "MassPoint";
  }
  return "Unknown";
}

// A soft box of half extents `half` centred at `centre`, `cells` per axis,
// 1000 kg/m^3, Poisson ratio 0.3, with Rayleigh damping alpha `damping` and beta
// `stiffness_damping`.
inline BodyDesc SoftFemBox(const std::string& id, const Vec3& half, const Vec3& centre,
                           std::array<int, 3> cells, SoftModelKind model, double young,
                           double damping, double stiffness_damping = 0.0) {
  BodyDesc d;
  d.id = id;
  SoftBodyDesc soft;
  soft.mesh = MakeBoxMesh(half, cells[0], cells[1], cells[2]);
  for (Vec3& v : soft.mesh.vertices) v += centre;
  soft.model = model;  // a mass-point box keeps that model's default stiffness, undamped
  soft.mass_point.density = 1000.0;
  soft.fem.young = young;
  soft.fem.poisson = 0.3;
  soft.fem.density = 1000.0;
  soft.fem.mass_damping = damping;
  soft.fem.stiffness_damping = stiffness_damping;
  d.body = soft;
  return d;
}

// The vertical impulse (N s) of the last step's contacts between bodies a and b (either
// order).
inline double VerticalImpulse(const World& world, const std::string& a, const std::string& b) {
  double sum = 0.0;
  for (const World::ContactReport& c : world.LastContacts()) {
    if ((c.a == a && c.b == b) || (c.a == b && c.b == a)) sum += std::abs(c.impulse.y());
  }
  return sum;
}

// A soft body's mass and linear momentum (its lumped masses).
inline double SoftMass(const World& world, const std::string& id) {
  double mass = 0.0;
  for (const double m : world.soft_bodies().FindBody(id)->masses()) mass += m;
  return mass;
}
inline Vec3 SoftMomentum(const World& world, const std::string& id) {
  const SoftWorld::Body& body = *world.soft_bodies().FindBody(id);
  Vec3 p = Vec3::Zero();
  for (size_t v = 0; v < body.velocities().size(); ++v) {
    p += body.masses()[v] * body.velocities()[v];
  }
  return p;
}

// A chain of `links` capsule links (0.1 m long, 2 cm radius, 1000 kg/m^3) ball-jointed end
// to end, hanging from a fixed point 3 m up, and optionally a 10 cm cube of mass `load` (kg)
// hanging from its last link.
struct HangingChain {
  static constexpr double kLink = 0.1;  // m
  static inline const Vec3 kPivot = Vec3(0.0, 3.0, 0.0);
  int links = 20;
  double load = 0.0;

  static std::string Link(int i) { return "link" + std::to_string(i); }
  // A link's mass: a 6 cm cylinder and two hemispheres of 2 cm radius.
  static double LinkMass() {
    const double r = 0.02;
    return 1000.0 * std::numbers::pi * r * r * (kLink - 2.0 * r + 4.0 / 3.0 * r);
  }
  void AddTo(SceneDesc* scene) const {
    for (int i = 0; i < links; ++i) {
      scene->bodies.push_back(MakeBody(Link(i), Shape::Capsule(0.02, 0.5 * kLink - 0.02),
                                       kPivot - Vec3(0, kLink * (i + 0.5), 0)));
      Join(scene, Link(i), i == 0 ? "" : Link(i - 1), Vec3(0, 0.5 * kLink, 0));
    }
    if (load <= 0.0) return;
    BodyDesc box = MakeBody("load", Shape::Box(Vec3::Constant(0.05)),
                            kPivot - Vec3(0, kLink * links + 0.05, 0));
    box.rigid()->material.mass = load;
    scene->bodies.push_back(box);
    Join(scene, "load", Link(links - 1), Vec3(0, 0.05, 0));
  }
  // Body `a`'s point `top` (its frame) held to the bottom end of link `b` (to the pivot
  // when b is empty).
  static void Join(SceneDesc* scene, const std::string& a, const std::string& b, const Vec3& top) {
    ConstraintDesc c;
    c.id = "joint-" + a;
    c.body_a = a;
    c.frame_a.position = top;
    c.body_b = b;
    c.frame_b.position = b.empty() ? kPivot : Vec3(0, -0.5 * kLink, 0);
    scene->constraints.push_back(c);
  }
  // Each joint's gap (m), from the pivot down to the load.
  std::vector<double> Gaps(const World& world) const {
    std::vector<double> gaps;
    for (int i = 0; i < links; ++i) gaps.push_back((Top(world, i) - Bottom(world, i - 1)).norm());
    if (load > 0.0) {
      const Vec3 top = world.GetBody("load")->rigid()->pose.Apply(Vec3(0, 0.05, 0));
      gaps.push_back((top - Bottom(world, links - 1)).norm());
    }
    return gaps;
  }
  static Vec3 Top(const World& world, int i) {
    return world.GetBody(Link(i))->rigid()->pose.Apply(Vec3(0, 0.5 * kLink, 0));
  }
  static Vec3 Bottom(const World& world, int i) {
    if (i < 0) return kPivot;
    return world.GetBody(Link(i))->rigid()->pose.Apply(Vec3(0, -0.5 * kLink, 0));
  }
};

}  // namespace ligature::testing
