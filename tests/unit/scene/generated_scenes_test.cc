// Generated scenes: Gissler's cubes at both sizes have the paper's tet and nail counts, one
// link per stacked corner pair, and are valid scenes a world accepts.

#include "server/scene/generated_scenes.h"

#include <gtest/gtest.h>

#include "server/scene/scene_proto.h"
#include "server/world/world.h"

namespace ligature {
namespace {

struct Counts {
  int tets = 0;
  int nails = 0;
  int links = 0;
};

Counts CountScene(const v1::Scene& scene) {
  Counts c;
  for (const v1::Body& b : scene.bodies()) c.tets += b.soft().tets().tets_size() / 4;
  for (const v1::Constraint& k : scene.constraints()) {
    if (k.soft().kind() == v1::SOFT_CONSTRAINT_KIND_NAIL) ++c.nails;
    if (k.soft().kind() == v1::SOFT_CONSTRAINT_KIND_POINTS_TO_POINT) ++c.links;
  }
  return c;
}

TEST(GeneratedScenesTest, GisslerCubesHaveThePapersCounts) {
  const std::vector<std::string> names = GeneratedSceneNames();
  ASSERT_EQ(names.size(), 2u);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));

  std::optional<v1::Scene> small = GenerateScene("gissler_cubes_3950");
  ASSERT_TRUE(small.has_value());
  const Counts s = CountScene(*small);
  EXPECT_EQ(s.tets, 3950);
  EXPECT_EQ(s.nails, 160);
  EXPECT_EQ(s.links, 3000);  // 750 stacked pairs x 4 corners

  std::optional<v1::Scene> large = GenerateScene("gissler_cubes_14950");
  ASSERT_TRUE(large.has_value());
  const Counts l = CountScene(*large);
  EXPECT_EQ(l.tets, 14950);
  EXPECT_EQ(l.nails + l.links, 11960);  // the paper: 11924

  EXPECT_FALSE(GenerateScene("default").has_value());
}

TEST(GeneratedScenesTest, WorldsAcceptThem) {
  for (const std::string& name : GeneratedSceneNames()) {
    absl::StatusOr<SceneDesc> scene = SceneFromProto(*GenerateScene(name));
    ASSERT_TRUE(scene.ok()) << name << ": " << scene.status();
    auto world = World::FromScene("worlds/" + name, *scene, WorldLimits{});
    ASSERT_TRUE(world.ok()) << name << ": " << world.status();
    EXPECT_EQ((*world)->constraint_count(), static_cast<int>(scene->constraints.size()));
  }
}

}  // namespace
}  // namespace ligature
