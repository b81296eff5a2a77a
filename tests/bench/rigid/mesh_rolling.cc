// rigid/mesh_rolling/{ball,box}: a ball rolling at 3.2 m/s and a box sliding at 4 m/s
// (friction 0.2) for 3 s across a static flat floor of 3,200 triangles (40 x 40 cells of
// 0.5 m, diagonals alternating) at 60 Hz, 20 iterations on every side. The figure is the
// bump: the body's fastest vertical speed (bump_speed_m_s, from its height step to step)
// once it has taken its resting overlap (0.1 s), 0 on a perfect floor; a seam that catches
// shows as a jump. Bullet collides a
// btBvhTriangleMeshShape of the same triangles with its internal-edge correction
// (btGenerateInternalEdgeInfo, btAdjustInternalEdgeContacts), as its users are told to.

#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_scene.h"
#include "tests/support/grid_mesh.h"

namespace ligature::bench {
namespace {

constexpr double kRateHz = 60.0;
constexpr int kSettleSteps = 6;  // 0.1 s to take the contact's resting overlap
constexpr int kSteps = 180;      // 3 s, measured
constexpr int kIterations = 20;

// The floor and one moving body (the scene's last), default solver settings but the
// iterations, every side stepping all of them.
SceneDesc Floor(double friction) {
  SceneDesc scene;
  scene.settings.rate_hz = kRateHz;
  scene.settings.solver.max_iterations = kIterations;
  scene.settings.solver.tolerance = 0.0;
  BodyDesc floor;
  floor.id = "floor";
  floor.kind = BodyKind::kStatic;
  RigidBodyDesc rigid;
  rigid.shape = Shape::Mesh(testing::GridMesh(40, 0.5));
  rigid.material.friction = friction;
  floor.body = rigid;
  scene.bodies.push_back(floor);
  return scene;
}

// A ball of 0.2 m rolling without slip at (3, 0, 1.1) m/s, from resting on the floor.
SceneDesc Ball() {
  SceneDesc scene = Floor(0.5);
  const double r = 0.2;
  const Vec3 v(3.0, 0.0, 1.1);
  BodyDesc ball;
  ball.id = "ball";
  RigidBodyDesc rigid;
  rigid.shape = Shape::Sphere(r);
  rigid.pose.position = Vec3(-8.0, r, -3.0);
  rigid.linear_velocity = v;
  rigid.angular_velocity = Vec3::UnitY().cross(v) / r;
  rigid.material.friction = 0.5;
  ball.body = rigid;
  scene.bodies.push_back(ball);
  return scene;
}

// A 0.4 x 0.2 x 0.3 m box sliding at 4 m/s along x with friction 0.2: it stops after 2 s.
SceneDesc Box() {
  SceneDesc scene = Floor(0.2);
  BodyDesc box;
  box.id = "box";
  RigidBodyDesc rigid;
  rigid.shape = Shape::Box(Vec3(0.2, 0.1, 0.15));
  rigid.pose.position = Vec3(-8.0, 0.1, 0.3);
  rigid.linear_velocity = Vec3(4.0, 0.0, 0.0);
  rigid.material.friction = 0.2;
  box.body = rigid;
  scene.bodies.push_back(box);
  return scene;
}

// Wraps one side and follows the scene's last body: its fastest vertical speed over the
// steps, from its height before and after each.
class BumpSpeed : public SteppedScene {
 public:
  BumpSpeed(std::unique_ptr<SteppedScene> inner, size_t body)
      : inner_(std::move(inner)), body_(body) {}

  void Step() override {
    const std::optional<std::array<double, 3>> before = inner_->Position(body_);
    inner_->Step();
    const std::optional<std::array<double, 3>> after = inner_->Position(body_);
    if (!before || !after) {
      fastest_ = NAN;
      return;
    }
    fastest_ = std::max(fastest_, std::abs((*after)[1] - (*before)[1]) * kRateHz);
  }
  int Contacts() const override { return inner_->Contacts(); }
  void ResetSummary() override {
    inner_->ResetSummary();
    fastest_ = 0.0;
  }
  std::string Notes() const override { return inner_->Notes(); }
  std::vector<std::pair<std::string, double>> Figures() const override {
    return {{"bump_speed_m_s", fastest_}};
  }

 private:
  std::unique_ptr<SteppedScene> inner_;
  size_t body_;
  double fastest_ = 0.0;
};

// A side: `make`'s scene built by `build`, followed by BumpSpeed.
template <typename Build>
SceneFactory Side(SceneDesc (*make)(), Build build) {
  return [make, build]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    const SceneDesc scene = make();
    absl::StatusOr<std::unique_ptr<SteppedScene>> inner = build(scene);
    if (!inner.ok()) return inner.status();
    return std::unique_ptr<SteppedScene>(
        std::make_unique<BumpSpeed>(*std::move(inner), scene.bodies.size() - 1));
  };
}

StepBench MeshRolling(const std::string& body, SceneDesc (*make)(), const std::string& what) {
  StepBench bench;
  bench.name = absl::StrCat("rigid/mesh_rolling/", body);
  bench.setup = absl::StrCat(what, " for 3 s across a flat floor of 3,200 triangles, 60 Hz, ",
                             kIterations, " iterations on every side, no early exit");
  bench.settle_steps = kSettleSteps;
  bench.timed_steps = kSteps;
  bench.quick_timed_steps = kSteps;
  bench.chunk_steps = 60;
  for (const SolverKind kind : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    bench.ours.push_back({SolverName(kind), Side(make, [kind](SceneDesc scene) {
                            scene.settings.solver.kind = kind;
                            return MakeLigatureScene(scene);
                          })});
  }
  bench.peers.push_back({BulletPeerName(), Side(make, [](const SceneDesc& scene) {
                           return MakeBulletScene(scene);
                         })});
  return bench;
}

const Registrar kBall(MeshRolling("ball", Ball, "a 0.2 m ball rolling at 3.2 m/s"));
const Registrar kBox(MeshRolling("box", Box, "a box sliding at 4 m/s (friction 0.2)"));

}  // namespace
}  // namespace ligature::bench
