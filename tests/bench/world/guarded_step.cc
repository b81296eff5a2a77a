// world/guard-<scene>: what the divergence guard costs per tick. The same built-in scene is
// stepped plainly (World::Step), under the guard with a copy of the world after every good
// tick (the server's default), and with a copy every 10 ticks; the check itself runs after
// every step in both guarded variants. No peer.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/host/divergence_guard.h"
#include "server/world/world.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {
namespace {

class GuardedWorld final : public SteppedScene {
 public:
  // interval < 0: no guard at all.
  GuardedWorld(std::unique_ptr<World> world, int interval)
      : world_(std::move(world)), interval_(interval), guard_(Options(interval)) {}
  void Step() override {
    if (interval_ < 0) {
      world_->Step();
    } else if (guard_.Step(world_.get())) {
      ++divergences_;
    }
  }
  int Contacts() const override { return world_->last_stats().contacts; }
  std::string Notes() const override {
    return absl::StrCat("checkpoint_interval=", interval_, ", divergences=", divergences_);
  }

 private:
  static DivergenceGuardOptions Options(int interval) {
    DivergenceGuardOptions o;
    o.checkpoint_interval = interval < 0 ? 0 : interval;
    return o;
  }
  std::unique_ptr<World> world_;
  int interval_;
  DivergenceGuard guard_;
  int divergences_ = 0;
};

SceneFactory Factory(std::string scene, int interval) {
  return [scene, interval]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    absl::StatusOr<SceneDesc> desc = LoadScene(scene);
    if (!desc.ok()) return desc.status();
    auto world = World::FromScene("bench", *desc, WorldLimits{});
    if (!world.ok()) return world.status();
    return std::make_unique<GuardedWorld>(*std::move(world), interval);
  };
}

StepBench MakeGuardBench(const std::string& scene) {
  StepBench bench;
  bench.name = absl::StrCat("world/guard-", scene);
  bench.setup = absl::StrCat("built-in scene ", scene, ": plain step vs divergence guard");
  bench.ours.push_back({"plain", Factory(scene, -1)});
  bench.ours.push_back({"guard-copy-every-tick", Factory(scene, 1)});
  bench.ours.push_back({"guard-copy-every-10", Factory(scene, 10)});
  bench.settle_steps = 100;
  bench.timed_steps = 500;
  bench.quick_timed_steps = 50;
  bench.chunk_steps = 50;
  return bench;
}

const Registrar kSpheres(MakeGuardBench("spheres375"));
const Registrar kBridge(MakeGuardBench("bridge"));
const Registrar kTissue(MakeGuardBench("tissue"));
const Registrar kHair(MakeGuardBench("hair"));

}  // namespace
}  // namespace ligature::bench
