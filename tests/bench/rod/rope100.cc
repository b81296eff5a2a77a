// rod/rope100: a 2 m rope of 100 nodes and 0.1 kg, pinned at both ends 1.8 m apart at the
// same height and hanging under gravity, dt = 1 ms. Ours is one rod of 100 control points
// held by two position constraints in a World of its own, stepped by World::Step (the whole
// world step, as Bullet's stepSimulation steps its whole world); the peer is Bullet's
// soft-body rope.
// Both are settled, then timed step by step in interleaved chunks. Besides the step time
// the line reports how well each side keeps the rope's length and how far it sags compared
// with the inextensible catenary (at the end, and the mid-span sag's range over the timed
// chunks, which shows whether a side stayed settled), and a check: ours stretches less
// than 0.1 %, sags within 1 % of the catenary and costs no more per step than the peer.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <numbers>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "server/world/world.h"
#include "tests/bench/json_line.h"
#include "tests/bench/peers/bullet_rope.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "rod/rope100";
constexpr char kRodId[] = "rope";
constexpr double kLength = 2.0;  // m, rest length
constexpr double kSpan = 1.8;    // m, between the two holds
constexpr int kNodes = 100;
constexpr double kMass = 0.1;  // kg
constexpr double kDt = 0.001;  // s
constexpr int kSettleSteps = 3000;
constexpr int kTimedSteps = 2000;
constexpr int kQuickTimedSteps = 200;
constexpr int kChunkSteps = 100;
// The check's limits.
constexpr double kMaxStretch = 1e-3;   // relative length change
constexpr double kMaxSagError = 0.01;  // relative to the catenary's sag
const Vec3 kGravity(0.0, -9.81, 0.0);

using Clock = std::chrono::steady_clock;

// Sag of the inextensible catenary of `length` hung between two points `span` apart at the
// same height: the catenary parameter a solves 2 a sinh(span / 2a) = length (bisection in
// log a), and the sag is a (cosh(span / 2a) - 1).
double CatenarySag(double length, double span) {
  double lo = 1e-6;
  double hi = 1e6;
  for (int i = 0; i < 200; ++i) {
    const double a = std::sqrt(lo * hi);
    if (2.0 * a * std::sinh(span / (2.0 * a)) > length) {
      lo = a;
    } else {
      hi = a;
    }
  }
  const double a = std::sqrt(lo * hi);
  return a * (std::cosh(span / (2.0 * a)) - 1.0);
}

// Our rope: one rod laid as a shallow V whose two legs add up to the rest length, so both
// holds are met from the first step, in a world of its own (nothing else in it).
class OurRope {
 public:
  // The rod and its two holds. The material: a 0.2 mm steel-stiff wire whose density makes
  // the rod weigh kMass; mass-proportional damping lets it settle.
  absl::Status Build() {
    RodMaterial material;
    material.radius = 0.0002;
    const double area = std::numbers::pi * material.radius * material.radius;
    material.density = kMass / (area * kLength);
    material.young = 1.0e11;
    material.shear = 4.0e10;
    material.damping = 2.0;

    // The V: two legs of length / 2 from the holds down to the mid-span point.
    BodyDesc body;
    body.id = kRodId;
    RodDesc& rope = body.body.emplace<RodDesc>();
    const double half = 0.5 * kSpan;
    const double depth = std::sqrt(0.25 * kLength * kLength - half * half);
    rope.points = {Vec3(0, 0, 0), Vec3(half, -depth, 0), Vec3(kSpan, 0, 0)};
    rope.control_points = kNodes;
    rope.material = material;
    SceneDesc scene;
    scene.settings.rate_hz = 1.0 / kDt;
    scene.settings.gravity = kGravity;
    scene.bodies.push_back(body);
    absl::StatusOr<std::unique_ptr<World>> world = World::FromScene("rope", scene, WorldLimits{});
    if (!world.ok()) return world.status();
    world_ = std::move(*world);
    length_ = rods().FindRod(kRodId)->model.length();

    // The two holds, at u = 0 and u = length.
    if (absl::Status s = AddHold("left", 0.0, Vec3(0, 0, 0)); !s.ok()) return s;
    return AddHold("right", length_, Vec3(kSpan, 0, 0));
  }

  // One world step of dt, counting the steps whose rod solve failed.
  void Step() {
    world_->Step();
    if (rods().last_stats().solve_failed) ++failed_steps_;
  }

  // Current arc length (Gauss quadrature of |x'|) over the rest length, minus one.
  double Stretch() const {
    const RodWorld::Rod* rod = rods().FindRod(kRodId);
    double length = 0.0;
    for (const RodQuadrature& q : rod->model.quadrature()) {
      length += q.weight * rod->state.Tangent(q.basis).norm();
    }
    return length / length_ - 1.0;
  }

  // Drop of the rod point at u = length / 2 below the holds (at y = 0).
  double MidSag() const {
    const RodWorld::Rod* rod = rods().FindRod(kRodId);
    return -rod->state.Position(rod->model.spline().Sample(0.5 * length_)).y();
  }

  double mass() const { return rods().FindRod(kRodId)->model.mass(); }
  const RodStepStats& last_stats() const { return rods().last_stats(); }
  int failed_steps() const { return failed_steps_; }

 private:
  const RodWorld& rods() const { return world_->rods(); }

  // Holds the rod point at `u` at `target`.
  absl::Status AddHold(const std::string& id, double u, const Vec3& target) {
    ConstraintDesc desc;
    desc.id = id;
    RodConstraintDesc& hold = desc.rod.emplace();
    hold.id = id;
    hold.kind = RodConstraintKind::kPosition;
    hold.a = {kRodId, u};
    hold.target = target;
    return world_->AddConstraint(desc).status();
  }

  std::unique_ptr<World> world_;
  double length_ = 0.0;
  int failed_steps_ = 0;
};

// Times `steps` consecutive steps of `rope`, one clock sample around each (ms).
template <typename Rope>
void TimeChunk(Rope& rope, int steps, std::vector<double>* ms) {
  for (int i = 0; i < steps; ++i) {
    const Clock::time_point t0 = Clock::now();
    rope.Step();
    const Clock::time_point t1 = Clock::now();
    ms->push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
}

// Four significant digits for the notes.
std::string Format(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", value);
  return buf;
}

// The result line; `ours_ms` or `peer_ms` may be empty when a side failed.
std::string FormatLine(const std::vector<double>& ours_ms, const std::vector<double>& peer_ms,
                       const std::string& notes) {
  std::optional<double> median, p99, peer_median, ratio;
  if (!ours_ms.empty()) {
    median = Median(ours_ms);
    p99 = Percentile(ours_ms, 99.0);
  }
  if (!peer_ms.empty()) peer_median = Median(peer_ms);
  if (median && peer_median && *peer_median > 0.0) ratio = *median / *peer_median;
  JsonLine line;
  line.String("bench", kName)
      .String("metric", "step_ms")
      .Number("median", median)
      .Number("p99", p99)
      .Integer("n", static_cast<long long>(ours_ms.size()))
      .Number("paper", std::nullopt)
      .String("peer", BulletPeerName())
      .Number("peer_median", peer_median)
      .Number("ratio", ratio)
      .String("notes", notes);
  return line.Finish();
}

RunResult Run(const RunOptions& options) {
  const Clock::time_point start = Clock::now();
  const int target = options.quick ? kQuickTimedSteps : kTimedSteps;
  RunResult result;

  // Both ropes from the same figures.
  OurRope ours;
  if (absl::Status s = ours.Build(); !s.ok()) {
    result.json_lines.push_back(
        FormatLine({}, {}, "ours failed: " + std::string(s.message())));
    result.ok = false;
    return result;
  }
  BulletRopeSpec spec;
  spec.length = kLength;
  spec.span = kSpan;
  spec.nodes = kNodes;
  spec.mass = kMass;
  spec.dt = kDt;
  spec.gravity = kGravity;
  BulletRope peer(spec);

  // Settling, untimed, then interleaved chunks (ours, then the peer) until each side has its
  // count or, with --quick, the time budget is spent.
  std::fprintf(stderr, "[%s] settling %d steps on 2 sides\n", kName, kSettleSteps);
  for (int i = 0; i < kSettleSteps; ++i) ours.Step();
  for (int i = 0; i < kSettleSteps; ++i) peer.Step();
  const int failed_while_settling = ours.failed_steps();
  // Each side's mid-span sag is also sampled after every chunk, untimed, to show whether
  // it stays settled while timed.
  std::vector<double> ours_ms, peer_ms;
  std::vector<double> ours_sags, peer_sags;
  bool budget_hit = false;
  while (static_cast<int>(ours_ms.size()) < target) {
    const int chunk = std::min(kChunkSteps, target - static_cast<int>(ours_ms.size()));
    TimeChunk(ours, chunk, &ours_ms);
    TimeChunk(peer, chunk, &peer_ms);
    ours_sags.push_back(ours.MidSag());
    peer_sags.push_back(peer.MidSag());
    if (options.quick &&
        std::chrono::duration<double>(Clock::now() - start).count() > options.quick_budget_s) {
      budget_hit = static_cast<int>(ours_ms.size()) < target;
      break;
    }
  }

  // The shapes both sides settled to, against the inextensible catenary.
  const double catenary = CatenarySag(kLength, kSpan);
  const double ours_stretch = ours.Stretch();
  const double ours_sag = ours.MidSag();
  const double peer_stretch = peer.Stretch();
  const double peer_sag = peer.MidSag();
  const double ratio = Median(ours_ms) / Median(peer_ms);

  // The check: each failed part is named.
  std::vector<std::string> failed;
  if (!(std::abs(ours_stretch) < kMaxStretch)) failed.push_back("stretch");
  if (!(std::abs(ours_sag - catenary) <= kMaxSagError * catenary)) failed.push_back("sag");
  if (!(ratio <= 1.0)) failed.push_back("speed");
  if (ours.failed_steps() > 0) failed.push_back("solve");
  std::string check = "PASS";
  if (!failed.empty()) {
    check = "FAIL:" + failed.front();
    for (size_t i = 1; i < failed.size(); ++i) absl::StrAppend(&check, "+", failed[i]);
  }

  // Notes: the scene, both shapes, our solver's figures, the peer's settings, the protocol.
  const RodStepStats& stats = ours.last_stats();
  std::string notes = absl::StrCat(
      "ours=World::Step (a world of the rope alone), peer=btSoftRigidDynamicsWorld::stepSimulation, dt=", Format(kDt), ", nodes=", kNodes, ", mass=", Format(kMass), ", length=",
      Format(kLength), ", span=", Format(kSpan), ", ours_stretch=", Format(ours_stretch),
      ", ours_sag=", Format(ours_sag), ", peer_stretch=", Format(peer_stretch),
      ", peer_sag=", Format(peer_sag), ", catenary_sag=", Format(catenary),
      ", ours_sag_min=", Format(*std::min_element(ours_sags.begin(), ours_sags.end())),
      ", ours_sag_max=", Format(*std::max_element(ours_sags.begin(), ours_sags.end())),
      ", peer_sag_min=", Format(*std::min_element(peer_sags.begin(), peer_sags.end())),
      ", peer_sag_max=", Format(*std::max_element(peer_sags.begin(), peer_sags.end())),
      ", ours_max_violation=", Format(stats.max_violation), ", ours_unknowns=", stats.unknowns,
      ", ours_bandwidth=", stats.bandwidth, ", ours_newton_steps=", stats.newton_steps,
      ", ours_mass=", Format(ours.mass()), ", ours_material=r 0.2 mm E 1e11 G 4e10 damping 2/s");
  absl::StrAppend(&notes, ", peer_piterations=", peer.position_iterations(),
                  ", peer_viterations=", peer.velocity_iterations(),
                  ", peer_kLST=", Format(peer.link_stiffness()),
                  ", peer_kDP=", Format(peer.damping()),
                  ", peer_node_mass=", Format(peer.node_mass()),
                  ", peer_layout=straight 2 m then last node moved in to the span",
                  ", peer_p99=", Format(Percentile(peer_ms, 99.0)), ", peer_n=", peer_ms.size(),
                  ", check=", check, ", settle_steps=", kSettleSteps,
                  ", chunk_steps=", kChunkSteps);
  if (budget_hit) absl::StrAppend(&notes, ", stopped_early=quick time budget");
  if (ours.failed_steps() > 0) {
    absl::StrAppend(&notes, ", ours_failed_steps=", ours.failed_steps(),
                    " (settling ", failed_while_settling, ")");
  }

  // Verdict on the progress stream, the line on stdout.
  std::fprintf(stderr,
               "[%s] %s: ours stretch %.3g (< %.3g), sag %.4f m vs catenary %.4f m "
               "(within %.0f%%), step %.4g ms vs %s %.4g ms (ratio %.3g <= 1)\n",
               kName, check.c_str(), ours_stretch, kMaxStretch, ours_sag, catenary,
               100.0 * kMaxSagError, Median(ours_ms), BulletPeerName().c_str(),
               Median(peer_ms), ratio);
  result.json_lines.push_back(FormatLine(ours_ms, peer_ms, notes));
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
