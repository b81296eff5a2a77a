// micado/<scene>: the six examples of MICADO's Table 1 (Theetten and Grisoni 2008), each
// from its scene file under server/scenes/, stepped through World::Step (rods, constraints
// and pearls; the scenes hold no rigid contacts). No peer engine offers these constraints;
// `paper` is the paper's cost per step (ms, 2 GHz Centrino Duo, 2008). The notes give the
// scene's multiplier counts (absolute / relative, as the paper counts them), the KKT
// system's size and half-bandwidth before and after reordering, the Newton projection
// steps per tick and the largest constraint violation left.

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/world/world.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {
namespace {

class RodScene final : public SteppedScene {
 public:
  explicit RodScene(std::unique_ptr<World> world) : world_(std::move(world)) {}
  void Step() override {
    world_->Step();
    const RodStepStats& s = world_->rods().last_stats();
    ++steps_;
    newton_ += s.newton_steps;
    worst_ = std::max(worst_, s.max_violation);
  }
  int Contacts() const override { return 0; }
  void ResetSummary() override {
    steps_ = newton_ = 0;
    worst_ = 0.0;
  }
  std::string Notes() const override {
    const RodWorld& rods = world_->rods();
    int absolute = 0, relative = 0;
    for (const RodConstraint& c : rods.constraints()) {
      (IsRelative(c.desc.kind) ? relative : absolute) += RodConstraintRows(c.desc);
    }
    const auto [natural, reordered] = rods.Bandwidths();
    return absl::StrCat("rods=", rods.rods().size(), ", absolute_rows=", absolute,
                        ", relative_rows=", relative, ", pearls=", rods.pearls().size(),
                        ", unknowns=", rods.last_stats().unknowns,
                        ", bandwidth natural=", natural, " reordered=", reordered,
                        ", newton_per_step=", steps_ ? double(newton_) / steps_ : 0.0,
                        ", max_violation=", worst_, ", dt=", world_->settings().dt());
  }

 private:
  std::unique_ptr<World> world_;
  int steps_ = 0;
  int newton_ = 0;
  double worst_ = 0.0;
};

StepBench MakeMicadoBench(const std::string& scene, double paper_ms, const std::string& what) {
  StepBench bench;
  bench.name = "micado/" + scene;
  bench.paper = paper_ms;
  bench.paper_source = "micado-1d-deformable-constraints Table 1";
  bench.setup = what;
  bench.ours.push_back({"rods", [scene]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
                          absl::StatusOr<SceneDesc> desc = LoadScene(scene);
                          if (!desc.ok()) return desc.status();
                          auto world = World::FromScene("bench", *desc, WorldLimits{});
                          if (!world.ok()) return world.status();
                          return std::make_unique<RodScene>(*std::move(world));
                        }});
  bench.settle_steps = 200;
  bench.timed_steps = 2000;
  bench.quick_timed_steps = 200;
  bench.chunk_steps = 200;
  return bench;
}

const Registrar kBridge(MakeMicadoBench("bridge", 1.7, "4 ropes, 21 distance links"));
const Registrar kNecklace(MakeMicadoBench("necklace", 0.4,
                                          "a closed thread, 12 pearls, a pendant"));
const Registrar kBow(MakeMicadoBench("bow", 0.56, "limbs, string and arrow"));
const Registrar kCable(MakeMicadoBench("cable_bundle", 1.0,
                                       "a main cable with 5 fused branches"));
const Registrar kSpider(MakeMicadoBench("spider_net", 4.0,
                                        "8 radials, 49 lateral distance links"));
const Registrar kDna(MakeMicadoBench("dna", 1.1, "two helices, 32 distance links"));

}  // namespace
}  // namespace ligature::bench
