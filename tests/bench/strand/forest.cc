// strand/forest: trees of branched strands in a uniform wind, stepped through StrandWorld
// on two threads at 60 Hz (one step per 1/60 s frame). Each tree is a trunk with four
// branches (60 segments in all) on a fixed base; the wind (4 m/s along x) bends them
// through their air drag. Sides are forest sizes (100, 300, 1000 trees); the notes give
// the segment count and the cost per segment of the steps timed since the last reset.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/world/strand/strand_world.h"
#include "tests/bench/registry.h"

namespace ligature::bench {
namespace {

constexpr double kDt = 1.0 / 60.0;
constexpr int kTrunk = 24;         // trunk segments
constexpr int kBranches = 4;
constexpr int kBranchLength = 9;   // segments per branch: 24 + 4 x 9 = 60 per tree

// A tree in its base frame: a trunk straight up in 5 cm segments, and branches of 4 cm
// segments leaving it at 40 %, 55 %, 70 % and 85 % of its height, turned a quarter apart,
// rising at 45 degrees.
StrandDesc Tree() {
  StrandDesc d;
  d.points.push_back(Vec3::Zero());
  for (int i = 0; i < kTrunk; ++i) {
    d.points.push_back(Vec3(0, 0.05 * (i + 1), 0));
    d.parents.push_back(i - 1);
  }
  for (int b = 0; b < kBranches; ++b) {
    const int at = kTrunk * (8 + 3 * b) / 20 - 1;  // the trunk segment whose tip it leaves
    const double a = b * 1.5707963;
    const Vec3 dir = Vec3(std::cos(a), 1.0, std::sin(a)).normalized();
    Vec3 p = d.points[at + 1];
    for (int j = 0; j < kBranchLength; ++j) {
      p += 0.04 * dir;
      d.points.push_back(p);
      d.parents.push_back(j == 0 ? at : static_cast<int>(d.parents.size()) - 1);
    }
  }
  StrandMaterial m;
  m.mass_per_length = 0.3;
  m.radius = 0.01;
  m.bend_rigidity_x = m.bend_rigidity_z = 2.0;
  m.twist_rigidity = 2.0;
  m.bend_damping_x = m.bend_damping_z = m.twist_damping = 0.01;
  m.drag = 0.5;
  d.materials = {m};
  return d;
}

class Forest final : public SteppedScene {
 public:
  explicit Forest(std::unique_ptr<StrandWorld> world) : world_(std::move(world)) {
    for (const StrandWorld::Strand& s : world_->strands()) segments_ += s.sim.model().segments();
  }
  void Step() override {
    t_ += kDt;
    const auto start = std::chrono::steady_clock::now();
    world_->Step(t_, kDt, Vec3(0, -9.81, 0), nullptr);
    seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++steps_;
    newton_ = std::max(newton_, world_->last_stats().newton_iterations);
    recovered_ += world_->last_stats().recovered;
  }
  int Contacts() const override { return 0; }
  void ResetSummary() override {
    newton_ = recovered_ = 0;
    steps_ = 0;
    seconds_ = 0.0;
  }
  std::string Notes() const override {
    const double step_ms = steps_ ? 1e3 * seconds_ / steps_ : 0.0;
    return absl::StrCat("trees=", world_->strands().size(), ", segments=", segments_,
                        ", threads=", world_->threads(), ", step_ms=", step_ms,
                        ", us_per_segment=", segments_ ? 1e3 * step_ms / segments_ : 0.0,
                        ", max_newton_iterations=", newton_, ", recovered=", recovered_,
                        ", dt=", kDt);
  }

 private:
  std::unique_ptr<StrandWorld> world_;
  int segments_ = 0;
  double t_ = 0.0;
  int newton_ = 0;
  int recovered_ = 0;
  long steps_ = 0;
  double seconds_ = 0.0;
};

// `trees` trees on a square grid 1 m apart, in a 4 m/s wind along x.
absl::StatusOr<std::unique_ptr<SteppedScene>> MakeForest(int trees) {
  auto world = std::make_unique<StrandWorld>();
  world->set_threads(2);
  const int side = static_cast<int>(std::ceil(std::sqrt(trees)));
  const StrandDesc tree = Tree();
  for (int k = 0; k < trees; ++k) {
    StrandBodyDesc desc;
    desc.id = absl::StrCat("tree", k);
    desc.strand = tree;
    desc.pose.position = Vec3(k % side, 0, k / side);
    desc.wind = Vec3(4.0, 0, 0);
    if (absl::Status s = world->AddStrand(desc, desc.pose, Vec3(0, -9.81, 0)); !s.ok()) return s;
  }
  return std::make_unique<Forest>(std::move(world));
}

StepBench MakeForestBench() {
  StepBench bench;
  bench.name = "strand/forest";
  bench.setup = "trees of 60 segments (trunk + 4 branches) in a 4 m/s wind, 2 threads, 60 Hz";
  for (int trees : {100, 300, 1000}) {
    bench.ours.push_back({absl::StrCat("trees", trees), [=]() { return MakeForest(trees); }});
  }
  bench.settle_steps = 20;
  bench.timed_steps = 60;
  bench.quick_timed_steps = 6;
  bench.chunk_steps = 6;
  return bench;
}

const Registrar kForest(MakeForestBench());

}  // namespace
}  // namespace ligature::bench
