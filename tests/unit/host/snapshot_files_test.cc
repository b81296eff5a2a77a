#include "server/host/snapshot_files.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/host/world_manager.h"
#include "server/snapshot/world_snapshot.h"

namespace ligature {
namespace {

using ::testing::HasSubstr;
using ::testing::SizeIs;

class SnapshotFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/ligature_snapfiles_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // The necklace world stepped `ticks` times, as snapshot bytes.
  static std::string NecklaceAt(int ticks) {
    absl::StatusOr<v1::Scene> scene = LoadBuiltinScene("necklace");
    absl::StatusOr<SceneDesc> desc = SceneFromProto(*scene);
    auto world = World::FromScene("worlds/n", *desc, WorldLimits{});
    for (int i = 0; i < ticks; ++i) (*world)->Step();
    return SerializeSnapshot(**world);
  }

  std::string dir_;
};

TEST_F(SnapshotFilesTest, KeepsTheNewestTwoPerWorld) {
  for (uint64_t tick : {3u, 9u, 12u}) {
    ASSERT_TRUE(WriteSnapshotFile(dir_, "a", tick, "bytes").ok());
  }
  ASSERT_TRUE(WriteSnapshotFile(dir_, "b", 1, "bytes").ok());
  std::ofstream(dir_ + "/notes.txt") << "not a snapshot";
  absl::StatusOr<std::vector<SnapshotFile>> files = ListSnapshotFiles(dir_);
  ASSERT_TRUE(files.ok());
  ASSERT_THAT(*files, SizeIs(3));
  EXPECT_EQ((*files)[0].world_id, "a");
  EXPECT_EQ((*files)[0].tick, 12u);
  EXPECT_EQ((*files)[1].tick, 9u);
  EXPECT_EQ((*files)[2].world_id, "b");
  EXPECT_EQ(*ReadWholeFile((*files)[0].path), "bytes");
  // No temporary file is left behind.
  EXPECT_EQ(RemoveTemporaryFiles(dir_), 0);
  ASSERT_TRUE(RemoveSnapshotFiles(dir_, "a").ok());
  EXPECT_THAT(*ListSnapshotFiles(dir_), SizeIs(1));
}

TEST_F(SnapshotFilesTest, CorruptNewestFileFallsBackToThePrevious) {
  ASSERT_TRUE(WriteSnapshotFile(dir_, "n", 5, NecklaceAt(5)).ok());
  const std::string newest = NecklaceAt(8);
  ASSERT_TRUE(WriteSnapshotFile(dir_, "n", 8, newest.substr(0, newest.size() / 2)).ok());
  // A world whose only file is garbage is left out.
  ASSERT_TRUE(WriteSnapshotFile(dir_, "x", 1, "garbage").ok());
  // What a crash in the middle of a write leaves: ignored by loading, removed on request.
  std::ofstream(dir_ + "/.n.00000000000000000009.snap.tmp") << newest.substr(0, 10);
  std::vector<std::string> problems;
  std::vector<LoadedWorld> loaded = LoadNewestSnapshots(dir_, WorldLimits{}, &problems);
  ASSERT_THAT(loaded, SizeIs(1));
  EXPECT_EQ(loaded[0].world_id, "n");
  EXPECT_EQ(loaded[0].world->name(), "worlds/n");
  EXPECT_EQ(loaded[0].world->tick(), 5u);
  ASSERT_THAT(problems, SizeIs(2));
  EXPECT_THAT(problems[0], HasSubstr("00000000000000000008.snap: skipped"));
  EXPECT_THAT(problems[1], HasSubstr("x.00000000000000000001.snap: skipped"));
  EXPECT_EQ(RemoveTemporaryFiles(dir_), 1);
}

TEST_F(SnapshotFilesTest, MissingDirectoryIsAProblemNotACrash) {
  std::vector<std::string> problems;
  EXPECT_THAT(LoadNewestSnapshots(dir_ + "/nope", WorldLimits{}, &problems), SizeIs(0));
  EXPECT_THAT(problems, SizeIs(1));
}

}  // namespace
}  // namespace ligature
