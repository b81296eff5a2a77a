#include "server/host/world_manager.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ligature {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Paused scenes keep the scheduler idle: these tests are about bookkeeping.
SceneDesc PausedScene() {
  SceneDesc scene;
  scene.settings.paused = true;
  return scene;
}

WorldManagerOptions Options(int max_worlds = 8) {
  WorldManagerOptions o;
  o.max_worlds = max_worlds;
  o.worker_threads = 1;
  return o;
}

std::vector<std::string> Ids(const WorldPage& page) {
  std::vector<std::string> ids;
  for (const WorldInfo& w : page.worlds) ids.push_back(WorldIdFromName(w.name));
  return ids;
}

// World ids and names convert both ways; a bare id is accepted as a name.
TEST(WorldNameTest, IdAndNameConvert) {
  EXPECT_EQ(WorldName("lab"), "worlds/lab");
  EXPECT_EQ(WorldIdFromName("worlds/lab"), "lab");
  EXPECT_EQ(WorldIdFromName("lab"), "lab");
}

// Generated ids count up and skip ids chosen by clients; hosts are named worlds/{id}.
TEST(WorldManagerTest, CreateAssignsIds) {
  WorldManager manager(Options());
  auto first = manager.Create("", PausedScene());
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)->name(), "worlds/world-1");
  ASSERT_TRUE(manager.Create("world-2", PausedScene()).ok());
  auto third = manager.Create("", PausedScene());
  ASSERT_TRUE(third.ok());
  EXPECT_EQ((*third)->name(), "worlds/world-3");
  auto got = manager.Get("world-2");
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->name(), "worlds/world-2");
}

// An id in use is ALREADY_EXISTS; an unknown id is NOT_FOUND.
TEST(WorldManagerTest, AlreadyExistsAndNotFound) {
  WorldManager manager(Options());
  ASSERT_TRUE(manager.Create("lab", PausedScene()).ok());
  auto again = manager.Create("lab", PausedScene());
  EXPECT_EQ(again.status().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(std::string(again.status().message()), HasSubstr("lab"));
  EXPECT_EQ(manager.Get("nowhere").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager.Delete("nowhere").code(), absl::StatusCode::kNotFound);
}

// max_worlds is enforced; deleting a world frees its place.
TEST(WorldManagerTest, ResourceExhaustedAtMaxWorlds) {
  WorldManager manager(Options(2));
  ASSERT_TRUE(manager.Create("a", PausedScene()).ok());
  ASSERT_TRUE(manager.Create("b", PausedScene()).ok());
  EXPECT_EQ(manager.Create("c", PausedScene()).status().code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(manager.Create("", PausedScene()).status().code(),
            absl::StatusCode::kResourceExhausted);
  ASSERT_TRUE(manager.Delete("a").ok());
  EXPECT_TRUE(manager.Create("c", PausedScene()).ok());
}

// A scene that does not build is refused with its own error, and no world is added.
TEST(WorldManagerTest, BadSceneIsNotRegistered) {
  WorldManager manager(Options());
  SceneDesc scene = PausedScene();
  ConstraintDesc c;
  c.id = "pin";
  c.body_a = "missing";
  scene.constraints.push_back(c);
  auto created = manager.Create("bad", scene);
  EXPECT_EQ(created.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(manager.Get("bad").status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(manager.List(10, "").worlds.empty());
}

// The world limits of the options apply to the worlds created.
TEST(WorldManagerTest, WorldLimitsApply) {
  WorldManagerOptions options = Options();
  options.world_limits.max_bodies = 1;
  WorldManager manager(options);
  SceneDesc scene = PausedScene();
  BodyDesc b;
  b.rigid()->shape = Shape::Sphere(0.1);
  b.id = "one";
  scene.bodies.push_back(b);
  b.id = "two";
  scene.bodies.push_back(b);
  EXPECT_EQ(manager.Create("full", scene).status().code(), absl::StatusCode::kResourceExhausted);
}

// List pages through the worlds in id order; the token is the last id of the page and is
// empty on the last page.
TEST(WorldManagerTest, ListPagination) {
  WorldManager manager(Options());
  for (const char* id : {"delta", "alpha", "echo", "charlie", "bravo"}) {
    ASSERT_TRUE(manager.Create(id, PausedScene()).ok());
  }
  WorldPage page = manager.List(2, "");
  EXPECT_THAT(Ids(page), ElementsAre("alpha", "bravo"));
  EXPECT_EQ(page.next_page_token, "bravo");
  page = manager.List(2, page.next_page_token);
  EXPECT_THAT(Ids(page), ElementsAre("charlie", "delta"));
  EXPECT_EQ(page.next_page_token, "delta");
  page = manager.List(2, page.next_page_token);
  EXPECT_THAT(Ids(page), ElementsAre("echo"));
  EXPECT_EQ(page.next_page_token, "");

  page = manager.List(5, "");
  EXPECT_EQ(page.worlds.size(), 5u);
  EXPECT_EQ(page.next_page_token, "");  // exactly filled: nothing after
  // A token of a world deleted since still continues after it.
  ASSERT_TRUE(manager.Delete("charlie").ok());
  EXPECT_THAT(Ids(manager.List(10, "charlie")), ElementsAre("delta", "echo"));
  // The infos are the worlds' own.
  EXPECT_TRUE(manager.List(1, "").worlds[0].settings.paused);
}

// Delete closes the host: waiting callers and streams see it closed, and edits are refused.
TEST(WorldManagerTest, DeleteClosesHost) {
  WorldManager manager(Options());
  auto host = manager.Create("doomed", PausedScene());
  ASSERT_TRUE(host.ok());
  std::shared_ptr<WorldHost> kept = *host;
  ASSERT_TRUE(manager.Delete("doomed").ok());
  EXPECT_TRUE(kept->closed());
  EXPECT_EQ(manager.Get("doomed").status().code(), absl::StatusCode::kNotFound);
  auto call = kept->Call<int>([](World&) -> absl::StatusOr<int> { return 1; }, absl::Seconds(30));
  EXPECT_EQ(call.status().code(), absl::StatusCode::kNotFound);
  uint64_t version = 0;
  bool open = true;
  kept->WaitForFrame(0, absl::ZeroDuration(), &version, &open);
  EXPECT_FALSE(open);
  // The id can be used again.
  EXPECT_TRUE(manager.Create("doomed", PausedScene()).ok());
}

// Shutdown closes every world.
TEST(WorldManagerTest, ShutdownClosesAll) {
  WorldManager manager(Options());
  auto a = manager.Create("a", PausedScene());
  auto b = manager.Create("b", PausedScene());
  ASSERT_TRUE(a.ok() && b.ok());
  manager.Shutdown();
  EXPECT_TRUE((*a)->closed());
  EXPECT_TRUE((*b)->closed());
  EXPECT_TRUE(manager.List(10, "").worlds.empty());
}

// Edits to a managed (paused) world are applied by the scheduler.
TEST(WorldManagerTest, ManagedWorldAppliesEdits) {
  WorldManager manager(Options());
  auto host = manager.Create("edits", PausedScene());
  ASSERT_TRUE(host.ok());
  auto n = (*host)->Call<int>(
      [](World& w) -> absl::StatusOr<int> {
        BodyDesc b;
        b.rigid()->shape = Shape::Sphere(0.1);
        auto id = w.AddBody(b);
        if (!id.ok()) return id.status();
        return w.body_count();
      },
      absl::Seconds(30));
  ASSERT_TRUE(n.ok()) << n.status();
  EXPECT_EQ(*n, 1);
}

}  // namespace
}  // namespace ligature
