#pragma once
// The scene and rays of query/raycast_mesh, as plain data every side builds its own copy
// from: a static terrain of triangles (body 0) and solid spheres and boxes (bodies 1..n),
// a fixed set of rays, and the nearest hit each side found per ray.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "server/math/transform.h"
#include "server/math/types.h"

namespace ligature::bench {

// A sphere (radius) or a box (half extents) at a pose.
struct RaySolid {
  bool is_box = false;
  Transform pose;
  double radius = 0.0;       // sphere (m)
  Vec3 half = Vec3::Zero();  // box (m)
};

struct RayScene {
  // The terrain: a grid of cells facing +Y, three indices per triangle, counter-clockwise
  // seen from above (the front).
  std::vector<Vec3> vertices;
  std::vector<uint32_t> indices;
  int cells = 0;                 // per side
  double cell = 0.0;             // m
  double max_height = 0.0;       // m: the terrain lies within +-max_height
  std::vector<RaySolid> solids;  // body k + 1
};

// The terrain of `cells` x `cells` cells of `cell` m centred on the origin, with smooth
// deterministic bumps, and 1,000 solids (spheres and boxes alternating) on a jittered grid
// in two layers above it, none touching another or the terrain; fixed seed.
RayScene MakeRayScene(int cells, double cell);

struct RaySet {
  std::vector<Vec3> origins;
  std::vector<Vec3> directions;  // unit
  double max_distance = 0.0;     // m
  int down_percent = 0;          // share of directions turned to point downwards
};

// `count` rays: origins uniform in the box over the terrain from just above its highest
// point to 12 m, outside every solid (so that each side's first hit is an entry from
// outside); directions uniform on the sphere, then 75% turned to point downwards; fixed
// seed.
RaySet MakeRays(const RayScene& scene, int count, double max_distance);

// One ray's nearest hit: the body (0 the terrain, k + 1 solid k) and the distance, or
// body -1 for a miss.
struct RayAnswer {
  int body = -1;
  double distance = 0.0;  // m
};

// One side of the benchmark, built outside the timed region.
class RayCaster {
 public:
  virtual ~RayCaster() = default;
  // One timed batch: what this side redoes for every published frame, then every ray's
  // nearest hit into `answers` (sized by the caller).
  virtual void Batch(const RaySet& rays, std::vector<RayAnswer>* answers) = 0;
  // What this side ran, for the notes (set up untimed, redone per batch, per ray).
  virtual std::string Notes() const = 0;
};

// How a peer's answers compare with ours, ray by ray.
struct RayAgreement {
  int rays = 0;
  int agree = 0;       // same hit or miss and, for a hit, distances within `tolerance`
  int near = 0;        // else the peer hit a solid where its point lies within
                       // `surface_tolerance` of that solid's surface, ours hitting nothing
                       // nearer (a peer whose ray cast stops within a tolerance of a surface)
  int hit_miss = 0;    // neither, and one side hit where the other missed
  int distance = 0;    // neither, both hit
  int other_body = 0;  // agreeing, on another body at the same distance
  double max_difference = 0.0;  // m: the largest distance difference among agreeing hits
  double max_near = 0.0;        // m: the largest distance difference among near hits

  std::vector<int> disagreeing;  // the rays counted in neither

  int disagree() const { return rays - agree - near; }
};
RayAgreement CompareAnswers(const RayScene& scene, const RaySet& rays,
                            const std::vector<RayAnswer>& ours, const std::vector<RayAnswer>& peer,
                            double tolerance, double surface_tolerance);

}  // namespace ligature::bench
