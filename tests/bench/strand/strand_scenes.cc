// strand/<scene>: oriented strands stepped through StrandSimulation::Step (impacts, the
// implicit step, constraint and contact LCP). No peer engine simulates reduced-coordinate
// strands, so each line is ours alone.
//  - chain100, chain1000: one hanging strand of 100 / 1000 segments on a base swinging
//    sideways, no obstacles: the step's cost against n (it should grow linearly). Their
//    material is stiffer than hair (bend rigidity 2e-3 N m^2): a soft strand cut into
//    millimetre segments hanging under its own weight is too tension-stiff for this dt.
//  - curly_bangs: 9 curly strands of 15 segments rooted on a head sphere that nods, with
//    collisions against the head; the paper's figure: 2-4 Hz per animation frame.
//  - long_hair: 190 strands of 25 segments combed over the nodding head, with collisions; the
//    paper's figure: under 20 s per animation frame.
// long_hair also runs through StrandWorld (bases following the head's pose, the head as a
// moving sphere obstacle) on one thread and on two: what sharing strands over threads buys.
// The paper's figures are per animation frame at 4-8 integration steps per frame; `paper`
// is given per step at its best (4 steps per 1/24 s frame: 4 Hz -> 62.5 ms per step,
// 20 s -> 5000 ms per step), and our dt is that same 1/96 s.

#include <algorithm>
#include <cmath>
#include <optional>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/world/strand/strand_simulation.h"
#include "server/world/strand/strand_world.h"
#include "tests/bench/registry.h"

namespace ligature::bench {
namespace {

constexpr double kDt = 1.0 / 96.0;

// The direction of segment i of a strand at p (head frame, the head a sphere at the
// origin). Hanging chains and curls: along `out`, then down (a curl turning around the
// vertical). Hair on a head is combed over it: off the scalp first, then down the head's
// surface with a lean to the back, and straight down below it, so the crown's hair bends
// a few degrees per joint instead of folding back through the skull.
Vec3 SegmentDirection(int i, const Vec3& p, const Vec3& out, bool curly, bool combed) {
  if (!combed) {
    Vec3 d = out.normalized() * (i < 2 ? 1.0 : 0.3) + Vec3(0, -1, 0);
    if (curly) d += 0.8 * Vec3(std::cos(0.9 * i), 0, std::sin(0.9 * i));
    return d;
  }
  const Vec3 r = p.normalized();
  const Vec3 down(0, -1, 0), back(0, 0, -1);
  Vec3 t = (down - down.dot(r) * r) + 0.3 * (back - back.dot(r) * r);
  if (r.y() < -0.2 || t.norm() < 1e-9) t = down;
  const double lift = std::max(0.0, 0.125 - p.norm()) / 0.025;
  return t.normalized() + 2.0 * lift * r;
}

// A strand of n segments of `seg` metres from `root`, leaving along `out`.
StrandDesc StrandShape(int n, double seg, bool curly, bool combed, const Vec3& root,
                       const Vec3& out, double rigidity) {
  StrandDesc desc;
  Vec3 p = root;
  desc.points.push_back(p);
  for (int i = 0; i < n; ++i) {
    p += seg * SegmentDirection(i, p, out, curly, combed).normalized();
    desc.points.push_back(p);
  }
  StrandMaterial m;
  m.mass_per_length = 0.002;
  m.radius = 0.0008;
  m.bend_rigidity_x = m.bend_rigidity_z = rigidity;
  m.twist_rigidity = rigidity;
  m.bend_damping_x = m.bend_damping_z = m.twist_damping = 2e-8;
  m.drag = 0.002;
  desc.materials = {m};
  return desc;
}

// The base (a head) at time t: nodding about x and swaying along x.
StrandBase HeadMotion(double t) {
  const double w = 2.0 * std::numbers::pi * 0.8;
  StrandBase b;
  b.pose.position = Vec3(0.05 * std::sin(w * t), 1.6, 0.0);
  b.linear_velocity = Vec3(0.05 * w * std::cos(w * t), 0, 0);
  b.linear_acceleration = Vec3(-0.05 * w * w * std::sin(w * t), 0, 0);
  const double a = 0.3 * std::sin(w * t);
  b.pose.orientation = Quat(Eigen::AngleAxisd(a, Vec3::UnitX()));
  b.angular_velocity = Vec3(0.3 * w * std::cos(w * t), 0, 0);
  b.angular_acceleration = Vec3(-0.3 * w * w * std::sin(w * t), 0, 0);
  return b;
}

class StrandScene final : public SteppedScene {
 public:
  StrandScene(std::vector<StrandSimulation> sims, bool head)
      : sims_(std::move(sims)), head_(head) {}
  void Step() override {
    t_ += kDt;
    StrandStepInput input;
    input.base = HeadMotion(t_);
    if (head_) {
      Obstacle sphere;
      sphere.shape = Shape::Sphere(0.1);
      sphere.pose.position = input.base.pose.position;
      sphere.linear_velocity = input.base.linear_velocity;
      sphere.friction = 0.2;
      input.obstacles.push_back(sphere);
    }
    contacts_ = 0;
    for (StrandSimulation& sim : sims_) {
      if (!sim.Step(kDt, input).ok()) continue;
      contacts_ += sim.stats().contacts;
      newton_ += sim.stats().newton_iterations;
      ++strand_steps_;
    }
  }
  int Contacts() const override { return contacts_; }
  void ResetSummary() override { newton_ = strand_steps_ = 0; }
  std::string Notes() const override {
    int segments = 0;
    double fastest = 0.0;  // rad/s: shows a strand that lost stability
    for (const StrandSimulation& s : sims_) {
      segments += s.model().segments();
      for (const Vec3& w : s.state().w) fastest = std::max(fastest, w.norm());
    }
    return absl::StrCat("strands=", sims_.size(), ", segments=", segments,
                        ", max_joint_speed=", fastest,
                        ", newton_per_strand_step=",
                        strand_steps_ ? double(newton_) / strand_steps_ : 0.0, ", dt=", kDt);
  }

 private:
  std::vector<StrandSimulation> sims_;
  bool head_;
  double t_ = 0.0;
  int contacts_ = 0;
  long newton_ = 0;
  long strand_steps_ = 0;
};

// The same strands as bodies of a StrandWorld stepped on `threads` threads: bases follow
// the head's pose (their motion from its pose history), the head is a sphere obstacle.
class WorldStrandScene final : public SteppedScene {
 public:
  WorldStrandScene(std::unique_ptr<StrandWorld> world, bool head, double dt)
      : world_(std::move(world)), head_(head), dt_(dt) {}
  void Step() override {
    t_ += dt_;
    const StrandBase head = HeadMotion(t_);
    std::vector<Obstacle> obstacles;
    if (head_) {
      Obstacle sphere;
      sphere.shape = Shape::Sphere(0.1);
      sphere.pose.position = head.pose.position;
      sphere.bounds = {head.pose.position - Vec3::Constant(0.1),
                       head.pose.position + Vec3::Constant(0.1)};
      obstacles.push_back(sphere);
    }
    world_->Step(
        t_, dt_, Vec3(0, -9.81, 0),
        [&](const std::string&) -> std::optional<FollowedBody> {
          return FollowedBody{head.pose, 0.0};
        },
        obstacles,
        [&](uint32_t) -> std::optional<ObstacleMotion> {
          return ObstacleMotion{head.pose.position, head.linear_velocity, head.angular_velocity};
        });
    newton_ = std::max(newton_, world_->last_stats().newton_iterations);
    recovered_ += world_->last_stats().recovered;
  }
  int Contacts() const override { return world_->last_stats().contacts; }
  void ResetSummary() override { newton_ = recovered_ = 0; }
  std::string Notes() const override {
    return absl::StrCat("strands=", world_->strands().size(), ", threads=", world_->threads(),
                        ", max_newton_iterations=", newton_, ", recovered=", recovered_,
                        ", dt=", dt_);
  }

 private:
  std::unique_ptr<StrandWorld> world_;
  bool head_;
  double dt_;
  double t_ = 0.0;
  int newton_ = 0;
  int recovered_ = 0;
};

// Roots spread over a cap of the head (golden-angle spiral): root k of `count`, and the
// outward direction there.
void HeadRoot(int k, int count, Vec3* root, Vec3* out) {
  const double z = 0.2 + 0.8 * (k + 0.5) / count;
  const double phi = k * 2.399963;
  const Vec3 dir(std::sqrt(1 - z * z) * std::cos(phi), z, std::sqrt(1 - z * z) * std::sin(phi));
  *root = 0.101 * dir;
  *out = dir;
}

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeWorldScene(int count, int n, double seg,
                                                             bool curly, bool head, int threads,
                                                             double dt) {
  auto world = std::make_unique<StrandWorld>();
  world->set_threads(threads);
  for (int k = 0; k < count; ++k) {
    Vec3 root = Vec3::Zero(), out = Vec3(1, 0, 0);
    if (head) HeadRoot(k, count, &root, &out);
    StrandBodyDesc desc;
    desc.id = absl::StrCat("s", k);
    desc.strand = StrandShape(n, seg, curly, head && !curly, root, out, head ? 2e-5 : 2e-3);
    desc.follow_body = "head";
    desc.friction = 0.2;
    if (absl::Status s = world->AddStrand(desc, HeadMotion(0.0).pose, Vec3(0, -9.81, 0));
        !s.ok()) {
      return s;
    }
  }
  return std::make_unique<WorldStrandScene>(std::move(world), head, dt);
}

// `count` strands of n segments, rooted over the head's upper half (or all at the base
// origin, hanging, without a head).
absl::StatusOr<std::unique_ptr<SteppedScene>> MakeScene(int count, int n, double seg, bool curly,
                                                        bool head) {
  std::vector<StrandSimulation> sims;
  for (int k = 0; k < count; ++k) {
    Vec3 root = Vec3::Zero(), out = Vec3(1, 0, 0);
    if (head) HeadRoot(k, count, &root, &out);
    absl::StatusOr<StrandModel> model = StrandModel::Make(
        StrandShape(n, seg, curly, head && !curly, root, out, head ? 2e-5 : 2e-3));
    if (!model.ok()) return model.status();
    sims.emplace_back(*std::move(model));
  }
  return std::make_unique<StrandScene>(std::move(sims), head);
}

StepBench MakeBench(const std::string& name, int count, int n, double seg, bool curly, bool head,
                    std::optional<double> paper, const std::string& setup) {
  StepBench bench;
  bench.name = "strand/" + name;
  bench.paper = paper;
  if (paper) bench.paper_source = "hadap-oriented-strands section 7, per step at 4 steps/frame";
  bench.setup = setup;
  bench.ours.push_back({"implicit", [=]() { return MakeScene(count, n, seg, curly, head); }});
  if (count > 100) {
    for (int threads : {1, 2}) {
      bench.ours.push_back({absl::StrCat("world-", threads, "thread"),
                            [=]() { return MakeWorldScene(count, n, seg, curly, head, threads, kDt); }});
    }
  }
  bench.settle_steps = 50;
  bench.timed_steps = n >= 1000 || count > 100 ? 200 : 1000;
  bench.quick_timed_steps = n >= 1000 || count > 100 ? 20 : 100;
  bench.chunk_steps = 20;
  return bench;
}

const Registrar kChain100(MakeBench("chain100", 1, 100, 0.01, false, false, std::nullopt,
                                    "1 strand x 100 segments of 1 cm, swinging base"));
const Registrar kChain1000(MakeBench("chain1000", 1, 1000, 0.001, false, false, std::nullopt,
                                     "1 strand x 1000 segments of 1 mm, swinging base"));
const Registrar kBangs(MakeBench("curly_bangs", 9, 15, 0.01, true, true, 62.5,
                                 "9 curly strands x 15 segments on a nodding head sphere"));
// long_hair in real time: one StrandWorld step of a whole 60 Hz frame on two threads, so
// a median under 16.7 ms keeps up with the frame rate.
StepBench MakeRealTimeBench() {
  StepBench bench;
  bench.name = "strand/long_hair_60hz";
  bench.setup = "190 strands x 25 segments on a nodding head sphere, dt = 1/60 s, 2 threads";
  bench.ours.push_back({"world-2thread", []() {
                          return MakeWorldScene(190, 25, 0.02, false, true, 2, 1.0 / 60.0);
                        }});
  bench.settle_steps = 30;
  bench.timed_steps = 200;
  bench.quick_timed_steps = 20;
  bench.chunk_steps = 20;
  return bench;
}

const Registrar kLongHairRealTime(MakeRealTimeBench());
const Registrar kLongHair(MakeBench("long_hair", 190, 25, 0.02, false, true, 5000.0,
                                    "190 strands x 25 segments on a nodding head sphere"));

}  // namespace
}  // namespace ligature::bench
