#include "server/model/rigid/convex_hull_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numbers>
#include <random>
#include <utility>
#include <vector>

namespace ligature {
namespace {

constexpr double kPi = std::numbers::pi;

std::shared_ptr<const ConvexHull> Build(const std::vector<Vec3>& points,
                                        const HullOptions& options = {}) {
  auto hull = BuildConvexHull(points, options);
  EXPECT_TRUE(hull.ok()) << hull.status();
  return hull.ok() ? *hull : nullptr;
}

// The eight corners of a box with half extents h, centred at c, and some points inside.
std::vector<Vec3> BoxPoints(const Vec3& h, const Vec3& c = Vec3::Zero()) {
  std::vector<Vec3> points;
  for (int k = 0; k < 8; ++k) {
    points.push_back(c + Vec3(k & 1 ? h.x() : -h.x(), k & 2 ? h.y() : -h.y(),
                              k & 4 ? h.z() : -h.z()));
  }
  points.push_back(c);
  points.push_back(c + 0.5 * h);
  return points;
}

// The vertices of an icosahedron subdivided `levels` times, pushed out to the unit sphere.
std::vector<Vec3> Icosphere(int levels) {
  const double t = (1.0 + std::sqrt(5.0)) / 2.0;
  std::vector<Vec3> v = {{-1, t, 0}, {1, t, 0}, {-1, -t, 0}, {1, -t, 0}, {0, -1, t}, {0, 1, t},
                         {0, -1, -t}, {0, 1, -t}, {t, 0, -1}, {t, 0, 1}, {-t, 0, -1}, {-t, 0, 1}};
  std::vector<std::array<int, 3>> f = {
      {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
      {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
      {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
  for (Vec3& p : v) p.normalize();
  for (int level = 0; level < levels; ++level) {
    std::map<std::pair<int, int>, int> mid;
    const auto midpoint = [&](int a, int b) {
      const auto key = std::minmax(a, b);
      auto it = mid.find(key);
      if (it != mid.end()) return it->second;
      v.push_back((v[a] + v[b]).normalized());
      return mid[key] = static_cast<int>(v.size()) - 1;
    };
    std::vector<std::array<int, 3>> next;
    for (const auto& tri : f) {
      const int ab = midpoint(tri[0], tri[1]), bc = midpoint(tri[1], tri[2]),
                ca = midpoint(tri[2], tri[0]);
      next.push_back({tri[0], ab, ca});
      next.push_back({tri[1], bc, ab});
      next.push_back({tri[2], ca, bc});
      next.push_back({ab, bc, ca});
    }
    f = std::move(next);
  }
  return v;
}

// Every face is planar, counter-clockwise about its outward normal, with all vertices on
// or below it; every edge joins two different faces; Euler's V - E + F = 2 holds.
void ExpectWellFormed(const ConvexHull& hull) {
  const double tol = 1e-9 * (1.0 + hull.bounding_radius);
  for (const ConvexHull::Face& face : hull.faces) {
    EXPECT_NEAR(face.normal.norm(), 1.0, 1e-12);
    Vec3 area = Vec3::Zero();
    for (int i = 0; i < face.count; ++i) {
      EXPECT_NEAR(face.normal.dot(hull.FaceVertex(face, i)), face.offset, tol);
      area += hull.FaceVertex(face, i).cross(hull.FaceVertex(face, (i + 1) % face.count));
    }
    EXPECT_GT(area.dot(face.normal), 0.0);
    for (const Vec3& v : hull.vertices) EXPECT_LE(face.normal.dot(v), face.offset + tol);
  }
  for (const ConvexHull::Edge& e : hull.edges) EXPECT_NE(e.face_left, e.face_right);
  EXPECT_EQ(hull.vertices.size() - hull.edges.size() + hull.faces.size(), 2u);
}

TEST(ConvexHullBuilderTest, BoxHasItsCornersFacesAndMass) {
  const Vec3 h(0.5, 1.0, 1.5);
  const auto hull = Build(BoxPoints(h, Vec3(1.0, -2.0, 3.0)));
  ASSERT_NE(hull, nullptr);
  ExpectWellFormed(*hull);
  EXPECT_EQ(hull->vertices.size(), 8u);
  EXPECT_EQ(hull->faces.size(), 6u);
  EXPECT_EQ(hull->edges.size(), 12u);
  // A solid box: V = 8 hx hy hz, I = V (b^2 + c^2) / 12 about its centre (full widths).
  const double volume = 8.0 * h.prod();
  EXPECT_NEAR(hull->volume, volume, 1e-12 * volume);
  EXPECT_NEAR((hull->centroid - Vec3(1.0, -2.0, 3.0)).norm(), 0.0, 1e-12);
  const Vec3 e = 2.0 * h;
  const Vec3 inertia = volume / 12.0 *
                       Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                            e.x() * e.x() + e.y() * e.y());
  for (int i = 0; i < 3; ++i) {
    EXPECT_NEAR(hull->unit_inertia(i, i), inertia[i], 1e-12 * inertia[i]);
    for (int j = 0; j < 3; ++j) {
      if (i != j) EXPECT_NEAR(hull->unit_inertia(i, j), 0.0, 1e-12 * inertia.maxCoeff());
    }
  }
  EXPECT_EQ(hull->local_min, Vec3(0.5, -3.0, 1.5));
  EXPECT_EQ(hull->local_max, Vec3(1.5, -1.0, 4.5));
}

TEST(ConvexHullBuilderTest, RegularTetrahedronMass) {
  // Edge a = 2 sqrt(2): V = a^3 / (6 sqrt(2)) = 8/3, I = V a^2 / 20 about every axis.
  const auto hull = Build({{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}});
  ASSERT_NE(hull, nullptr);
  ExpectWellFormed(*hull);
  EXPECT_EQ(hull->faces.size(), 4u);
  const double volume = 8.0 / 3.0, inertia = volume * 8.0 / 20.0;
  EXPECT_NEAR(hull->volume, volume, 1e-12);
  EXPECT_NEAR(hull->centroid.norm(), 0.0, 1e-12);
  EXPECT_TRUE(hull->unit_inertia.isApprox(inertia * Mat3::Identity(), 1e-12));
}

TEST(ConvexHullBuilderTest, OctahedronMass) {
  // |x| + |y| + |z| <= a: V = 4 a^3 / 3, and I = V a^2 / 5 about every axis (the second
  // moment of x over the solid is V a^2 / 10).
  const double a = 0.7;
  const auto hull =
      Build({{a, 0, 0}, {-a, 0, 0}, {0, a, 0}, {0, -a, 0}, {0, 0, a}, {0, 0, -a}});
  ASSERT_NE(hull, nullptr);
  ExpectWellFormed(*hull);
  EXPECT_EQ(hull->faces.size(), 8u);
  const double volume = 4.0 * a * a * a / 3.0;
  EXPECT_NEAR(hull->volume, volume, 1e-12);
  EXPECT_TRUE(hull->unit_inertia.isApprox(volume * a * a / 5.0 * Mat3::Identity(), 1e-12));
}

TEST(ConvexHullBuilderTest, FineIcosphereIsASphereWithinHalfAPercent) {
  // 2,562 vertices on the unit sphere: V -> 4 pi / 3, I -> 2/5 V r^2.
  HullOptions options;
  options.max_vertices = kMaxHullVertices;
  const auto hull = Build(Icosphere(4), options);
  ASSERT_NE(hull, nullptr);
  ExpectWellFormed(*hull);
  EXPECT_EQ(hull->vertices.size(), 2562u);
  const double volume = 4.0 * kPi / 3.0;
  EXPECT_NEAR(hull->volume / volume, 1.0, 0.005);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(hull->unit_inertia(i, i) / (0.4 * volume), 1.0, 0.005);
  EXPECT_NEAR(hull->centroid.norm(), 0.0, 1e-9);
}

TEST(ConvexHullBuilderTest, CapKeepsTheFarthestPoints) {
  // A cube's corners pushed far out among many points near the centre: a cap of 8 keeps the
  // corners, and the hull is the cube.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> inside(-0.5, 0.5);
  std::vector<Vec3> points;
  for (int i = 0; i < 500; ++i) points.emplace_back(inside(rng), inside(rng), inside(rng));
  for (const Vec3& p : BoxPoints(Vec3::Constant(1.0))) points.push_back(p);
  HullOptions options;
  options.max_vertices = 8;
  const auto hull = Build(points, options);
  ASSERT_NE(hull, nullptr);
  EXPECT_EQ(hull->vertices.size(), 8u);
  EXPECT_NEAR(hull->volume, 8.0, 1e-12);

  // On a sphere's points the cap bounds the count.
  for (int cap : {4, 16, 100}) {
    options.max_vertices = cap;
    const auto capped = Build(Icosphere(3), options);
    ASSERT_NE(capped, nullptr);
    EXPECT_LE(static_cast<int>(capped->vertices.size()), cap);
    ExpectWellFormed(*capped);
  }
}

TEST(ConvexHullBuilderTest, WeldingMergesNearPoints) {
  // Each corner twice, 1 um apart: welded at 10 um, eight vertices; the description keeps
  // the points as given.
  std::vector<Vec3> points;
  for (const Vec3& p : BoxPoints(Vec3::Constant(0.1))) {
    points.push_back(p);
    points.push_back(p + Vec3(1e-6, 0.0, 0.0));
  }
  HullOptions options;
  options.weld_tolerance = 1e-5;
  const auto hull = Build(points, options);
  ASSERT_NE(hull, nullptr);
  EXPECT_EQ(hull->vertices.size(), 8u);
  EXPECT_EQ(hull->points.size(), points.size());
  EXPECT_EQ(hull->weld_tolerance, 1e-5);
}

TEST(ConvexHullBuilderTest, RebuildsIdenticallyFromItsDescription) {
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  std::vector<Vec3> points;
  for (int i = 0; i < 300; ++i) points.emplace_back(normal(rng), normal(rng), 0.3 * normal(rng));
  HullOptions options;
  options.max_vertices = 24;
  const auto a = Build(points, options);
  ASSERT_NE(a, nullptr);
  const auto b = Build(a->points, {a->max_vertices, a->weld_tolerance});
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->vertices, b->vertices);
  EXPECT_EQ(a->face_vertices, b->face_vertices);
  EXPECT_EQ(a->volume, b->volume);
  EXPECT_EQ(a->unit_inertia, b->unit_inertia);
}

TEST(ConvexHullBuilderTest, RejectsBadInputNamingIt) {
  const auto message = [](const std::vector<Vec3>& points, const HullOptions& options) {
    auto hull = BuildConvexHull(points, options);
    EXPECT_EQ(hull.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(hull.status().message());
  };
  std::vector<Vec3> box = BoxPoints(Vec3::Constant(1.0));
  std::vector<Vec3> nan = box;
  nan[3].y() = std::nan("");
  EXPECT_EQ(message(nan, {}).rfind("points[3]", 0), 0u);
  EXPECT_EQ(message({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}}, {}).rfind("points", 0), 0u);
  // All on one plane, all on one line.
  EXPECT_EQ(message({{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0.3, 0.2, 0}}, {})
                .rfind("points", 0),
            0u);
  EXPECT_EQ(message({{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}}, {}).rfind("points", 0), 0u);
  HullOptions options;
  options.max_vertices = 3;
  EXPECT_EQ(message(box, options).rfind("max_vertices", 0), 0u);
  options.max_vertices = kMaxHullVertices + 1;
  EXPECT_EQ(message(box, options).rfind("max_vertices", 0), 0u);
  options = {};
  options.weld_tolerance = -1.0;
  EXPECT_EQ(message(box, options).rfind("weld_tolerance", 0), 0u);
  // Welding everything into one point leaves no volume.
  options.weld_tolerance = 10.0;
  EXPECT_EQ(message(box, options).rfind("points", 0), 0u);
}

}  // namespace
}  // namespace ligature
