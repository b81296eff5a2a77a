// query/raycast_mesh: nearest-hit ray casts against a static terrain of 100,352 triangles
// (224 x 224 cells of 0.5 m) and 1,000 solids above it (500 spheres, 500 boxes), 100,000
// incoherent rays, in rays per second on one thread. Ours (SceneQuery::RaycastClosest)
// against Bullet 3.24's rayTest and against Intel Embree 3's rtcIntersect1, the floor.
// Every side casts the same rays at the same scene; a batch is what each redoes per
// published frame (ours: a fresh SceneQuery, whose tree over the bodies is built at its
// first ray) and then every ray. Batches are interleaved (ours, Bullet, Embree, ...) after
// one untimed batch each. The sides must agree ray by ray (same hit or miss, distances
// within 1e-4 m, as Bullet and Embree are single precision; Bullet's convex ray casts
// within its own 1 cm, see Run); more than 0.1% of rays in disagreement with Embree, or
// 0.5% with Bullet, fails the run. --quick: 10,000 rays over 112 x 112 cells of 1 m.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "server/model/rigid/triangle_mesh_builder.h"
#include "server/world/query/query_shapes.h"
#include "server/world/query/scene_query.h"
#include "server/world/world.h"
#include "tests/bench/json_line.h"
#include "tests/bench/peers/bullet_rays.h"
#include "tests/bench/peers/bullet_scene.h"
#include "tests/bench/peers/embree_rays.h"
#include "tests/bench/query/ray_scene.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "query/raycast_mesh";
constexpr double kMaxDistance = 100.0;           // m
constexpr double kTolerance = 1e-4;              // m: distances of a hit agree within this
constexpr double kMaxDisagree = 1e-3;            // the share of rays in disagreement that fails
constexpr double kBulletMaxDisagree = 5e-3;      // the same for Bullet: see Run
constexpr double kBulletConvexTolerance = 0.01;  // m: see Run
constexpr double kBulletTarget = 1.0;            // ours / Bullet in rays per second
constexpr double kEmbreeTarget = 0.3;            // ours / Embree in rays per second

using Clock = std::chrono::steady_clock;

std::string Format(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.4g", value);
  return buf;
}

// Our side: a World from the scene and its one frame, both untimed; a batch is a fresh
// SceneQuery and RaycastClosest per ray.
class OurRays : public RayCaster {
 public:
  static absl::StatusOr<std::unique_ptr<OurRays>> Make(const RayScene& scene) {
    absl::StatusOr<std::shared_ptr<const TriangleMesh>> mesh =
        BuildTriangleMesh(scene.vertices, scene.indices);
    if (!mesh.ok()) return mesh.status();
    SceneDesc desc;
    desc.settings.gravity = Vec3::Zero();
    BodyDesc terrain;
    terrain.id = "terrain";
    terrain.kind = BodyKind::kStatic;
    terrain.rigid()->shape = Shape::Mesh(*mesh);
    desc.bodies.push_back(terrain);
    for (size_t k = 0; k < scene.solids.size(); ++k) {
      const RaySolid& s = scene.solids[k];
      BodyDesc body;
      body.id = absl::StrCat("solid", k);
      body.kind = BodyKind::kStatic;
      body.rigid()->shape = s.is_box ? Shape::Box(s.half) : Shape::Sphere(s.radius);
      body.rigid()->pose = s.pose;
      desc.bodies.push_back(body);
    }
    absl::StatusOr<std::unique_ptr<World>> world =
        World::FromScene("worlds/raycast_mesh", desc, WorldLimits{});
    if (!world.ok()) return world.status();
    auto ours = std::unique_ptr<OurRays>(new OurRays());
    ours->frame_ = std::make_shared<const Frame>((*world)->MakeFrame());
    ours->shapes_ = std::make_shared<const QueryShapes>(BuildQueryShapes(**world));
    // Frame body index -> scene body (0 the terrain, k + 1 solid k), by id.
    const std::vector<BodyState>& bodies = ours->frame_->bodies;
    ours->body_of_.assign(bodies.size(), -1);
    for (size_t b = 0; b < bodies.size(); ++b) {
      if (bodies[b].id == "terrain") ours->body_of_[b] = 0;
      if (bodies[b].id.rfind("solid", 0) == 0) {
        ours->body_of_[b] = std::stoi(bodies[b].id.substr(5)) + 1;
      }
    }
    ours->MeasureTreeBuild();
    return ours;
  }

  void Batch(const RaySet& rays, std::vector<RayAnswer>* answers) override {
    const SceneQuery query(frame_, shapes_);
    for (size_t i = 0; i < rays.origins.size(); ++i) {
      const std::optional<QueryHit> hit =
          query.RaycastClosest(rays.origins[i], rays.directions[i], rays.max_distance, filter_);
      (*answers)[i] = hit ? RayAnswer{body_of_[hit->body], hit->distance} : RayAnswer{};
    }
  }

  std::string Notes() const override {
    return absl::StrCat(
        "ours: a World from the scene, its frame (MakeFrame) and BuildQueryShapes untimed, the "
        "terrain's triangle tree built once with the mesh (BuildTriangleMesh) untimed; per "
        "batch a fresh SceneQuery (its tree over the bodies built at the first ray, ~",
        Format(tree_ms_), " ms) then RaycastClosest per ray, double precision");
  }

 private:
  OurRays() = default;

  // The cost of a fresh query's tree: the median of a few first rays (straight up from far
  // above everything, so that the ray itself costs next to nothing).
  void MeasureTreeBuild() {
    std::vector<double> ms;
    for (int k = 0; k < 5; ++k) {
      const SceneQuery query(frame_, shapes_);
      const Clock::time_point t0 = Clock::now();
      query.RaycastClosest(Vec3(0.0, 1e4, 0.0), Vec3::UnitY(), 1.0, filter_);
      ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    }
    tree_ms_ = Median(ms);
  }

  std::shared_ptr<const Frame> frame_;
  std::shared_ptr<const QueryShapes> shapes_;
  std::vector<int> body_of_;
  QueryFilter filter_;
  double tree_ms_ = 0.0;
};

// One side: its caster, the seconds of each timed batch and its last answers.
struct Side {
  std::string label;
  std::unique_ptr<RayCaster> caster;
  std::string error;
  std::vector<double> seconds;
  std::vector<RayAnswer> answers;
};

void RunBatch(Side& side, const RaySet& rays, bool record) {
  if (side.caster == nullptr) return;
  side.answers.assign(rays.origins.size(), RayAnswer{});
  const Clock::time_point t0 = Clock::now();
  side.caster->Batch(rays, &side.answers);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (record) side.seconds.push_back(s);
}

// Rays per second of the median batch, and of the 99th-percentile (slow) batch.
std::optional<double> MedianRate(const Side& side, size_t rays) {
  if (side.seconds.empty()) return std::nullopt;
  return rays / Median(side.seconds);
}
std::optional<double> SlowRate(const Side& side, size_t rays) {
  if (side.seconds.empty()) return std::nullopt;
  return rays / Percentile(side.seconds, 99.0);
}

// Hits of a side's answers: on the terrain, on a solid.
std::string HitCounts(const std::vector<RayAnswer>& answers) {
  int terrain = 0, solids = 0;
  for (const RayAnswer& a : answers) {
    terrain += a.body == 0 ? 1 : 0;
    solids += a.body > 0 ? 1 : 0;
  }
  return absl::StrCat("terrain=", terrain, " solids=", solids,
                      " misses=", answers.size() - terrain - solids);
}

std::string AgreementNotes(const RayAgreement& a, double surface_tolerance) {
  std::string notes = absl::StrCat(
      "agreement with ours: ", a.agree, "/", a.rays, " rays same hit or miss and distance within ",
      Format(kTolerance), " m (largest difference ", Format(a.max_difference),
      " m, same "
      "distance on another body ",
      a.other_body, ")");
  if (surface_tolerance > 0.0) {
    absl::StrAppend(&notes, ", ", a.near, " more where the peer's hit point lies within ",
                    Format(surface_tolerance),
                    " m of the solid it names and ours has nothing "
                    "nearer (its distance up to ",
                    Format(a.max_near), " m shorter)");
  }
  absl::StrAppend(&notes, ", disagreeing ", a.disagree(), " (hit vs miss ", a.hit_miss,
                  ", distance ", a.distance, ")");
  return notes;
}

// count / total, or nothing without a total.
std::optional<double> Share(int count, int total) {
  if (total <= 0) return std::nullopt;
  return static_cast<double>(count) / total;
}

// One line: ours against `peer`, ratio ours / peer in rays per second (above 1: faster).
std::string FormatLine(const RayScene& scene, const RaySet& rays, const Side& ours,
                       const Side& peer, double target, const RayAgreement& agreement,
                       double surface_tolerance, const std::string& extra) {
  const size_t n = rays.origins.size();
  const std::optional<double> median = MedianRate(ours, n);
  const std::optional<double> peer_median = MedianRate(peer, n);
  std::optional<double> ratio;
  if (median && peer_median && *peer_median > 0.0) ratio = *median / *peer_median;
  const int bodies = static_cast<int>(scene.solids.size());
  std::string notes = absl::StrCat(
      "rays per second on one thread, higher is better, ratio = ours/peer (target >= ",
      Format(target),
      "); p99 = the rate of the 99th-percentile (slowest) batch; scene: a "
      "terrain of ",
      scene.indices.size() / 3, " triangles (", scene.cells, " x ", scene.cells, " cells of ",
      Format(scene.cell), " m, bumps within +-", Format(scene.max_height), " m, fronts up) and ",
      bodies, " solids (", bodies / 2, " spheres r 0.3-1 m, ", bodies - bodies / 2,
      " boxes of half extents 0.2-0.8 m at random orientations) in two "
      "layers 2.6-10.4 m up; ",
      n, " rays from random points over the terrain between ", Format(scene.max_height + 0.3),
      " and 12 m, outside every solid, directions uniform on "
      "the sphere with ",
      rays.down_percent, "% turned downwards, max ", Format(kMaxDistance), " m; hits ours ",
      HitCounts(ours.answers), ", peer ", HitCounts(peer.answers), "; ",
      AgreementNotes(agreement, surface_tolerance));
  if (ours.caster) absl::StrAppend(&notes, "; ", ours.caster->Notes());
  if (peer.caster) absl::StrAppend(&notes, "; ", peer.caster->Notes());
  if (const std::optional<double> slow = SlowRate(peer, n)) {
    absl::StrAppend(&notes, "; peer p99=", Format(*slow), " rays/s n=", peer.seconds.size());
  }
  absl::StrAppend(&notes,
                  "; interleaved batches (ours, bullet, embree) after one untimed "
                  "batch each");
  if (!extra.empty()) absl::StrAppend(&notes, "; ", extra);
  if (!ours.error.empty()) absl::StrAppend(&notes, "; ours failed: ", ours.error);
  if (!peer.error.empty()) absl::StrAppend(&notes, "; peer failed: ", peer.error);

  JsonLine line;
  line.String("bench", kName)
      .String("metric", "rays_per_s")
      .Number("median", median)
      .Number("p99", SlowRate(ours, n))
      .Integer("n", static_cast<long long>(ours.seconds.size()))
      .Number("paper", std::nullopt)
      .String("peer", peer.label)
      .Number("peer_median", peer_median)
      .Number("ratio", ratio)
      .Number("target", target)
      .Number("agree_exact", Share(agreement.agree, agreement.rays))
      .Number("agree_near", Share(agreement.near, agreement.rays))
      .String("notes", notes);
  return line.Finish();
}

RunResult Run(const RunOptions& options) {
  const int cells = options.quick ? 112 : 224;
  const double cell = options.quick ? 1.0 : 0.5;
  const int count = options.quick ? 10000 : 100000;
  const int batches = options.quick ? 3 : 7;
  const RayScene scene = MakeRayScene(cells, cell);
  const RaySet rays = MakeRays(scene, count, kMaxDistance);
  std::fprintf(stderr, "[%s] %zu triangles, %zu solids, %d rays, %d batches per side\n", kName,
               scene.indices.size() / 3, scene.solids.size(), count, batches);

  // Every side built untimed, then one untimed batch each, then interleaved timed batches.
  Side ours, bullet, embree;
  ours.label = "ours";
  bullet.label = BulletPeerName();
  embree.label = EmbreePeerName();
  absl::StatusOr<std::unique_ptr<OurRays>> our_rays = OurRays::Make(scene);
  if (our_rays.ok()) {
    ours.caster = *std::move(our_rays);
  } else {
    ours.error = std::string(our_rays.status().message());
  }
  bullet.caster = MakeBulletRays(scene);
  absl::StatusOr<std::unique_ptr<RayCaster>> embree_rays = MakeEmbreeRays(scene);
  if (embree_rays.ok()) {
    embree.caster = *std::move(embree_rays);
  } else {
    embree.error = std::string(embree_rays.status().message());
  }
  std::vector<Side*> sides = {&ours, &bullet};
  if (EmbreePeerAvailable()) sides.push_back(&embree);
  for (Side* side : sides) RunBatch(*side, rays, false);
  for (int b = 0; b < batches; ++b) {
    for (Side* side : sides) RunBatch(*side, rays, true);
  }

  // Agreement ray by ray with ours; more disagreement than a peer's allowed share fails the
  // run, loudly.
  RunResult result;
  result.ok = ours.error.empty();
  struct Peer {
    Side* side;
    double target;
    double surface_tolerance;  // m: see RayAgreement::near
    double max_disagree;       // the share of rays in disagreement that fails the run
  };
  // Bullet casts a ray at a convex shape by its sub-simplex convex cast, which stops once
  // within 1 cm of the surface (a squared distance of 1e-4 m^2): its hits on the spheres
  // and boxes come early by up to a few cm, and grazing rays may hit a solid they pass
  // within 1 cm of; such hits are counted apart. The same cast also gives up on a few
  // grazing rays with a hit far from any surface (0.2% of these rays): Bullet is allowed
  // 0.5% of disagreeing rays, and Embree, where present, says who is right on them.
  std::vector<Peer> peers = {{&bullet, kBulletTarget, kBulletConvexTolerance, kBulletMaxDisagree}};
  if (EmbreePeerAvailable()) peers.push_back({&embree, kEmbreeTarget, 0.0, kMaxDisagree});
  std::optional<RayAgreement> embree_agreement;
  if (EmbreePeerAvailable() && embree.error.empty()) {
    embree_agreement = CompareAnswers(scene, rays, ours.answers, embree.answers, kTolerance, 0.0);
  }
  for (const Peer& p : peers) {
    Side* const peer = p.side;
    const RayAgreement agreement =
        CompareAnswers(scene, rays, ours.answers, peer->answers, kTolerance, p.surface_tolerance);
    const bool agrees =
        agreement.rays == count && agreement.disagree() <= p.max_disagree * agreement.rays;
    std::string extra =
        absl::StrCat("allowed disagreement ", Format(100.0 * p.max_disagree), "% of the rays");
    if (peer == &bullet && embree_agreement && agreement.disagree() > 0) {
      // Of the rays Bullet disagrees on, those where Embree answers as ours does.
      const std::vector<int>& embree_off = embree_agreement->disagreeing;
      int with_ours = 0;
      for (const int ray : agreement.disagreeing) {
        with_ours += std::binary_search(embree_off.begin(), embree_off.end(), ray) ? 0 : 1;
      }
      absl::StrAppend(&extra, "; on the ", agreement.disagree(),
                      " rays bullet disagrees on, "
                      "embree answers as ours on ",
                      with_ours);
    }
    if (!agrees) {
      absl::StrAppend(&extra, "; SIDES DISAGREE on more than ", Format(100.0 * p.max_disagree),
                      "% of the rays: not at equal work");
      result.ok = false;
    }
    if (!peer->error.empty()) result.ok = false;
    if (peer == &bullet && !EmbreePeerAvailable()) {
      absl::StrAppend(&extra, "; no embree line: this build has no Embree (libembree-dev)");
    }
    std::fprintf(stderr, "[%s] %s: %s; %s\n", kName, peer->label.c_str(),
                 AgreementNotes(agreement, p.surface_tolerance).c_str(), extra.c_str());
    result.json_lines.push_back(
        FormatLine(scene, rays, ours, *peer, p.target, agreement, p.surface_tolerance, extra));
  }
  for (const Side* side : sides) {
    if (!side->seconds.empty()) {
      std::fprintf(stderr, "[%s] %s: median %s rays/s\n", kName, side->label.c_str(),
                   Format(side->seconds.size() ? count / Median(side->seconds) : 0).c_str());
    }
  }
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
