// Snapshot format 2 is a stored format: the bytes a world serializes to after a fixed number
// of ticks must stay exactly those recorded in tests/data/snapshots/ (one file per built-in
// scene). Set LIGATURE_RECORD_SNAPSHOTS=1 to write the files again after a deliberate format
// change; the run then fails so that a recording is never taken for a pass.

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/snapshot/world_snapshot.h"

namespace ligature {
namespace {

constexpr int kTicks = 12;

std::string GoldenPath(const std::string& scene) {
  return std::string(LIGATURE_TEST_DATA_DIR) + "/snapshots/" + scene + ".bin";
}

// Every built-in scene but the larger of Gissler's cube scenes: its 2.9 MB snapshot covers
// no code that the smaller one (gissler_cubes_3950) does not.
std::vector<std::string> RecordedScenes() {
  std::vector<std::string> names = BuiltinSceneNames();
  std::erase(names, "gissler_cubes_14950");
  return names;
}

class SnapshotBytesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SnapshotBytesTest, MatchRecordedFormat2Bytes) {
  const std::string& name = GetParam();
  absl::StatusOr<v1::Scene> scene = LoadBuiltinScene(name);
  ASSERT_TRUE(scene.ok()) << scene.status();
  absl::StatusOr<SceneDesc> desc = SceneFromProto(*scene);
  ASSERT_TRUE(desc.ok()) << desc.status();
  absl::StatusOr<std::unique_ptr<World>> world = World::FromScene("w", *desc, WorldLimits{});
  ASSERT_TRUE(world.ok()) << world.status();
  for (int i = 0; i < kTicks; ++i) (*world)->Step();
  const std::string bytes = SerializeSnapshot(**world);

  if (std::getenv("LIGATURE_RECORD_SNAPSHOTS") != nullptr) {
    std::ofstream(GoldenPath(name), std::ios::binary) << bytes;
    FAIL() << "recorded " << GoldenPath(name) << " (" << bytes.size() << " bytes)";
  }
  std::ifstream in(GoldenPath(name), std::ios::binary);
  ASSERT_TRUE(in.good()) << "no recording at " << GoldenPath(name);
  std::stringstream recorded;
  recorded << in.rdbuf();
  const std::string expected = recorded.str();
  ASSERT_EQ(bytes.size(), expected.size());
  size_t first = 0;
  while (first < bytes.size() && bytes[first] == expected[first]) ++first;
  EXPECT_EQ(first, bytes.size()) << "first differing byte at offset " << first;
}

INSTANTIATE_TEST_SUITE_P(BuiltinScenes, SnapshotBytesTest,
                         ::testing::ValuesIn(RecordedScenes()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace ligature
