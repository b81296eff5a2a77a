#include "server/scene/scene_library.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "server/scene/generated_scenes.h"
#include "server/scene/scene_proto.h"
#include "server/world/world.h"

namespace ligature {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;

// The built-in default scene is listed, parses, validates and builds a world: a static
// ground plane, 64 falling bodies and a chain of 8 links held by 8 joints (one to the world).
TEST(SceneLibraryTest, DefaultSceneParsesAndValidates) {
  EXPECT_THAT(BuiltinSceneNames(), Contains("default"));
  auto proto = LoadBuiltinScene("default");
  ASSERT_TRUE(proto.ok()) << proto.status();
  auto scene = SceneFromProto(*proto);
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->settings.rate_hz, 60.0);
  EXPECT_EQ(scene->bodies.size(), 73u);
  EXPECT_EQ(scene->constraints.size(), 8u);
  ASSERT_FALSE(scene->bodies.empty());
  EXPECT_EQ(scene->bodies[0].id, "ground");
  EXPECT_EQ(scene->bodies[0].kind, BodyKind::kStatic);
  EXPECT_EQ(scene->bodies[0].rigid()->shape.type, ShapeType::kPlane);
  auto world = World::FromScene("worlds/default", *scene, WorldLimits{});
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ((*world)->body_count(), 73);
  EXPECT_EQ((*world)->constraint_count(), 8);
}

// The names are sorted and have no extension.
TEST(SceneLibraryTest, BuiltinNamesAreSortedStems) {
  const std::vector<std::string> names = BuiltinSceneNames();
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const std::string& n : names) EXPECT_EQ(n.find('.'), std::string::npos) << n;
  EXPECT_EQ(names.size(), EmbeddedScenes().size() + GeneratedSceneNames().size());
}

// An unknown name is NOT_FOUND and the message lists the names that exist.
TEST(SceneLibraryTest, UnknownNameListsBuiltins) {
  auto scene = LoadBuiltinScene("no-such-scene");
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(scene.status().message()), HasSubstr("no-such-scene"));
  for (const std::string& n : BuiltinSceneNames()) {
    EXPECT_THAT(std::string(scene.status().message()), HasSubstr(n));
  }
}

// Text format, picked by any non-JSON extension.
TEST(SceneLibraryTest, ParsesTextFormat) {
  const std::string text = R"(
    settings { rate_hz: 120 paused: true }
    bodies { id: "a" shape { sphere { radius: 0.5 } } material { friction: 0 } }
    bodies { id: "b" kind: BODY_KIND_STATIC shape { plane {} } }
  )";
  auto scene = ParseScene(text, "two.textproto");
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->settings().rate_hz(), 120.0);
  EXPECT_TRUE(scene->settings().paused());
  ASSERT_EQ(scene->bodies_size(), 2);
  EXPECT_EQ(scene->bodies(0).shape().sphere().radius(), 0.5);
  EXPECT_TRUE(scene->bodies(0).material().has_friction());
  EXPECT_EQ(scene->bodies(1).kind(), v1::BODY_KIND_STATIC);
}

// JSON, picked by the .json extension, with proto3 JSON names.
TEST(SceneLibraryTest, ParsesJson) {
  const std::string json = R"({
    "settings": {"rateHz": 30, "gravity": {"y": -1.62}},
    "bodies": [{"id": "rock", "shape": {"box": {"halfExtents": {"x": 1, "y": 2, "z": 3}}}}],
    "constraints": [{"id": "tie", "point": {"bodyA": "rock", "anchorB": {"y": 10}}}]
  })";
  auto scene = ParseScene(json, "moon.json");
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->settings().rate_hz(), 30.0);
  EXPECT_EQ(scene->settings().gravity().y(), -1.62);
  ASSERT_EQ(scene->bodies_size(), 1);
  EXPECT_EQ(scene->bodies(0).shape().box().half_extents().z(), 3.0);
  EXPECT_EQ(scene->constraints(0).point().body_a(), "rock");
  EXPECT_EQ(scene->constraints(0).point().anchor_b().y(), 10.0);
  // The same text is not text format.
  EXPECT_EQ(ParseScene(json, "moon.textproto").status().code(), absl::StatusCode::kInvalidArgument);
}

// A text-format error is INVALID_ARGUMENT naming the source and the line.
TEST(SceneLibraryTest, MalformedTextNamesSourceAndLine) {
  const std::string text =
      "settings { rate_hz: 60 }\n"
      "bodies { id: \"a\" }\n"
      "bodies { id: \"b\" shape { sphere { radius: oops } } }\n";
  auto scene = ParseScene(text, "broken.textproto");
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(scene.status().message()), HasSubstr("broken.textproto"));
  EXPECT_THAT(std::string(scene.status().message()), HasSubstr("line 3"));

  auto unknown_field = ParseScene("settings {}\nbogus: 1\n", "f.txtpb");
  EXPECT_EQ(unknown_field.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(unknown_field.status().message()), HasSubstr("f.txtpb"));
  EXPECT_THAT(std::string(unknown_field.status().message()), HasSubstr("line 2"));
  EXPECT_THAT(std::string(unknown_field.status().message()), HasSubstr("bogus"));
}

// A JSON error is INVALID_ARGUMENT naming the source.
TEST(SceneLibraryTest, MalformedJsonNamesSource) {
  auto scene = ParseScene("{\"bodies\": [", "cut.json");
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(scene.status().message()), HasSubstr("cut.json"));
  auto wrong = ParseScene("{\"nonsense\": 1}", "wrong.json");
  EXPECT_EQ(wrong.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.status().message()), HasSubstr("wrong.json"));
}

// Scene files are read from disk; a missing file is NOT_FOUND naming the path.
TEST(SceneLibraryTest, LoadSceneFile) {
  const std::string path = ::testing::TempDir() + "/scene_library_test.textproto";
  {
    std::ofstream out(path);
    out << "bodies { id: \"x\" shape { capsule { radius: 0.1 half_length: 0.2 } } }\n";
  }
  auto scene = LoadSceneFile(path);
  ASSERT_TRUE(scene.ok()) << scene.status();
  ASSERT_EQ(scene->bodies_size(), 1);
  EXPECT_EQ(scene->bodies(0).shape().capsule().half_length(), 0.2);
  std::remove(path.c_str());

  auto missing = LoadSceneFile(path);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(path));
}

}  // namespace
}  // namespace ligature

namespace ligature {
namespace {

// Every built-in scene builds a world that steps without losing a body.
TEST(SceneLibraryTest, EveryBuiltinSceneBuildsAndSteps) {
  for (const std::string& name : BuiltinSceneNames()) {
    auto proto = LoadBuiltinScene(name);
    ASSERT_TRUE(proto.ok()) << name << ": " << proto.status();
    auto scene = SceneFromProto(*proto);
    ASSERT_TRUE(scene.ok()) << name << ": " << scene.status();
    auto world = World::FromScene(name, *scene, WorldLimits{});
    ASSERT_TRUE(world.ok()) << name << ": " << world.status();
    for (int i = 0; i < 20; ++i) {
      (*world)->Step();
      EXPECT_EQ((*world)->last_stats().recovered_bodies, 0) << name << " step " << i;
    }
  }
}

}  // namespace
}  // namespace ligature
