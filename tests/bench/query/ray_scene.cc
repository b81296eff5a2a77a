#include "tests/bench/query/ray_scene.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace ligature::bench {
namespace {

// The solids' grid: kGridX x kGridZ columns, two layers, one solid a slot.
constexpr int kGridX = 25;
constexpr int kGridZ = 20;
constexpr double kLayerY[2] = {4.5, 9.0};  // m: slot centres
constexpr double kJitterXz = 0.8;          // m, each way
constexpr double kJitterY = 0.5;           // m, each way
constexpr double kTopY = 12.0;             // m: highest ray origin

// The terrain's height at (x, z): a few smooth waves of different lengths, within +-1.3 m.
double Height(double x, double z) {
  return 0.8 * std::sin(0.21 * x) * std::cos(0.17 * z) + 0.35 * std::sin(0.9 * x + 0.6 * z) +
         0.15 * std::cos(1.7 * z - 0.4 * x);
}

// Whether `p` lies inside `solid` grown by `margin`.
bool Inside(const RaySolid& solid, const Vec3& p, double margin) {
  const double reach = (solid.is_box ? solid.half.norm() : solid.radius) + margin;
  if ((p - solid.pose.position).squaredNorm() > reach * reach) return false;
  const Vec3 local = solid.pose.InverseApply(p);
  if (!solid.is_box) return local.norm() <= solid.radius + margin;
  return (local.cwiseAbs() - solid.half).maxCoeff() <= margin;
}

}  // namespace

RayScene MakeRayScene(int cells, double cell) {
  RayScene scene;
  scene.cells = cells;
  scene.cell = cell;
  scene.max_height = 1.3;
  // Vertex (i, j) at i (cells + 1) + j, x growing with i and z with j; two triangles a
  // cell, diagonals alternating, each counter-clockwise seen from +Y.
  const double origin = -0.5 * cells * cell;
  for (int i = 0; i <= cells; ++i) {
    for (int j = 0; j <= cells; ++j) {
      const double x = origin + i * cell, z = origin + j * cell;
      scene.vertices.emplace_back(x, Height(x, z), z);
    }
  }
  const auto at = [cells](int i, int j) { return static_cast<uint32_t>(i * (cells + 1) + j); };
  for (int i = 0; i < cells; ++i) {
    for (int j = 0; j < cells; ++j) {
      const uint32_t v00 = at(i, j), v10 = at(i + 1, j), v01 = at(i, j + 1);
      const uint32_t v11 = at(i + 1, j + 1);
      if ((i + j) % 2 == 0) {
        scene.indices.insert(scene.indices.end(), {v00, v01, v10, v10, v01, v11});
      } else {
        scene.indices.insert(scene.indices.end(), {v00, v11, v10, v00, v01, v11});
      }
    }
  }

  // One solid per slot of the grid over the terrain, spheres and boxes alternating; the
  // largest (a box of half extents 0.8 m, reaching 1.39 m from its centre) keeps clear of
  // its neighbours (slots 4.5 m apart, jitter 0.8 m) and of the terrain (1.3 m high, the
  // lowest centre at 4 m).
  std::mt19937 rng(20240917);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const auto in = [&](double lo, double hi) { return lo + (hi - lo) * unit(rng); };
  const double width = cells * cell;
  for (int layer = 0; layer < 2; ++layer) {
    for (int gx = 0; gx < kGridX; ++gx) {
      for (int gz = 0; gz < kGridZ; ++gz) {
        RaySolid solid;
        solid.is_box = scene.solids.size() % 2 == 1;
        solid.pose.position =
            Vec3(-0.5 * width + (gx + 0.5) * width / kGridX + in(-kJitterXz, kJitterXz),
                 kLayerY[layer] + in(-kJitterY, kJitterY),
                 -0.5 * width + (gz + 0.5) * width / kGridZ + in(-kJitterXz, kJitterXz));
        if (solid.is_box) {
          solid.half = Vec3(in(0.2, 0.8), in(0.2, 0.8), in(0.2, 0.8));
          // A uniformly random orientation: a normalized 4D Gaussian.
          std::normal_distribution<double> gauss;
          solid.pose.orientation =
              Quat(gauss(rng), gauss(rng), gauss(rng), gauss(rng)).normalized();
        } else {
          solid.radius = in(0.3, 1.0);
        }
        scene.solids.push_back(solid);
      }
    }
  }
  return scene;
}

RaySet MakeRays(const RayScene& scene, int count, double max_distance) {
  RaySet rays;
  rays.max_distance = max_distance;
  rays.down_percent = 75;
  std::mt19937 rng(20240918);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::normal_distribution<double> gauss;
  const double half = 0.5 * scene.cells * scene.cell;
  const double low = scene.max_height + 0.3;
  while (static_cast<int>(rays.origins.size()) < count) {
    const Vec3 origin(-half + 2.0 * half * unit(rng), low + (kTopY - low) * unit(rng),
                      -half + 2.0 * half * unit(rng));
    Vec3 direction(gauss(rng), gauss(rng), gauss(rng));
    const bool down = unit(rng) * 100.0 < rays.down_percent;
    // Origins inside a solid (or within 1 cm of one) are drawn again: every side then meets
    // each solid from outside, where all three agree on what a hit is.
    const bool clear = std::none_of(scene.solids.begin(), scene.solids.end(),
                                    [&](const RaySolid& s) { return Inside(s, origin, 0.01); });
    if (!clear || direction.norm() < 1e-9) continue;
    direction.normalize();
    if (down) direction.y() = -std::abs(direction.y());
    rays.origins.push_back(origin);
    rays.directions.push_back(direction);
  }
  return rays;
}

RayAgreement CompareAnswers(const RayScene& scene, const RaySet& rays,
                            const std::vector<RayAnswer>& ours, const std::vector<RayAnswer>& peer,
                            double tolerance, double surface_tolerance) {
  RayAgreement a;
  a.rays = static_cast<int>(std::min(ours.size(), peer.size()));
  for (int i = 0; i < a.rays; ++i) {
    const bool hit = ours[i].body >= 0, peer_hit = peer[i].body >= 0;
    const double difference = std::abs(ours[i].distance - peer[i].distance);
    if (hit == peer_hit && (!hit || difference <= tolerance)) {
      ++a.agree;
      a.max_difference = std::max(a.max_difference, hit ? difference : 0.0);
      if (ours[i].body != peer[i].body) ++a.other_body;
      continue;
    }
    // A peer's hit on a solid, on that solid's surface within its tolerance, with nothing
    // of ours before it.
    if (peer_hit && peer[i].body > 0 && (!hit || ours[i].distance >= peer[i].distance)) {
      const RaySolid& solid = scene.solids[peer[i].body - 1];
      const Vec3 point = rays.origins[i] + peer[i].distance * rays.directions[i];
      const Vec3 local = solid.pose.InverseApply(point);
      double gap = local.norm() - solid.radius;
      if (solid.is_box) {
        const Vec3 q = local.cwiseAbs() - solid.half;
        gap = q.cwiseMax(0.0).norm() + std::min(q.maxCoeff(), 0.0);
      }
      if (std::abs(gap) <= surface_tolerance) {
        ++a.near;
        a.max_near = std::max(a.max_near, hit ? difference : 0.0);
        continue;
      }
    }
    ++(hit == peer_hit ? a.distance : a.hit_miss);
    a.disagreeing.push_back(i);
  }
  return a;
}

}  // namespace ligature::bench
