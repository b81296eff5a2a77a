#include "server/snapshot/world_snapshot.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

using ::testing::HasSubstr;

std::unique_ptr<World> WorldOf(const v1::Scene& scene, const std::string& name = "w") {
  absl::StatusOr<SceneDesc> desc = SceneFromProto(scene);
  EXPECT_TRUE(desc.ok()) << desc.status();
  absl::StatusOr<std::unique_ptr<World>> world = World::FromScene(name, *desc, WorldLimits{});
  EXPECT_TRUE(world.ok()) << world.status();
  return std::move(*world);
}

v1::Scene Builtin(const std::string& name) {
  absl::StatusOr<v1::Scene> scene = LoadBuiltinScene(name);
  EXPECT_TRUE(scene.ok()) << scene.status();
  return *scene;
}

std::unique_ptr<World> Restored(const World& world, const std::string& name = "copy") {
  absl::StatusOr<std::unique_ptr<World>> restored =
      WorldFromSnapshotBytes(SerializeSnapshot(world), name, WorldLimits{});
  EXPECT_TRUE(restored.ok()) << restored.status();
  return std::move(*restored);
}

// The changing state both worlds must agree on, bit for bit (doubles compared with ==).
void ExpectSameState(const World& a, const World& b) {
  ASSERT_EQ(a.tick(), b.tick());
  EXPECT_EQ(a.sim_time(), b.sim_time());
  ASSERT_EQ(a.bodies().size(), b.bodies().size());
  for (int i = 0; i < a.bodies().size(); ++i) {
    EXPECT_EQ(a.bodies().position[i], b.bodies().position[i]) << a.bodies().id[i];
    EXPECT_EQ(a.bodies().orientation[i].coeffs(), b.bodies().orientation[i].coeffs());
    EXPECT_EQ(a.bodies().linear_velocity[i], b.bodies().linear_velocity[i]);
    EXPECT_EQ(a.bodies().angular_velocity[i], b.bodies().angular_velocity[i]);
  }
  ASSERT_EQ(a.rods().rods().size(), b.rods().rods().size());
  for (size_t r = 0; r < a.rods().rods().size(); ++r) {
    const RodState& x = a.rods().rods()[r].state;
    const RodState& y = b.rods().rods()[r].state;
    EXPECT_EQ(x.x, y.x);
    EXPECT_EQ(x.theta, y.theta);
    EXPECT_EQ(x.v, y.v);
    EXPECT_EQ(x.omega, y.omega);
  }
  ASSERT_EQ(a.rods().constraints().size(), b.rods().constraints().size());
  for (size_t c = 0; c < a.rods().constraints().size(); ++c) {
    EXPECT_EQ(a.rods().constraints()[c].u_a, b.rods().constraints()[c].u_a);
    EXPECT_EQ(a.rods().constraints()[c].u_b, b.rods().constraints()[c].u_b);
    EXPECT_EQ(a.rods().constraints()[c].active, b.rods().constraints()[c].active);
    EXPECT_EQ(a.rods().constraints()[c].released, b.rods().constraints()[c].released);
  }
  ASSERT_EQ(a.rods().pearls().size(), b.rods().pearls().size());
  for (size_t p = 0; p < a.rods().pearls().size(); ++p) {
    EXPECT_EQ(a.rods().pearls()[p].u, b.rods().pearls()[p].u);
    EXPECT_EQ(a.rods().pearls()[p].speed, b.rods().pearls()[p].speed);
  }
  ASSERT_EQ(a.soft_bodies().bodies().size(), b.soft_bodies().bodies().size());
  for (size_t s = 0; s < a.soft_bodies().bodies().size(); ++s) {
    const SoftWorld::Body& x = a.soft_bodies().bodies()[s];
    const SoftWorld::Body& y = b.soft_bodies().bodies()[s];
    EXPECT_EQ(x.positions(), y.positions());
    EXPECT_EQ(x.fem_state.v, y.fem_state.v);
    EXPECT_EQ(x.fem_state.dv, y.fem_state.dv);
    EXPECT_EQ(x.mass_point_state.v, y.mass_point_state.v);
    EXPECT_EQ(x.mass_point_state.x_prev, y.mass_point_state.x_prev);
    EXPECT_EQ(x.damage, y.damage);
    EXPECT_EQ(x.topology_version, y.topology_version);
    EXPECT_EQ(x.desc.mesh.tets, y.desc.mesh.tets);
  }
  ASSERT_EQ(a.soft_bodies().constraints().size(), b.soft_bodies().constraints().size());
  for (const SoftConstraintDesc& c : a.soft_bodies().constraints()) {
    EXPECT_EQ(a.soft_bodies().ConstraintEnabled(c.id), b.soft_bodies().ConstraintEnabled(c.id))
        << c.id;
  }
  ASSERT_EQ(a.strands().strands().size(), b.strands().strands().size());
  for (size_t s = 0; s < a.strands().strands().size(); ++s) {
    const StrandWorld::Strand& x = a.strands().strands()[s];
    const StrandWorld::Strand& y = b.strands().strands()[s];
    for (size_t i = 0; i < x.sim.state().q.size(); ++i) {
      EXPECT_EQ(x.sim.state().q[i].coeffs(), y.sim.state().q[i].coeffs());
    }
    EXPECT_EQ(x.sim.state().w, y.sim.state().w);
    EXPECT_EQ(x.points, y.points);
  }
  // Everything the snapshot holds, warm-start data included (the names may differ).
  v1::WorldSnapshot sa = CaptureSnapshot(a);
  v1::WorldSnapshot sb = CaptureSnapshot(b);
  sa.clear_world_id();
  sb.clear_world_id();
  EXPECT_TRUE(sa.SerializeAsString() == sb.SerializeAsString());
}

// ---- Each body kind on its own -------------------------------------------------------

class SnapshotRoundTrip : public ::testing::TestWithParam<const char*> {};

// Stepped a while, snapshot, restored: the copy holds the same state and steps the same.
TEST_P(SnapshotRoundTrip, RestoredWorldStepsBitIdentically) {
  auto world = WorldOf(Builtin(GetParam()));
  // Long enough for the rigid bodies to land, so contacts and their warm starts exist.
  for (int i = 0; i < 60; ++i) world->Step();
  auto copy = Restored(*world);
  EXPECT_EQ(copy->name(), "copy");
  ExpectSameState(*world, *copy);
  for (int i = 0; i < 15; ++i) {
    world->Step();
    copy->Step();
  }
  ExpectSameState(*world, *copy);
}

// A world whose piles sleep (sleeping on, stepped until they do): the copy has the same
// sleepers with the same rest times, and they hold and wake the same way.
TEST(WorldSnapshot, SleepersStaySleepingAndWakeTheSame) {
  v1::Scene scene = Builtin("default");
  scene.mutable_settings()->mutable_sleep()->set_enabled(true);
  auto world = WorldOf(scene);
  for (int i = 0; i < 600 && world->last_stats().sleeping_bodies == 0; ++i) world->Step();
  ASSERT_GT(world->last_stats().sleeping_bodies, 0);
  auto copy = Restored(*world);
  ExpectSameState(*world, *copy);
  EXPECT_EQ(world->bodies().sleep_island, copy->bodies().sleep_island);
  EXPECT_EQ(world->bodies().rest_time, copy->bodies().rest_time);
  for (World* w : {world.get(), copy.get()}) {
    for (int i = 0; i < 30; ++i) w->Step();
  }
  ExpectSameState(*world, *copy);
  EXPECT_EQ(world->bodies().sleep_island, copy->bodies().sleep_island);
}

// default: rigid spheres, boxes and a ball chain; bow: rods with a keyhole; necklace:
// pearls and a fusion; tissue: a soft body; braid: strands following a head.
INSTANTIATE_TEST_SUITE_P(BodyKinds, SnapshotRoundTrip,
                         ::testing::Values("default", "bow", "necklace", "tissue", "braid"));

// A heavy cable draped over a box on the floor (Gauss-Seidel): its contacts with the box go
// through the world's solve, warm-started from tick to tick; a restored copy carries those
// warm starts and steps on bit for bit.
TEST(WorldSnapshot, RodContactsThroughTheSolveStepBitIdentically) {
  absl::StatusOr<v1::Scene> scene = ParseScene(R"pb(
    bodies {
      id: "floor"
      kind: BODY_KIND_STATIC
      shape { box { half_extents { x: 2 y: 0.05 z: 2 } } }
      pose { position { y: -0.05 } }
    }
    bodies {
      id: "box"
      shape { box { half_extents { x: 0.2 y: 0.2 z: 0.2 } } }
      pose { position { y: 0.2 } }
    }
    bodies {
      id: "cable"
      rod {
        points { x: -0.5 y: 0.42 } points { x: 0.5 y: 0.42 }
        control_points: 30
        material { radius: 0.01 density: 8000 young_modulus: 1e7 }
      }
    }
  )pb", "cable.textproto");
  ASSERT_TRUE(scene.ok()) << scene.status();
  scene->mutable_settings()->set_rate_hz(200);
  auto world = WorldOf(*scene);
  for (int i = 0; i < 100; ++i) world->Step();
  bool through_solve = false;
  for (const World::ContactReport& c : world->LastContacts()) through_solve |= c.a == "cable";
  ASSERT_TRUE(through_solve);
  EXPECT_GT(CaptureSnapshot(*world).state().rod_contact_cache_size(), 0);
  auto copy = Restored(*world);
  ExpectSameState(*world, *copy);
  for (int i = 0; i < 15; ++i) {
    world->Step();
    copy->Step();
  }
  ExpectSameState(*world, *copy);
}

// ---- Everything at once, with a cut and driven bodies ----------------------------------

// Necklace (pearls), bow (keyhole, its hand renamed), braid (strands on a head over a
// ground plane), a pile of boxes on that ground, the ligament with its scalpel, 1 m to
// the side and 1 m above the ground, and a rope dropped across a taut rope (rod-rod
// contact), 2 m to the other side.
v1::Scene MixedScene() {
  v1::Scene scene = Builtin("necklace");
  for (const EmbeddedScene& e : EmbeddedScenes()) {
    std::string text;
    if (std::string(e.file) == "bow.textproto") {
      text = absl::StrReplaceAll(e.text, {{"\"hand\"", "\"bow_hand\""}});
    } else if (std::string(e.file) == "braid.textproto") {
      text = e.text;
    } else {
      continue;
    }
    absl::StatusOr<v1::Scene> part = ParseScene(text, e.file);
    EXPECT_TRUE(part.ok()) << part.status();
    for (const v1::Body& b : part->bodies()) *scene.add_bodies() = b;
    for (const v1::Constraint& c : part->constraints()) *scene.add_constraints() = c;
  }
  absl::StatusOr<v1::Scene> extra = ParseScene(R"pb(
    bodies {
      id: "ligament"
      pose { position { x: 1 y: 1 } }
      soft {
        box { half_extents { x: 0.04 y: 0.005 z: 0.01 } cells_x: 8 cells_y: 1 cells_z: 2 }
        model: SOFT_MODEL_COROTATIONAL_FEM
        density: 1000 young_modulus: 300000 poisson_ratio: 0.3 damping: 2
        fixed_vertices: [0, 9, 18, 27, 36, 45, 8, 17, 26, 35, 44, 53]
        cutting { toughness: 2000 either_stress: true }
      }
    }
    bodies {
      id: "scalpel"
      kind: BODY_KIND_KINEMATIC
      shape { box { half_extents { x: 0.0005 y: 0.02 z: 0.0005 } } }
      pose { position { x: 1 y: 1.027 z: -0.005 } }
      scalpel { tip { y: -0.02 } cut_depth: 0.015 contact_distance: 0.002 }
    }
    bodies { id: "box-0" shape { box { half_extents { x: 0.1 y: 0.1 z: 0.1 } } }
             pose { position { x: 2 y: 0.1 z: 0 } } }
    bodies { id: "box-1" shape { box { half_extents { x: 0.1 y: 0.1 z: 0.1 } } }
             pose { position { x: 2.05 y: 0.31 z: 0 } } }
    bodies { id: "box-2" shape { box { half_extents { x: 0.1 y: 0.1 z: 0.1 } } }
             pose { position { x: 1.97 y: 0.52 z: 0.03 } } }
    bodies { id: "ball-0" shape { sphere { radius: 0.1 } }
             pose { position { x: 2.1 y: 0.8 z: 0 } } }
    bodies {
      id: "taut"
      rod {
        points { x: -2.501 y: 0.5 } points { x: -1.499 y: 0.5 }
        rest_points { x: -2.5 y: 0.5 } rest_points { x: -1.5 y: 0.5 }
        control_points: 40
        material { radius: 0.001 density: 1000 young_modulus: 1e9 damping: 5 }
        rod_contact: true
      }
    }
    bodies {
      id: "drop"
      rod {
        points { x: -1.99 y: 0.53 z: -0.3 } points { x: -1.99 y: 0.53 z: 0.3 }
        control_points: 30
        material { radius: 0.001 density: 1000 young_modulus: 1e9 damping: 5 }
        rod_contact: true
      }
    }
    constraints {
      id: "taut_left"
      rod { kind: ROD_CONSTRAINT_KIND_POSITION a { body: "taut" u: 0 }
            target { x: -2.501 y: 0.5 } }
    }
    constraints {
      id: "taut_right"
      rod { kind: ROD_CONSTRAINT_KIND_POSITION a { body: "taut" u: 1 }
            target { x: -1.499 y: 0.5 } }
    }
  )pb", "mixed.textproto");
  EXPECT_TRUE(extra.ok()) << extra.status();
  for (const v1::Body& b : extra->bodies()) *scene.add_bodies() = b;
  for (const v1::Constraint& c : extra->constraints()) *scene.add_constraints() = c;
  scene.mutable_settings()->set_rate_hz(200);
  return scene;
}

// The scalpel's pose at tick `t`: held above, pressed in, drawn across the ligament's
// width (where it cuts), then lifted. Both worlds get the same poses at the same ticks.
Transform ScalpelAt(uint64_t t) {
  const double top = 1.0 + 0.005 + 0.02;
  const Vec3 above(1, top + 0.002, -0.005);
  const Vec3 pressed(1, top - 0.003, -0.005);
  const Vec3 across(1, top - 0.003, 0.014);
  auto lerp = [](const Vec3& a, const Vec3& b, double s) { return a + (b - a) * s; };
  Vec3 at = above;
  if (t >= 20 && t < 60) at = lerp(above, pressed, (t - 20) / 40.0);
  if (t >= 60 && t < 200) at = lerp(pressed, across, (t - 60) / 140.0);
  if (t >= 200) at = lerp(across, across + Vec3(0, 0.03, 0), std::min(1.0, (t - 200) / 40.0));
  return Transform{at, Quat::Identity()};
}

void DriveAndStep(World* w) {
  ASSERT_TRUE(w->SetDeviceTarget("scalpel", ScalpelAt(w->tick())).ok());
  w->Step();
}

// The mixed world under each rigid solver, switched as UpdateWorld does (no time budget:
// a budget would make the solve depend on the clock).
class MixedSnapshot : public ::testing::TestWithParam<SolverKind> {};

TEST_P(MixedSnapshot, AfterACutWithRodsInContactStepsBitIdentically) {
  auto world = WorldOf(MixedScene());
  WorldSettings settings = world->settings();
  settings.solver.kind = GetParam();
  settings.solver.time_budget_us = 0.0;
  world->SetSettings(settings);
  // Step until the blade has cut, then a few ticks more: the snapshot holds a cut mesh, a
  // live stroke and a driven scalpel.
  int cuts = 0;
  while (cuts == 0 && world->tick() < 240) {
    DriveAndStep(world.get());
    cuts += static_cast<int>(world->MakeFrame().cuts.size());
  }
  ASSERT_GT(cuts, 0) << "the scalpel never cut";
  for (int i = 0; i < 5; ++i) DriveAndStep(world.get());
  ASSERT_GT(world->soft_bodies().FindBody("ligament")->topology_version, 0u);
  // The dropped rope lies on the taut one: the snapshot is taken with rod-rod contacts.
  ASSERT_GT(world->rods().last_stats().rod_contacts, 0);
  // A queued device pose is part of the state too.
  ASSERT_TRUE(world->SetDeviceTarget("scalpel", ScalpelAt(world->tick())).ok());

  auto copy = Restored(*world);
  ExpectSameState(*world, *copy);
  world->Step();
  copy->Step();
  for (int i = 0; i < 80; ++i) {
    DriveAndStep(world.get());
    DriveAndStep(copy.get());
  }
  for (const SoftWorld::Body& b : world->soft_bodies().bodies()) {
    for (const Vec3& x : b.positions()) ASSERT_TRUE(x.allFinite());
  }
  ExpectSameState(*world, *copy);
  EXPECT_GT(copy->rods().last_stats().rod_contacts, 0);
}

INSTANTIATE_TEST_SUITE_P(Solvers, MixedSnapshot,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp));

// The tunable solver mid-pile: the default scene's spheres, boxes and chain falling onto
// each other, with contacts and warm starts changing from tick to tick.
TEST(WorldSnapshot, TunableSolverMidPileStepsBitIdentically) {
  auto world = WorldOf(Builtin("default"));
  WorldSettings settings = world->settings();
  settings.solver.kind = SolverKind::kTunableLcp;
  settings.solver.time_budget_us = 0.0;
  world->SetSettings(settings);
  for (int i = 0; i < 45; ++i) world->Step();
  ASSERT_GT(world->last_stats().contacts, 10);
  auto copy = Restored(*world);
  EXPECT_EQ(copy->settings().solver.kind, SolverKind::kTunableLcp);
  ExpectSameState(*world, *copy);
  for (int i = 0; i < 30; ++i) {
    world->Step();
    copy->Step();
  }
  ExpectSameState(*world, *copy);
}

// ---- Soft-body constraints' runtime state ----------------------------------------------

// A mass-point cube (3x3x3 vertices) with two nails: "assemble" pulls its top centre
// vertex 10 cm up over 40 steps (self-assembly), "corner" holds a bottom corner where it is.
std::unique_ptr<World> NailedCube() {
  absl::StatusOr<v1::Scene> scene = ParseScene(R"pb(
    settings { rate_hz: 200 }
    bodies {
      id: "cube"
      pose { position { y: 1 } }
      soft {
        box { half_extents { x: 0.05 y: 0.05 z: 0.05 } cells_x: 2 cells_y: 2 cells_z: 2 }
        model: SOFT_MODEL_MASS_POINT
        integrator: SOFT_INTEGRATOR_IMPLICIT_EULER
        density: 500 distance_stiffness: 50 volume_stiffness: 20 damping: 0.5
      }
    }
    constraints {
      id: "assemble"
      soft { kind: SOFT_CONSTRAINT_KIND_NAIL body: "cube" vertices: 16
             goal { x: 0.02 y: 1.15 z: 0 } self_assembly_steps: 40 }
    }
    constraints {
      id: "corner"
      soft { kind: SOFT_CONSTRAINT_KIND_NAIL body: "cube" vertices: 0
             goal { x: -0.05 y: 0.95 z: -0.05 } }
    }
  )pb", "cube.textproto");
  EXPECT_TRUE(scene.ok()) << scene.status();
  return WorldOf(*scene);
}

// Restored, then both stepped: every double of the two worlds agrees. The cube is still
// moving and never needed recovering (a recovered step leaves both worlds at rest alike).
// A copy restored from `world`'s snapshot is in the same state, and both stay so over
// `ticks` steps (none rolled back).
void ExpectCopyStepsTheSame(World* world, int ticks) {
  auto copy = Restored(*world);
  ExpectSameState(*world, *copy);
  for (int i = 0; i < ticks; ++i) {
    world->Step();
    copy->Step();
    ASSERT_EQ(world->last_stats().recovered_bodies, 0);
  }
  ExpectSameState(*world, *copy);
}

void ExpectRestoredStepsTheSame(World* world, int ticks) {
  ExpectCopyStepsTheSame(world, ticks);
  double fastest = 0.0;
  for (const Vec3& v : world->soft_bodies().FindBody("cube")->mass_point_state.v) {
    fastest = std::max(fastest, v.norm());
  }
  EXPECT_GT(fastest, 1e-3);
}

// Shapes made from mesh assets: a floor mesh and a dropped hull (a tetrahedron's vertices
// scaled). The snapshot carries each asset once, and the world restores from it alone (no
// store) and steps bit-identically.
TEST(WorldSnapshot, MeshAssetsTravelWithTheSnapshot) {
  v1::TriangleMesh floor;
  for (const auto& [x, z] : {std::pair(-5.0, -5.0), std::pair(-5.0, 5.0), std::pair(5.0, 5.0),
                             std::pair(5.0, -5.0)}) {
    v1::Vec3* v = floor.add_vertices();
    v->set_x(x);
    v->set_z(z);
  }
  for (const uint32_t i : {0u, 1u, 2u, 0u, 2u, 3u}) floor.add_indices(i);
  v1::TriangleMesh tet;
  for (const auto& [x, y, z] : {std::tuple(0.0, 0.0, 0.0), std::tuple(1.0, 0.0, 0.0),
                                std::tuple(0.0, 1.0, 0.0), std::tuple(0.0, 0.0, 1.0)}) {
    v1::Vec3* v = tet.add_vertices();
    v->set_x(x);
    v->set_y(y);
    v->set_z(z);
  }
  for (const uint32_t i : {0u, 2u, 1u, 0u, 1u, 3u, 0u, 3u, 2u, 1u, 2u, 3u}) tet.add_indices(i);
  std::map<std::string, std::shared_ptr<const MeshAsset>> store;
  store["assets/floor"] = *MeshAssetFromProto(floor, "assets/floor", "floor");
  store["assets/tet"] = *MeshAssetFromProto(tet, "assets/tet", "tet");
  const MeshAssetLookup lookup = [&store](const std::string& name) { return store.at(name); };

  v1::Scene scene;
  v1::Body* ground = scene.add_bodies();
  ground->set_id("floor");
  ground->set_kind(v1::BODY_KIND_STATIC);
  ground->mutable_shape()->mutable_mesh_asset()->set_asset("assets/floor");
  for (const char* id : {"a", "b"}) {
    v1::Body* body = scene.add_bodies();
    body->set_id(id);
    v1::MeshAssetShape* hull = body->mutable_shape()->mutable_mesh_asset();
    hull->set_asset("assets/tet");
    hull->set_as_hull(true);
    hull->mutable_scale()->set_x(0.2);
    hull->mutable_scale()->set_y(0.3);
    hull->mutable_scale()->set_z(0.2);
    body->mutable_pose()->mutable_position()->set_x(id[0] == 'a' ? 0.0 : 1.0);
    body->mutable_pose()->mutable_position()->set_y(0.4);
  }
  absl::StatusOr<SceneDesc> desc = SceneFromProto(scene, lookup);
  ASSERT_TRUE(desc.ok()) << desc.status();
  auto world = *World::FromScene("w", *desc, WorldLimits{});
  for (int i = 0; i < 10; ++i) world->Step();  // falling, not yet landed

  const v1::WorldSnapshot snapshot = CaptureSnapshot(*world);
  ASSERT_EQ(snapshot.assets_size(), 2);
  EXPECT_EQ(snapshot.assets(0).name(), "assets/floor");
  EXPECT_EQ(snapshot.assets(1).name(), "assets/tet");
  EXPECT_EQ(snapshot.assets(1).mesh().vertices_size(), 4);
  EXPECT_EQ(snapshot.scene().bodies(1).shape().mesh_asset().asset(), "assets/tet");
  EXPECT_EQ(snapshot.scene().bodies(1).shape().mesh_asset().scale().y(), 0.3);
  auto copy = Restored(*world);
  ExpectSameState(*world, *copy);
  for (int i = 0; i < 30; ++i) {
    world->Step();
    copy->Step();
  }
  ExpectSameState(*world, *copy);

  // A snapshot missing an asset it names is refused, naming the shape.
  v1::WorldSnapshot missing = snapshot;
  missing.mutable_assets()->RemoveLast();
  auto refused = WorldFromSnapshot(missing, "copy", WorldLimits{});
  EXPECT_THAT(refused.status().message(), HasSubstr("scene.bodies[1].shape.mesh_asset.asset"));
}

TEST(WorldSnapshot, SelfAssemblyMidRampStepsBitIdentically) {
  auto world = NailedCube();
  for (int i = 0; i < 15; ++i) world->Step();  // 15 of the 40 ramp steps
  ExpectRestoredStepsTheSame(world.get(), 40);
}

TEST(WorldSnapshot, SwitchedOffConstraintStaysOffWhenRestored) {
  auto world = NailedCube();
  for (int i = 0; i < 10; ++i) world->Step();
  ASSERT_TRUE(world->SetConstraintEnabled("corner", false).ok());
  for (int i = 0; i < 5; ++i) world->Step();
  auto copy = Restored(*world);
  EXPECT_FALSE(copy->soft_bodies().ConstraintEnabled("corner"));
  EXPECT_TRUE(copy->soft_bodies().ConstraintEnabled("assemble"));
  ExpectRestoredStepsTheSame(world.get(), 40);
  // Switched on again, it restarts its ramp in both worlds alike.
  ASSERT_TRUE(world->SetConstraintEnabled("corner", true).ok());
  ExpectRestoredStepsTheSame(world.get(), 20);
}

TEST(WorldSnapshot, OnlySoftConstraintsSwitch) {
  auto world = WorldOf(MixedScene());
  EXPECT_EQ(world->SetConstraintEnabled("grip", false).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(world->SetConstraintEnabled("no-such", false).code(), absl::StatusCode::kNotFound);
}

// A world restored into an existing one takes its state and settings but keeps its name.
TEST(WorldSnapshot, RestoreIntoKeepsTheTargetsName) {
  auto source = WorldOf(Builtin("default"), "source");
  for (int i = 0; i < 10; ++i) source->Step();
  auto target = WorldOf(Builtin("bow"), "target");
  const uint64_t edits = target->edits();
  ASSERT_TRUE(RestoreSnapshotInto(target.get(), SerializeSnapshot(*source), WorldLimits{}).ok());
  EXPECT_EQ(target->name(), "target");
  // The restore counts as one more edit of the target, so a checkpoint taken before it is
  // seen as stale.
  EXPECT_EQ(target->edits(), edits + 1);
  EXPECT_EQ(target->tick(), 10u);
  EXPECT_EQ(target->body_count(), source->body_count());
  source->Step();
  target->Step();
  ExpectSameState(*source, *target);
}

// A soft cube resting on a soft slab on the ground: the snapshot holds the soft-soft
// contacts' warm starts, and the copy steps the same.
TEST(WorldSnapshot, SoftOnSoftStepsBitIdentically) {
  absl::StatusOr<v1::Scene> scene = ParseScene(R"pb(
    settings { rate_hz: 100 }
    bodies { id: "ground" kind: BODY_KIND_STATIC shape { plane {} } }
    bodies {
      id: "slab"
      pose { position { y: 0.04 } }
      soft {
        box { half_extents { x: 0.2 y: 0.04 z: 0.2 } cells_x: 4 cells_y: 2 cells_z: 4 }
        model: SOFT_MODEL_COROTATIONAL_FEM
        density: 1000 young_modulus: 1000000 poisson_ratio: 0.3 damping: 10
      }
    }
    bodies {
      id: "cube"
      pose { position { x: 0.01 y: 0.135 } }
      soft {
        box { half_extents { x: 0.05 y: 0.05 z: 0.05 } cells_x: 2 cells_y: 2 cells_z: 2 }
        model: SOFT_MODEL_COROTATIONAL_FEM
        density: 1000 young_modulus: 200000 poisson_ratio: 0.3 damping: 10
      }
    }
  )pb", "soft_on_soft.textproto");
  ASSERT_TRUE(scene.ok()) << scene.status();
  auto world = WorldOf(*scene);
  for (int i = 0; i < 40; ++i) world->Step();
  const v1::WorldSnapshot snap = CaptureSnapshot(*world);
  const auto pairs = std::count_if(
      snap.state().soft_contact_cache().begin(), snap.state().soft_contact_cache().end(),
      [](const v1::SoftCachedContact& c) { return c.has_other_soft_body(); });
  ASSERT_GT(pairs, 0);
  ExpectCopyStepsTheSame(world.get(), 20);
}

// A small rigid cube resting on the faces of a coarse soft slab, under either solver: the
// snapshot holds the warm starts of its corners on the slab's triangles (negative vertex
// keys), and the copy steps the same.
TEST(WorldSnapshot, RigidCornersOnSoftFacesStepBitIdentically) {
  constexpr char kBodies[] = R"pb(
    bodies {
      id: "ground"
      kind: BODY_KIND_STATIC
      shape { plane {} }
    }
    bodies {
      id: "slab"
      pose { position { y: 0.02 } }
      soft {
        box {
          half_extents { x: 0.1 y: 0.02 z: 0.1 }
          cells_x: 2
          cells_y: 1
          cells_z: 2
        }
        model: SOFT_MODEL_COROTATIONAL_FEM
        density: 1000
        young_modulus: 1000000
        poisson_ratio: 0.3
        damping: 10
      }
    }
    bodies {
      id: "cube"
      pose { position { x: 0.035 y: 0.0435 z: 0.06 } }
      shape { box { half_extents { x: 0.003 y: 0.003 z: 0.003 } } }
      material { mass: 0.02 }
    }
  )pb";
  for (const char* solver : {"SOLVER_KIND_GAUSS_SEIDEL", "SOLVER_KIND_TUNABLE_LCP"}) {
    SCOPED_TRACE(solver);
    const std::string settings =
        absl::StrCat("settings { rate_hz: 100 solver { kind: ", solver, " } }");
    absl::StatusOr<v1::Scene> scene =
        ParseScene(absl::StrCat(settings, kBodies), "corners_on_faces.textproto");
    ASSERT_TRUE(scene.ok()) << scene.status();
    auto world = WorldOf(*scene);
    for (int i = 0; i < 30; ++i) world->Step();
    const v1::WorldSnapshot snap = CaptureSnapshot(*world);
    const auto faces = std::count_if(snap.state().soft_contact_cache().begin(),
                                     snap.state().soft_contact_cache().end(),
                                     [](const v1::SoftCachedContact& c) { return c.vertex() < 0; });
    ASSERT_GT(faces, 0);
    ExpectCopyStepsTheSame(world.get(), 20);
  }
}

// ---- Bad snapshots: INVALID_ARGUMENT naming the field, target untouched ----------------

class BadSnapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    auto world = WorldOf(MixedScene(), "source");
    for (int i = 0; i < 30; ++i) DriveAndStep(world.get());
    snapshot_ = CaptureSnapshot(*world);
    target_ = WorldOf(Builtin("default"), "target");
    for (int i = 0; i < 3; ++i) target_->Step();
    before_ = SerializeSnapshot(*target_);
  }

  // Restoring `bytes` into the target fails with INVALID_ARGUMENT mentioning `field`, and
  // the target keeps every bit of its state.
  void ExpectRefused(const std::string& bytes, const std::string& field) {
    const absl::Status s = RestoreSnapshotInto(target_.get(), bytes, WorldLimits{});
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(std::string(s.message()), HasSubstr(field));
    EXPECT_TRUE(SerializeSnapshot(*target_) == before_);
    EXPECT_EQ(target_->name(), "target");
  }
  void ExpectRefused(const v1::WorldSnapshot& snap, const std::string& field) {
    ExpectRefused(snap.SerializeAsString(), field);
  }

  v1::WorldSnapshot snapshot_;
  std::unique_ptr<World> target_;
  std::string before_;
};

TEST_F(BadSnapshot, TruncatedBytes) {
  const std::string bytes = snapshot_.SerializeAsString();
  ASSERT_GT(bytes.size(), 1000u);
  for (size_t n = 0; n < bytes.size(); n += bytes.size() / 37 + 1) {
    const absl::Status s = RestoreSnapshotInto(target_.get(), bytes.substr(0, n), WorldLimits{});
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << "length " << n << ": " << s;
  }
  EXPECT_TRUE(SerializeSnapshot(*target_) == before_);
  ExpectRefused(std::string("\xff\xff\xff\xff garbage"), "snapshot");
}

TEST_F(BadSnapshot, WrongFormatVersion) {
  snapshot_.set_format_version(99);
  ExpectRefused(snapshot_, "format_version");
}

TEST_F(BadSnapshot, WrongSizes) {
  v1::WorldSnapshot s = snapshot_;
  s.mutable_state()->mutable_rods(0)->mutable_x()->RemoveLast();
  ExpectRefused(s, "state.rods[0].x");
  s = snapshot_;
  s.mutable_state()->mutable_rigid()->mutable_position()->Add(1.0);
  ExpectRefused(s, "state.rigid.position");
  s = snapshot_;
  s.mutable_state()->mutable_soft_bodies()->RemoveLast();
  ExpectRefused(s, "state.soft_bodies");
  s = snapshot_;
  s.mutable_state()->mutable_strands(1)->mutable_q()->Add(0.0);
  ExpectRefused(s, "state.strands[1].q");
  s = snapshot_;
  s.mutable_state()->mutable_soft_bodies(0)->mutable_damage()->Add(0.5);
  ExpectRefused(s, "state.soft_bodies[0].damage");
  s = snapshot_;
  ASSERT_FALSE(s.state().soft_bodies(0).dv().empty());
  s.mutable_state()->mutable_soft_bodies(0)->mutable_dv()->RemoveLast();
  ExpectRefused(s, "state.soft_bodies[0].dv");
}

// The meshes a cut body's factorizations are of must be earlier meshes of that body.
TEST_F(BadSnapshot, RefreshMeshesThatDoNotFitTheBody) {
  ASSERT_FALSE(snapshot_.state().soft_bodies(0).dv().empty());  // a corotational body
  const int n = snapshot_.state().soft_bodies(0).x_size() / 3;
  // Rest positions for the first `kept` vertices, and where each later one was split from.
  const auto past = [&](int kept, std::vector<int> split_from) {
    v1::PastMesh mesh;
    for (int i = 0; i < 3 * kept; ++i) mesh.add_rest(snapshot_.state().soft_bodies(0).x(i));
    for (const int from : split_from) mesh.add_split_from(from);
    return mesh;
  };
  v1::WorldSnapshot s = snapshot_;
  *s.mutable_state()->mutable_soft_bodies(0)->mutable_factorized() = past(3, {});
  s.mutable_state()->mutable_soft_bodies(0)->set_refactor_h(0.01);
  ExpectRefused(s, "state.soft_bodies[0].factorized");
  s = snapshot_;
  *s.mutable_state()->mutable_soft_bodies(0)->mutable_refactorizing() = past(n - 1, {n + 5});
  s.mutable_state()->mutable_soft_bodies(0)->set_refactor_h(0.01);
  s.mutable_state()->mutable_soft_bodies(0)->set_refactor_ticks_left(4);
  ExpectRefused(s, "state.soft_bodies[0].refactorizing.split_from");
  s = snapshot_;
  *s.mutable_state()->mutable_soft_bodies(0)->mutable_refactorizing() = past(n - 1, {0});
  s.mutable_state()->mutable_soft_bodies(0)->set_refactor_ticks_left(4);
  ExpectRefused(s, "state.soft_bodies[0].refactor_h");
  s.mutable_state()->mutable_soft_bodies(0)->set_refactor_h(0.01);
  s.mutable_state()->mutable_soft_bodies(0)->set_refactor_ticks_left(0);
  ExpectRefused(s, "state.soft_bodies[0].refactor_ticks_left");
}

TEST_F(BadSnapshot, NonFiniteNumbers) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  v1::WorldSnapshot s = snapshot_;
  s.mutable_state()->mutable_rigid()->set_position(4, nan);
  ExpectRefused(s, "state.rigid.position[4]");
  s = snapshot_;
  s.mutable_state()->mutable_soft_bodies(0)->set_v(7, std::numeric_limits<double>::infinity());
  ExpectRefused(s, "state.soft_bodies[0].v[7]");
  s = snapshot_;
  s.mutable_state()->mutable_strands(0)->set_w(0, nan);
  ExpectRefused(s, "state.strands[0].w");
  s = snapshot_;
  s.mutable_state()->set_sim_time(nan);
  ExpectRefused(s, "state.sim_time");
  s = snapshot_;
  s.mutable_state()->mutable_rigid()->set_orientation(0, 3.0);
  ExpectRefused(s, "state.rigid.orientation");
}

TEST_F(BadSnapshot, IndicesOutOfRange) {
  v1::WorldSnapshot s = snapshot_;
  v1::CachedContact* c = s.mutable_state()->add_contact_cache();
  c->set_body_a(1000000);
  c->add_local_a(0);
  c->add_local_a(0);
  c->add_local_a(0);
  c->add_force(0);
  c->add_force(0);
  c->add_force(0);
  ExpectRefused(s, "state.contact_cache");
  for (const auto& [rod, sample, body, field] :
       {std::tuple{1000u, 0, 0u, ".rod"}, std::tuple{0u, -1, 0u, ".sample"},
        std::tuple{0u, 0, 4000000u, ".body"}}) {
    s = snapshot_;
    v1::RodCachedContact* r = s.mutable_state()->add_rod_contact_cache();
    r->set_rod(rod);
    r->set_sample(sample);
    r->set_body(body);
    for (int d = 0; d < 3; ++d) r->add_force(0.0);
    ExpectRefused(s, absl::StrCat("state.rod_contact_cache[",
                                  s.state().rod_contact_cache_size() - 1, "]", field));
  }
  s = snapshot_;
  v1::SoftCachedContact* sc = s.mutable_state()->add_soft_contact_cache();
  sc->set_other_soft_body(7);
  for (int d = 0; d < 3; ++d) sc->add_force(0);
  ExpectRefused(s, "state.soft_contact_cache[");
  s = snapshot_;
  s.mutable_state()->add_device_driven(4000000000u);
  ExpectRefused(s, "state.device_driven[");
  s = snapshot_;
  v1::StrokeAnchor* a = s.mutable_state()->add_stroke_anchors();
  a->set_soft_body("ligament");
  a->set_tool("no-such-tool");
  ExpectRefused(s, "state.stroke_anchors");
  s = snapshot_;
  // A scene that references a body that is not there.
  s.mutable_scene()->mutable_bodies()->erase(s.mutable_scene()->mutable_bodies()->begin());
  ExpectRefused(s, "scene");
}

TEST_F(BadSnapshot, SoftConstraintStateOutOfRange) {
  auto cube = NailedCube();
  for (int i = 0; i < 5; ++i) cube->Step();
  const v1::WorldSnapshot good = CaptureSnapshot(*cube);
  ASSERT_EQ(good.state().soft_constraints_size(), 2);
  EXPECT_EQ(good.state().soft_constraints(0).ramp_count(), 5);
  v1::WorldSnapshot s = good;
  s.mutable_state()->mutable_soft_constraints(0)->set_ramp_count(41);
  ExpectRefused(s, "state.soft_constraints[0].ramp_count");
  s = good;
  s.mutable_state()->mutable_soft_constraints(1)->set_ramp_count(-1);
  ExpectRefused(s, "state.soft_constraints[1].ramp_count");
  s = good;
  s.mutable_state()->mutable_soft_constraints(0)->set_ramp_steps(-3);
  ExpectRefused(s, "state.soft_constraints[0].ramp_steps");
  s = good;
  s.mutable_state()->mutable_soft_constraints(1)->set_goal(2, std::nan(""));
  ExpectRefused(s, "state.soft_constraints[1].goal");
  s = good;
  s.mutable_state()->mutable_soft_constraints()->RemoveLast();
  ExpectRefused(s, "state.soft_constraints");
  // A format-1 snapshot (which did not carry them) restores with the constraints as built.
  s = good;
  s.set_format_version(1);
  s.mutable_state()->clear_soft_constraints();
  EXPECT_TRUE(WorldFromSnapshot(s, "old", WorldLimits{}).ok());
}

TEST_F(BadSnapshot, RodOrderingMustBeAPermutation) {
  ASSERT_GT(snapshot_.state().rod_positions_ordering().node_order_size(), 2);
  v1::WorldSnapshot s = snapshot_;
  auto* order = s.mutable_state()->mutable_rod_positions_ordering()->mutable_node_order();
  order->Set(1, order->Get(0));
  ExpectRefused(s, "state.rod_positions_ordering.node_order[1]");
  s = snapshot_;
  s.mutable_state()->mutable_rod_twist_ordering()->add_node_order(-5);
  ExpectRefused(s, "state.rod_twist_ordering.node_order");
}

// Sleeping: one entry per rigid body or none; rest times >= 0; only dynamic bodies at rest
// sleep.
TEST_F(BadSnapshot, SleepOnlyForDynamicBodiesAtRest) {
  const int n = snapshot_.state().rigid().position_size() / 3;
  int static_body = -1, rigid = 0;
  for (const v1::Body& b : snapshot_.scene().bodies()) {
    if (b.has_rod() || b.has_soft() || b.has_strand()) continue;
    if (b.kind() == v1::BODY_KIND_STATIC && static_body < 0) static_body = rigid;
    ++rigid;
  }
  ASSERT_EQ(rigid, n);
  ASSERT_GE(static_body, 0);
  v1::WorldSnapshot s = snapshot_;
  v1::RigidBodyStates& r = *s.mutable_state()->mutable_rigid();
  for (int i = 0; i < n; ++i) {
    r.add_rest_time(0.0);
    r.add_sleep_island(0);
  }
  r.set_sleep_island(static_body, 1);
  ExpectRefused(s, absl::StrCat("state.rigid.sleep_island[", static_body, "]"));
  r.set_sleep_island(static_body, 0);
  r.set_rest_time(1, -1.0);
  ExpectRefused(s, "state.rigid.rest_time[1]");
  r.set_rest_time(1, 0.0);
  r.mutable_sleep_island()->RemoveLast();
  ExpectRefused(s, "state.rigid.sleep_island");
}

TEST_F(BadSnapshot, PoseHistoryTimesMustIncrease) {
  v1::WorldSnapshot s = snapshot_;
  auto* history = s.mutable_state()->mutable_strands(0)->mutable_base_history();
  ASSERT_GE(history->size(), 2);
  history->at(1).set_time(history->at(0).time());
  ExpectRefused(s, "base_history[1].time");
}

}  // namespace
}  // namespace ligature
