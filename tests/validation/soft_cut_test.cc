// Cutting in a world: a ligament of about 100 tets held at both ends, and a scalpel pressed
// into it and drawn across its width. The stroke separates the ligament into two pieces,
// keeps its mass exactly and leaves no inverted tetrahedron; a blade that strokes without
// loading the tissue enough (toughness above the stress it makes) never cuts; for the
// corotational, St Venant-Kirchhoff and mass-point models as each test says.

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "server/model/soft/fem_material.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kHalfLength = 0.04, kHalfThickness = 0.005, kHalfWidth = 0.01;
constexpr double kBladeHalfHeight = 0.02;

// The ligament along x (8 x 1 x 2 cells, 96 tets), thickness along y, width along z; its
// two end faces held. Cuttable with toughness `toughness`.
BodyDesc Ligament(SoftModelKind model, double toughness) {
  BodyDesc d;
  d.id = "ligament";
  SoftBodyDesc soft;
  soft.mesh = MakeBoxMesh(Vec3(kHalfLength, kHalfThickness, kHalfWidth), 8, 1, 2);
  soft.model = model;
  soft.fem.young = 3.0e5;
  soft.fem.poisson = 0.3;
  soft.fem.density = 1000.0;
  soft.fem.mass_damping = 2.0;
  soft.mass_point.density = 1000.0;
  soft.mass_point.distance_stiffness = 10.0;
  soft.mass_point.volume_stiffness = 0.005;
  soft.mass_point.damping = 0.5;
  for (size_t v = 0; v < soft.mesh.vertices.size(); ++v) {
    if (std::abs(std::abs(soft.mesh.vertices[v].x()) - kHalfLength) < 1e-9) {
      soft.fixed.push_back(static_cast<int>(v));
    }
  }
  CuttingParams cutting;
  cutting.toughness = toughness;
  cutting.combination = StressCombination::kMax;
  soft.cutting = cutting;
  d.body = soft;
  return d;
}

// A thin blade (1 mm in x) standing in the y-z plane; its tip at the bottom centre.
BodyDesc Scalpel(const Vec3& at) {
  BodyDesc d = testing::MakeBody("scalpel", Shape::Box(Vec3(0.0005, kBladeHalfHeight, 0.0005)),
                                 at, BodyKind::kKinematic);
  ScalpelDesc scalpel;
  scalpel.tip = Vec3(0, -kBladeHalfHeight, 0);
  scalpel.cut_depth = 0.015;
  scalpel.contact_distance = 0.002;
  d.rigid()->scalpel = scalpel;
  return d;
}

double TotalMass(const SoftWorld::Body& body) {
  return std::accumulate(body.masses().begin(), body.masses().end(), 0.0);
}

struct StrokeResult {
  int cuts = 0;
  int pieces = 0;
  double mass_before = 0.0;
  double mass_after = 0.0;
  double smallest_volume = 0.0;  // smallest signed tet volume, rest or current, m^3
};

// The blade comes down at the ligament's mid-length beside it, presses `press` metres below
// the top surface, is drawn across the width and lifted, at 200 Hz.
StrokeResult Stroke(SoftModelKind model, double toughness, double press) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.bodies.push_back(Ligament(model, toughness));
  const double z0 = -0.5 * kHalfWidth;
  const double top = kHalfThickness + kBladeHalfHeight;  // blade centre with its tip on top
  scene.bodies.push_back(Scalpel(Vec3(0, top + 0.002, z0)));
  auto world = testing::MakeWorld(scene);
  // Let the ligament sag to rest first.
  for (int i = 0; i < 200; ++i) world->Step();
  StrokeResult r;
  r.mass_before = TotalMass(*world->soft_bodies().FindBody("ligament"));
  auto drive = [&](const Vec3& from, const Vec3& to, int ticks) {
    for (int i = 1; i <= ticks; ++i) {
      const Vec3 at = from + (to - from) * (static_cast<double>(i) / ticks);
      EXPECT_TRUE(world->SetDeviceTarget("scalpel", Transform{at, Quat::Identity()}).ok());
      world->Step();
      r.cuts += static_cast<int>(world->MakeFrame().cuts.size());
    }
  };
  const SoftWorld::Body& rest = *world->soft_bodies().FindBody("ligament");
  double sag = 0.0;  // the top surface's largest drop
  for (size_t v = 0; v < rest.positions().size(); ++v) {
    if (rest.desc.mesh.vertices[v].y() > 0.0) {
      sag = std::min(sag, rest.positions()[v].y() - kHalfThickness);
    }
  }
  const Vec3 above(0, top + 0.002, z0);
  const Vec3 pressed(0, top + sag - press, z0);
  const Vec3 across(0, top + sag - press, kHalfWidth + 0.004);
  drive(above, pressed, 40);
  drive(pressed, across, 200);
  drive(across, across + Vec3(0, 0.03, 0), 40);
  for (int i = 0; i < 100; ++i) world->Step();

  const SoftWorld::Body& body = *world->soft_bodies().FindBody("ligament");
  r.mass_after = TotalMass(body);
  r.pieces = CountPieces(body.desc.mesh);
  r.smallest_volume = 1.0;
  const TetMesh now{body.positions(), body.desc.mesh.tets};
  for (int t = 0; t < static_cast<int>(now.tets.size()); ++t) {
    r.smallest_volume =
        std::min({r.smallest_volume, TetVolume(body.desc.mesh, t), TetVolume(now, t)});
  }
  EXPECT_EQ(world->last_stats().recovered_bodies, 0);
  return r;
}

// The press separates the band, for the corotational and the mass-point models. (An StVK
// band under the same stroke is dragged along by the pressed tip, and the tets the blade
// selects then lie on one side of the cut plane; its cuts are checked in
// tests/unit/world/soft/soft_world_cut_test.cc.)
TEST(SoftCut, ScalpelSeparatesTheLigamentAndKeepsItsMass) {
  for (const SoftModelKind model : {SoftModelKind::kCorotational, SoftModelKind::kMassPoint}) {
    const StrokeResult r = Stroke(model, /*toughness=*/2000.0, /*press=*/0.002);
    EXPECT_GE(r.cuts, 1) << static_cast<int>(model);
    EXPECT_EQ(r.pieces, 2) << static_cast<int>(model);
    EXPECT_NEAR(r.mass_after, r.mass_before, 1e-12 * r.mass_before) << static_cast<int>(model);
    EXPECT_GT(r.smallest_volume, 0.0) << static_cast<int>(model);
  }
}

// The blade drawn across just above the surface (within its contact distance, so the
// geometric criterion sees attempts) loads nothing: no cut.
TEST(SoftCut, GrazingStrokeDoesNotCut) {
  for (const SoftModelKind model :
       {SoftModelKind::kCorotational, SoftModelKind::kStVK, SoftModelKind::kMassPoint}) {
    const StrokeResult r = Stroke(model, /*toughness=*/2000.0, /*press=*/-0.0005);
    EXPECT_EQ(r.cuts, 0) << static_cast<int>(model);
    EXPECT_EQ(r.pieces, 1) << static_cast<int>(model);
  }
}

// The same stroke against a tissue tougher than the stress the blade makes: attempts, no
// cut, whatever the model.
TEST(SoftCut, ToughTissueIsNotCut) {
  for (const SoftModelKind model :
       {SoftModelKind::kCorotational, SoftModelKind::kStVK, SoftModelKind::kMassPoint}) {
    const StrokeResult r = Stroke(model, /*toughness=*/1.0e9, /*press=*/0.003);
    EXPECT_EQ(r.cuts, 0) << static_cast<int>(model);
    EXPECT_EQ(r.pieces, 1) << static_cast<int>(model);
    EXPECT_EQ(r.mass_after, r.mass_before) << static_cast<int>(model);
  }
}

}  // namespace
}  // namespace ligature
