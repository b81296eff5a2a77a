#include "clients/cpp/scene_file.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ligature::client {
namespace {

using ::testing::HasSubstr;

// Writes `content` to a fresh file named `name` in the test's temporary directory.
std::string WriteTempFile(const std::string& name, const std::string& content) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  return path;
}

constexpr char kTextScene[] = R"pb(
  # A ball above the ground.
  settings {
    rate_hz: 120
    gravity { y: -9.81 }
  }
  bodies {
    id: "ground"
    kind: BODY_KIND_STATIC
    shape { plane {} }
  }
  bodies {
    id: "ball"
    shape { sphere { radius: 0.5 } }
    pose { position { y: 2 } }
  }
)pb";

TEST(SceneFileTest, LoadsTextFormat) {
  for (const char* ext : {".textproto", ".txtpb", ".pbtxt"}) {
    const std::string path = WriteTempFile(std::string("scene") + ext, kTextScene);
    absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
    ASSERT_TRUE(scene.ok()) << ext << ": " << scene.status();
    EXPECT_EQ(scene->settings().rate_hz(), 120);
    ASSERT_EQ(scene->bodies_size(), 2);
    EXPECT_EQ(scene->bodies(0).kind(), ligature::v1::BODY_KIND_STATIC);
    EXPECT_TRUE(scene->bodies(0).shape().has_plane());
    EXPECT_EQ(scene->bodies(1).shape().sphere().radius(), 0.5);
    EXPECT_EQ(scene->bodies(1).pose().position().y(), 2);
  }
}

TEST(SceneFileTest, LoadsJsonWithEitherFieldNameStyle) {
  const std::string path = WriteTempFile("scene.json", R"json({
    "settings": {"rateHz": 30, "solver": {"max_iterations": 50}},
    "bodies": [{"id": "box", "kind": "BODY_KIND_DYNAMIC",
                "shape": {"box": {"halfExtents": {"x": 1, "y": 2, "z": 3}}}}]
  })json");
  absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->settings().rate_hz(), 30);
  EXPECT_EQ(scene->settings().solver().max_iterations(), 50);
  ASSERT_EQ(scene->bodies_size(), 1);
  EXPECT_EQ(scene->bodies(0).shape().box().half_extents().z(), 3);
}

TEST(SceneFileTest, MalformedTextIsInvalidArgumentNamingFileAndPosition) {
  const std::string path = WriteTempFile("bad.textproto", "settings {\n  rate_hz: fast\n}\n");
  absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
  ASSERT_FALSE(scene.ok());
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(scene.status().message(), HasSubstr(path));
  EXPECT_THAT(scene.status().message(), HasSubstr(":2:"));  // the line of the error
}

TEST(SceneFileTest, UnknownTextFieldIsInvalidArgument) {
  const std::string path = WriteTempFile("unknown.textproto", "bodies { radius: 1 }\n");
  absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
  ASSERT_FALSE(scene.ok());
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(scene.status().message(), HasSubstr("radius"));
}

TEST(SceneFileTest, MalformedJsonIsInvalidArgumentNamingFile) {
  const std::string path = WriteTempFile("bad.json", R"({"bodies": [{"id": 1,}]})");
  absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
  ASSERT_FALSE(scene.ok());
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(scene.status().message(), HasSubstr(path));
  EXPECT_THAT(scene.status().message(), HasSubstr("JSON"));
}

TEST(SceneFileTest, UnknownJsonFieldIsInvalidArgument) {
  const std::string path = WriteTempFile("unknown.json", R"({"bodys": []})");
  absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
  ASSERT_FALSE(scene.ok());
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(scene.status().message(), HasSubstr(path));
}

TEST(SceneFileTest, MissingFileIsNotFoundNamingFile) {
  const std::string path = ::testing::TempDir() + "does_not_exist.textproto";
  absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
  ASSERT_FALSE(scene.ok());
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(scene.status().message(), HasSubstr(path));
}

TEST(SceneFileTest, UnknownExtensionIsInvalidArgument) {
  const std::string path = WriteTempFile("scene.yaml", "bodies: []\n");
  absl::StatusOr<ligature::v1::Scene> scene = LoadSceneFile(path);
  ASSERT_FALSE(scene.ok());
  EXPECT_EQ(scene.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(scene.status().message(), HasSubstr("scene.yaml"));
}

TEST(SceneFileTest, FormatFollowsExtension) {
  EXPECT_EQ(SceneFormatForPath("a/b.textproto"), SceneFormat::kText);
  EXPECT_EQ(SceneFormatForPath("b.TXTPB"), SceneFormat::kText);
  EXPECT_EQ(SceneFormatForPath("b.pbtxt"), SceneFormat::kText);
  EXPECT_EQ(SceneFormatForPath("b.json"), SceneFormat::kJson);
  EXPECT_EQ(SceneFormatForPath("default"), std::nullopt);
  EXPECT_EQ(SceneFormatForPath("json"), std::nullopt);
}

TEST(SceneFileTest, SceneSpecIsFileWhenItExistsOrHasSceneExtension) {
  EXPECT_TRUE(IsSceneFileSpec("nowhere/scene.textproto"));
  EXPECT_TRUE(IsSceneFileSpec("nowhere/scene.json"));
  EXPECT_FALSE(IsSceneFileSpec("default"));
  EXPECT_FALSE(IsSceneFileSpec("pendulum_chain"));
  const std::string existing = WriteTempFile("scene_without_extension", "");
  EXPECT_TRUE(IsSceneFileSpec(existing));
}

}  // namespace
}  // namespace ligature::client
