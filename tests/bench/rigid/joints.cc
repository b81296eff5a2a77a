// rigid/joints: joint-heavy scenes at 60 Hz. Eight chains of 20 capsule links hang from
// fixed pivots, each carrying a load ten times as heavy as a link, joined by ball joints
// ("ball_chains") or by hinges about one axis ("hinge_chains"); 320 joint blocks in all.
// Every side runs 20 iterations with no early exit, for 10 s from rest: what a step costs,
// and how far the chains have stretched (stretch_m: the loads' mean distance below where
// rigid joints hold them; an exact solve keeps it near 0), against Bullet in the same run.

#include <cmath>
#include <memory>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_scene.h"

namespace ligature::bench {
namespace {

constexpr double kRateHz = 60.0;
constexpr int kSteps = 600;  // 10 s at 60 Hz
constexpr int kIterations = 20;
constexpr int kSubsteps = 4;
constexpr int kChains = 8;
constexpr int kLinks = 20;
constexpr double kLink = 0.1;       // m, pivot to pivot
constexpr double kRadius = 0.02;    // m
constexpr double kSpacing = 0.5;    // m between chains
constexpr double kPivotY = 3.0;     // m
constexpr double kLoadHalf = 0.05;  // m, the load box's half edge

double LinkMass() {
  // The default density over a capsule of kLink between its pivots.
  return 1000.0 * std::numbers::pi * kRadius * kRadius *
         (kLink - 2.0 * kRadius + 4.0 / 3.0 * kRadius);
}

BodyDesc Dynamic(std::string id, const Shape& shape, const Vec3& center) {
  BodyDesc body;
  body.id = std::move(id);
  RigidBodyDesc rigid;
  rigid.shape = shape;
  rigid.pose.position = center;
  body.body = rigid;
  return body;
}

// Body `a`'s point `top` held to body `b`'s point `bottom` (to the world point `bottom`
// when b is empty); hinges turn about Z (the frames' X axes turned onto Z).
void Join(SceneDesc* scene, JointKind kind, const std::string& a, const Vec3& top,
          const std::string& b, const Vec3& bottom) {
  ConstraintDesc c;
  c.id = "joint-" + a;
  c.params.kind = kind;
  c.body_a = a;
  c.body_b = b;
  const Quat x_to_z(Eigen::AngleAxisd(-0.5 * std::numbers::pi, Vec3::UnitY()));
  c.frame_a = {top, kind == JointKind::kHinge ? x_to_z : Quat::Identity()};
  c.frame_b = {bottom, c.frame_a.orientation};
  scene->constraints.push_back(c);
}

// The chains hanging straight down, links then load per chain; no ground.
SceneDesc Chains(JointKind kind) {
  SceneDesc scene;
  scene.settings.rate_hz = kRateHz;
  for (int c = 0; c < kChains; ++c) {
    const Vec3 pivot(kSpacing * c, kPivotY, 0.0);
    std::string above;
    for (int i = 0; i < kLinks; ++i) {
      const std::string link = absl::StrCat("c", c, "_link", i);
      scene.bodies.push_back(Dynamic(link, Shape::Capsule(kRadius, 0.5 * kLink - kRadius),
                                     pivot - Vec3(0, kLink * (i + 0.5), 0)));
      Join(&scene, kind, link, Vec3(0, 0.5 * kLink, 0), above,
           above.empty() ? pivot : Vec3(0, -0.5 * kLink, 0));
      above = link;
    }
    const std::string load = absl::StrCat("c", c, "_load");
    BodyDesc box = Dynamic(load, Shape::Box(Vec3::Constant(kLoadHalf)),
                           pivot - Vec3(0, kLink * kLinks + kLoadHalf, 0));
    box.rigid()->material.mass = 10.0 * LinkMass();
    scene.bodies.push_back(box);
    Join(&scene, kind, load, Vec3(0, kLoadHalf, 0), above, Vec3(0, -0.5 * kLink, 0));
  }
  return scene;
}

// Wraps one side's chains: stretch_m is the loads' mean distance below their rest height.
class Stretch : public SteppedScene {
 public:
  explicit Stretch(std::unique_ptr<SteppedScene> inner) : inner_(std::move(inner)) {}

  void Step() override { inner_->Step(); }
  int Contacts() const override { return inner_->Contacts(); }
  void ResetSummary() override { inner_->ResetSummary(); }
  std::string Notes() const override { return inner_->Notes(); }
  std::vector<std::pair<std::string, double>> Figures() const override {
    const double rest = kPivotY - kLink * kLinks - kLoadHalf;
    double sum = 0.0;
    for (int c = 0; c < kChains; ++c) {
      // Chains() adds each chain's links, then its load: the load is the chain's last body.
      const std::optional<std::array<double, 3>> load =
          inner_->Position(static_cast<size_t>((c + 1) * (kLinks + 1) - 1));
      if (!load) return {{"stretch_m", NAN}};
      sum += rest - (*load)[1];
    }
    return {{"stretch_m", sum / kChains}};
  }

 private:
  std::unique_ptr<SteppedScene> inner_;
};

using Builder =
    std::function<absl::StatusOr<std::unique_ptr<SteppedScene>>(const SceneDesc& scene)>;

// A side: the chains with `kind` joints, changed by `adjust`, built by `build`.
SceneFactory Side(JointKind kind, std::function<void(SceneDesc&)> adjust, Builder build) {
  return [kind, adjust = std::move(adjust),
          build = std::move(build)]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    SceneDesc scene = Chains(kind);
    scene.settings.solver.max_iterations = kIterations;
    scene.settings.solver.tolerance = 0.0;
    if (adjust) adjust(scene);
    absl::StatusOr<std::unique_ptr<SteppedScene>> inner = build(scene);
    if (!inner.ok()) return inner.status();
    return std::unique_ptr<SteppedScene>(std::make_unique<Stretch>(*std::move(inner)));
  };
}

// Both of our solvers and Gauss-Seidel in 4 substeps (the same 20 sweeps a tick spread over
// them), against Bullet, every side at 20 iterations.
StepBench Equal(const std::string& scene, JointKind kind, const std::string& setup) {
  StepBench bench;
  bench.name = absl::StrCat("rigid/joints/", scene, "/equal");
  bench.setup = absl::StrCat(setup, ", ", kIterations, " iterations on every side");
  bench.settle_steps = 0;
  bench.timed_steps = kSteps;
  bench.quick_timed_steps = kSteps;
  bench.chunk_steps = 60;
  for (const SolverKind solver : {SolverKind::kGaussSeidel, SolverKind::kTunableLcp}) {
    bench.ours.push_back(
        {SolverName(solver), Side(
                                 kind, [solver](SceneDesc& s) { s.settings.solver.kind = solver; },
                                 MakeLigatureScene)});
  }
  bench.ours.push_back(
      {absl::StrCat("gauss-seidel-", kSubsteps, "-substeps"),
       Side(
           kind, [](SceneDesc& s) { s.settings.solver.substeps = kSubsteps; }, MakeLigatureScene)});
  bench.peers.push_back({BulletPeerName(), Side(kind, nullptr, [](const SceneDesc& s) {
                           return MakeBulletScene(s);
                         })});
  return bench;
}

const Registrar kBallChains(Equal("ball_chains", JointKind::kBall,
                                  "8 chains of 20 capsule links on ball joints, each carrying "
                                  "10 links' weight, hanging for 10 s at 60 Hz"));
const Registrar kHingeChains(Equal("hinge_chains", JointKind::kHinge,
                                   "8 chains of 20 capsule links on hinges, each carrying 10 "
                                   "links' weight, hanging for 10 s at 60 Hz"));

}  // namespace
}  // namespace ligature::bench
