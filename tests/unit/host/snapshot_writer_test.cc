#include "server/host/snapshot_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/host/snapshot_files.h"
#include "server/snapshot/world_snapshot.h"

namespace ligature {
namespace {

using ::testing::SizeIs;

class SnapshotWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/ligature_snapwriter_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    WorldManagerOptions o;
    o.worker_threads = 1;
    manager_ = std::make_unique<WorldManager>(o);
  }
  void TearDown() override {
    manager_->Shutdown();
    std::filesystem::remove_all(dir_);
  }

  // A paused built-in scene stepped `ticks` times on its own thread.
  std::shared_ptr<WorldHost> Create(const std::string& id, const std::string& scene,
                                    int ticks) {
    absl::StatusOr<SceneDesc> desc = SceneFromProto(*LoadBuiltinScene(scene));
    desc->settings.paused = true;
    auto host = manager_->Create(id, *desc);
    EXPECT_TRUE(host.ok());
    WorldHost* h = host->get();
    auto stepped = h->Call<uint64_t>(
        [h, ticks](World& w) -> absl::StatusOr<uint64_t> {
          for (int i = 0; i < ticks; ++i) h->GuardedStep(w);
          return w.tick();
        },
        absl::Seconds(30));
    EXPECT_TRUE(stepped.ok());
    return *host;
  }

  std::string dir_;
  std::unique_ptr<WorldManager> manager_;
};

// A round writes every world at its tick; the file rebuilds the same state.
TEST_F(SnapshotWriterTest, WritesEveryWorldAndTheFilesRestoreIt) {
  auto bow = Create("bow", "bow", 7);
  Create("tissue", "tissue", 3);
  SnapshotWriterOptions options;
  options.dir = dir_;
  SnapshotWriter writer(manager_.get(), options);
  const SnapshotRound round = writer.WriteAll();
  EXPECT_EQ(round.written, 2);
  EXPECT_EQ(round.failed, 0);
  absl::StatusOr<std::vector<SnapshotFile>> files = ListSnapshotFiles(dir_);
  ASSERT_THAT(*files, SizeIs(2));
  EXPECT_EQ((*files)[0].world_id, "bow");
  EXPECT_EQ((*files)[0].tick, 7u);
  EXPECT_EQ((*files)[1].tick, 3u);

  auto restored = WorldFromSnapshotBytes(*ReadWholeFile((*files)[0].path), "worlds/bow",
                                         WorldLimits{});
  ASSERT_TRUE(restored.ok()) << restored.status();
  auto live = bow->Call<std::string>(
      [](World& w) -> absl::StatusOr<std::string> { return SerializeSnapshot(w); },
      absl::Seconds(30));
  EXPECT_TRUE(SerializeSnapshot(**restored) == *live);
}

// A deleted world's files go at the next round; the periodic thread writes on its own.
TEST_F(SnapshotWriterTest, DeletedWorldsFilesGoAndThePeriodicThreadWrites) {
  Create("a", "default", 2);
  Create("b", "default", 4);
  SnapshotWriterOptions options;
  options.dir = dir_;
  options.interval = absl::Milliseconds(20);
  SnapshotWriter writer(manager_.get(), options);
  EXPECT_EQ(writer.WriteAll().written, 2);
  ASSERT_TRUE(manager_->Delete("a").ok());
  EXPECT_EQ(writer.WriteAll().written, 1);
  auto files = ListSnapshotFiles(dir_);
  ASSERT_THAT(*files, SizeIs(1));
  EXPECT_EQ((*files)[0].world_id, "b");

  ASSERT_TRUE(RemoveSnapshotFiles(dir_, "b").ok());
  writer.Start();
  for (int i = 0; i < 500 && ListSnapshotFiles(dir_)->empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  writer.Stop();
  EXPECT_THAT(*ListSnapshotFiles(dir_), SizeIs(1));
}

}  // namespace
}  // namespace ligature
