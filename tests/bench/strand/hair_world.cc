// strand/hair-world: the built-in scene `hair` (36 strands of 12 segments following a
// kinematic head, draping over it and a capsule of shoulders) stepped through World::Step
// at its own rate (120 Hz): what a world with strands costs per tick, obstacles and
// following included. No peer; the notes give the strands' contacts and Newton iterations.

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/world/world.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {
namespace {

class HairWorld final : public SteppedScene {
 public:
  explicit HairWorld(std::unique_ptr<World> world) : world_(std::move(world)) {}
  void Step() override {
    world_->Step();
    const StrandWorldStats& s = world_->strands().last_stats();
    contacts_ = s.contacts;
    newton_max_ = std::max(newton_max_, s.newton_iterations);
    recovered_ += world_->last_stats().recovered_bodies;
  }
  int Contacts() const override { return contacts_; }
  void ResetSummary() override { newton_max_ = recovered_ = 0; }
  std::string Notes() const override {
    return absl::StrCat("strands=", world_->strands().strands().size(),
                        ", max_newton_iterations=", newton_max_, ", recovered=", recovered_,
                        ", dt=", world_->settings().dt());
  }

 private:
  std::unique_ptr<World> world_;
  int contacts_ = 0;
  int newton_max_ = 0;
  int recovered_ = 0;
};

StepBench MakeHairBench() {
  StepBench bench;
  bench.name = "strand/hair-world";
  bench.setup = "built-in scene hair: 36 strands x 12 segments on a kinematic head";
  bench.ours.push_back({"world", []() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
                          absl::StatusOr<SceneDesc> desc = LoadScene("hair");
                          if (!desc.ok()) return desc.status();
                          auto world = World::FromScene("bench", *desc, WorldLimits{});
                          if (!world.ok()) return world.status();
                          return std::make_unique<HairWorld>(*std::move(world));
                        }});
  bench.settle_steps = 240;
  bench.timed_steps = 1000;
  bench.quick_timed_steps = 100;
  bench.chunk_steps = 100;
  return bench;
}

const Registrar kHairWorld(MakeHairBench());

}  // namespace
}  // namespace ligature::bench
