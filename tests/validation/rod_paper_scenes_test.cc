// The six MICADO example scenes load from their files with the paper's multiplier counts
// (absolute / relative, Table 1), step with every constraint held to 1e-9 m (measured from
// the rods' geometry and the followed bodies' poses, and as the solver reports it), and
// their reordered systems have a far narrower band than the natural order (printed).

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <string>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/world/world.h"
#include "tests/validation/rod_scenes.h"

namespace ligature {
namespace {

struct PaperScene {
  std::string name;
  int absolute;
  int relative;
};

class RodPaperScenes : public ::testing::TestWithParam<PaperScene> {};

TEST_P(RodPaperScenes, CountsExactnessAndBand) {
  const PaperScene& p = GetParam();
  absl::StatusOr<v1::Scene> proto = LoadBuiltinScene(p.name);
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<SceneDesc> scene = SceneFromProto(*proto);
  ASSERT_TRUE(scene.ok()) << scene.status();
  auto world = World::FromScene(p.name, *scene, WorldLimits{});
  ASSERT_TRUE(world.ok()) << world.status();
  World& w = **world;

  int absolute = 0, relative = 0;
  for (const RodConstraint& c : w.rods().constraints()) {
    (IsRelative(c.desc.kind) ? relative : absolute) += RodConstraintRows(c.desc);
  }
  EXPECT_EQ(absolute, p.absolute);
  EXPECT_EQ(relative, p.relative);

  const auto [natural, reordered] = w.rods().Bandwidths();
  std::cout << p.name << ": half-bandwidth natural " << natural << ", reordered " << reordered
            << "\n";
  EXPECT_LT(reordered * 3, natural);

  double worst = 0.0;
  int measured = 0;
  for (int i = 0; i < 100; ++i) {
    w.Step();
    ASSERT_FALSE(w.rods().last_stats().solve_failed) << "step " << i;
    EXPECT_LT(w.rods().last_stats().max_violation, 1e-9) << "step " << i;
    for (const RodConstraint& c : w.rods().constraints()) {
      std::optional<Transform> follow;
      if (!c.desc.follow_body.empty()) {
        absl::StatusOr<BodyDesc> body = w.GetBody(c.desc.follow_body);
        ASSERT_TRUE(body.ok() && body->rigid()) << c.desc.id << ": " << c.desc.follow_body;
        follow = body->rigid()->pose;
      }
      const double v = testing::RodConstraintViolation(w.rods(), c, follow ? &*follow : nullptr);
      EXPECT_LT(v, 1e-9) << c.desc.id << " at step " << i;
      worst = std::max(worst, v);
      ++measured;
    }
  }
  EXPECT_GT(measured, 0);
  std::cout << p.name << ": largest violation from geometry " << worst << " m\n";
}

INSTANTIATE_TEST_SUITE_P(Table1, RodPaperScenes,
                         ::testing::Values(PaperScene{"bridge", 32, 21},
                                           PaperScene{"necklace", 8, 10},
                                           PaperScene{"bow", 11, 16},
                                           PaperScene{"cable_bundle", 7, 35},
                                           PaperScene{"spider_net", 28, 49},
                                           PaperScene{"dna", 8, 32}),
                         [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace ligature
