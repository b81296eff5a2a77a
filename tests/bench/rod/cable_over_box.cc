// rod/cable_over_box: what rods meeting rigid bodies cost. A 1 m cable (30 control points,
// radius 1 cm, 2.5 kg) draped over a 2 kg box resting on a static floor, 200 Hz, stepped
// through World::Step. Under Gauss-Seidel the cable's contact points take part in the
// world's solve with the cable's constrained compliance (their compliance columns, the
// dense coupled group in the sweeps, the forces' solve back into the cable); under the
// tunable solver the same contacts are rows in the rods' own KKT system, the box moving
// along each contact normal with its effective mass. The notes give the contact count, the
// solver iterations and the rod points in the solve.

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/world/world.h"
#include "tests/bench/registry.h"

namespace ligature::bench {
namespace {

class CableOverBox final : public SteppedScene {
 public:
  explicit CableOverBox(std::unique_ptr<World> world) : world_(std::move(world)) {}
  void Step() override {
    world_->Step();
    ++steps_;
    iterations_ += world_->last_stats().iterations;
    for (const World::ContactReport& c : world_->LastContacts()) solver_points_ += c.a == "cable";
  }
  int Contacts() const override { return world_->last_stats().contacts; }
  void ResetSummary() override { steps_ = iterations_ = solver_points_ = 0; }
  std::string Notes() const override {
    const double n = steps_ > 0 ? steps_ : 1;
    return absl::StrCat("rod_contacts=", world_->rods().last_stats().contacts,
                        ", rod_contacts_in_world_solve_per_step=", solver_points_ / n,
                        ", iterations_per_step=", iterations_ / n,
                        ", max_penetration=", world_->last_stats().max_penetration);
  }

 private:
  std::unique_ptr<World> world_;
  int steps_ = 0;
  int iterations_ = 0;
  int solver_points_ = 0;
};

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeScene(SolverKind solver) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.settings.solver.kind = solver;
  BodyDesc floor;
  floor.id = "floor";
  floor.kind = BodyKind::kStatic;
  floor.rigid()->shape = Shape::Box(Vec3(3.0, 0.05, 3.0));
  floor.rigid()->pose.position = Vec3(0.0, -0.05, 0.0);
  scene.bodies.push_back(floor);
  BodyDesc box;
  box.id = "box";
  box.rigid()->shape = Shape::Box(Vec3(0.2, 0.2, 0.2));
  box.rigid()->pose.position = Vec3(0.0, 0.2, 0.0);
  box.rigid()->material.mass = 2.0;
  scene.bodies.push_back(box);
  BodyDesc cable;
  cable.id = "cable";
  RodDesc rod;
  rod.points = {Vec3(-0.5, 0.42, 0.0), Vec3(0.5, 0.42, 0.0)};
  rod.control_points = 30;
  rod.material.radius = 0.01;
  rod.material.density = 8000.0;
  rod.material.young = 1.0e6;
  rod.material.damping = 2.0;
  cable.body = rod;
  scene.bodies.push_back(cable);
  auto world = World::FromScene("bench", scene, WorldLimits{});
  if (!world.ok()) return world.status();
  return std::make_unique<CableOverBox>(*std::move(world));
}

StepBench MakeBench() {
  StepBench bench;
  bench.name = "rod/cable_over_box";
  bench.setup = "dt=0.005, cable 30 control points, radius 0.01 m, 2.5 kg; box 2 kg on a floor";
  bench.ours.push_back({"gauss-seidel", [] { return MakeScene(SolverKind::kGaussSeidel); }});
  bench.ours.push_back({"tunable", [] { return MakeScene(SolverKind::kTunableLcp); }});
  bench.settle_steps = 400;
  bench.timed_steps = 1000;
  bench.quick_timed_steps = 200;
  bench.chunk_steps = 100;
  return bench;
}

const Registrar kCableOverBox(MakeBench());

}  // namespace
}  // namespace ligature::bench
