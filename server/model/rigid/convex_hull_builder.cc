#include "server/model/rigid/convex_hull_builder.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

extern "C" {
#include "libqhull_r/qhull_ra.h"
}

namespace ligature {
namespace {

// Drops every point closer than `tolerance` to a point kept before it, keeping input order.
// A hash grid of cells `tolerance` wide finds the candidates among the 27 cells around.
std::vector<Vec3> Weld(std::span<const Vec3> points, double tolerance) {
  std::vector<Vec3> kept;
  if (tolerance <= 0.0) return {points.begin(), points.end()};
  using Cell = std::array<int64_t, 3>;
  absl::flat_hash_map<Cell, std::vector<int>> grid;
  const auto cell_of = [&](const Vec3& p) {
    return Cell{static_cast<int64_t>(std::floor(p.x() / tolerance)),
                static_cast<int64_t>(std::floor(p.y() / tolerance)),
                static_cast<int64_t>(std::floor(p.z() / tolerance))};
  };
  const double tolerance_sq = tolerance * tolerance;
  for (const Vec3& p : points) {
    const Cell c = cell_of(p);
    bool near = false;
    for (int dx = -1; dx <= 1 && !near; ++dx) {
      for (int dy = -1; dy <= 1 && !near; ++dy) {
        for (int dz = -1; dz <= 1 && !near; ++dz) {
          const auto it = grid.find(Cell{c[0] + dx, c[1] + dy, c[2] + dz});
          if (it == grid.end()) continue;
          for (int k : it->second) {
            if ((kept[k] - p).squaredNorm() < tolerance_sq) {
              near = true;
              break;
            }
          }
        }
      }
    }
    if (near) continue;
    grid[c].push_back(static_cast<int>(kept.size()));
    kept.push_back(p);
  }
  return kept;
}

// Qhull's state for one run, freed on every path out.
class QhullRun {
 public:
  QhullRun() : err_(std::fopen("/dev/null", "w")) { qh_zero(&qh_, err_); }
  ~QhullRun() {
    int curlong = 0, totlong = 0;
    qh_freeqhull(&qh_, !qh_ALL);
    qh_memfreeshort(&qh_, &curlong, &totlong);
    if (err_ != nullptr) std::fclose(err_);
  }
  QhullRun(const QhullRun&) = delete;
  QhullRun& operator=(const QhullRun&) = delete;

  // Runs Qhull on the points (x, y, z interleaved) with the given options; true on success.
  bool Run(std::vector<double>& coords, const std::string& options) {
    std::string command = "qhull " + options;
    return qh_new_qhull(&qh_, 3, static_cast<int>(coords.size() / 3), coords.data(), False,
                        command.data(), nullptr, err_) == 0;
  }
  qhT* get() { return &qh_; }

 private:
  FILE* err_;
  qhT qh_;
};

// Fills vertices, faces (loops counter-clockwise seen from outside) and edges from the
// finished Qhull run. Vertex indices follow Qhull's vertex list.
void ReadHull(qhT* qh, ConvexHull* hull) {
  std::map<int, int> index_of;  // Qhull vertex id -> our index
  vertexT* vertex;
  FORALLvertices {
    index_of[static_cast<int>(vertex->id)] = static_cast<int>(hull->vertices.size());
    hull->vertices.emplace_back(vertex->point[0], vertex->point[1], vertex->point[2]);
  }
  facetT* facet;
  FORALLfacets {
    ConvexHull::Face face;
    face.normal = Vec3(facet->normal[0], facet->normal[1], facet->normal[2]);
    face.offset = -facet->offset;
    face.first = static_cast<int>(hull->face_vertices.size());
    setT* loop = qh_facet3vertex(qh, facet);
    vertexT** vertexp;
    FOREACHvertex_(loop) {
      hull->face_vertices.push_back(index_of[static_cast<int>(vertex->id)]);
    }
    qh_settempfree(qh, &loop);
    face.count = static_cast<int>(hull->face_vertices.size()) - face.first;
    // Qhull's loop runs either way round: make it counter-clockwise about the normal.
    Vec3 area = Vec3::Zero();
    for (int i = 0; i < face.count; ++i) {
      area += hull->FaceVertex(face, i).cross(hull->FaceVertex(face, (i + 1) % face.count));
    }
    if (area.dot(face.normal) < 0.0) {
      std::reverse(hull->face_vertices.begin() + face.first, hull->face_vertices.end());
    }
    hull->faces.push_back(face);
  }
  // Each edge of a closed polyhedron borders two faces; the face that runs it from the lower
  // vertex to the higher is on its left.
  std::map<std::pair<int, int>, int> edge_of;
  for (int f = 0; f < static_cast<int>(hull->faces.size()); ++f) {
    const ConvexHull::Face& face = hull->faces[f];
    for (int i = 0; i < face.count; ++i) {
      const int u = hull->face_vertices[face.first + i];
      const int v = hull->face_vertices[face.first + (i + 1) % face.count];
      const std::pair<int, int> key{std::min(u, v), std::max(u, v)};
      auto [it, added] = edge_of.try_emplace(key, static_cast<int>(hull->edges.size()));
      if (added) hull->edges.push_back({key.first, key.second, f, f});
      ConvexHull::Edge& e = hull->edges[it->second];
      (u < v ? e.face_left : e.face_right) = f;
    }
  }
}

// Volume, centroid and inertia about the centroid of the solid hull at unit density, exact:
// the faces are fanned into triangles, each closing a tetrahedron with a reference point
// inside, whose second moment has a closed form (the canonical tetrahedron's moment mapped
// by the tetrahedron's edge matrix).
void ComputeUnitMass(ConvexHull* hull) {
  Vec3 reference = Vec3::Zero();
  for (const Vec3& v : hull->vertices) reference += v;
  reference /= static_cast<double>(hull->vertices.size());
  Mat3 canonical;
  canonical << 2, 1, 1, 1, 2, 1, 1, 1, 2;
  canonical /= 120.0;
  double volume = 0.0;
  Vec3 first_moment = Vec3::Zero();
  Mat3 second_moment = Mat3::Zero();  // about the reference point
  for (const ConvexHull::Face& face : hull->faces) {
    const Vec3 a = hull->FaceVertex(face, 0) - reference;
    for (int i = 1; i + 1 < face.count; ++i) {
      Mat3 edges;
      edges.col(0) = a;
      edges.col(1) = hull->FaceVertex(face, i) - reference;
      edges.col(2) = hull->FaceVertex(face, i + 1) - reference;
      const double det = edges.determinant();
      volume += det / 6.0;
      first_moment += det / 6.0 * (edges.col(0) + edges.col(1) + edges.col(2)) / 4.0;
      second_moment += det * edges * canonical * edges.transpose();
    }
  }
  const Vec3 centroid = first_moment / volume;
  const Mat3 about_centroid = second_moment - volume * centroid * centroid.transpose();
  hull->volume = volume;
  hull->centroid = reference + centroid;
  hull->unit_inertia = about_centroid.trace() * Mat3::Identity() - about_centroid;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const ConvexHull>> BuildConvexHull(std::span<const Vec3> points,
                                                                  const HullOptions& options) {
  // The input: finite points, within limits, and options in range.
  if (points.size() > static_cast<size_t>(kMaxHullPoints)) {
    return absl::InvalidArgumentError(
        absl::StrCat("points: ", points.size(), " points, at most ", kMaxHullPoints));
  }
  for (size_t i = 0; i < points.size(); ++i) {
    if (!points[i].allFinite()) {
      return absl::InvalidArgumentError(absl::StrCat("points[", i, "]: not finite"));
    }
  }
  if (options.max_vertices < 4 || options.max_vertices > kMaxHullVertices) {
    return absl::InvalidArgumentError(absl::StrCat(
        "max_vertices: ", options.max_vertices, ", must be in [4, ", kMaxHullVertices, "]"));
  }
  if (!std::isfinite(options.weld_tolerance) || options.weld_tolerance < 0.0) {
    return absl::InvalidArgumentError("weld_tolerance: must be finite and >= 0");
  }

  // Welded points through Qhull. Its default precision handling merges coplanar facets into
  // one polygon; TA stops it once the cap's vertices are in (it adds the farthest first).
  const std::vector<Vec3> welded = Weld(points, options.weld_tolerance);
  if (welded.size() < 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("points: ", welded.size(), " distinct points, a hull needs 4"));
  }
  std::vector<double> coords;
  coords.reserve(3 * welded.size());
  for (const Vec3& p : welded) coords.insert(coords.end(), {p.x(), p.y(), p.z()});
  auto hull = std::make_shared<ConvexHull>();
  hull->points.assign(points.begin(), points.end());
  hull->max_vertices = options.max_vertices;
  hull->weld_tolerance = options.weld_tolerance;
  {
    QhullRun qhull;
    std::string flags = "Qs";
    if (static_cast<int>(welded.size()) > options.max_vertices) {
      flags += absl::StrCat(" TA", options.max_vertices - 4);
    }
    if (!qhull.Run(coords, flags)) {
      return absl::InvalidArgumentError("points: they span no volume (flat, a line or a point)");
    }
    ReadHull(qhull.get(), hull.get());
  }
  if (static_cast<int>(hull->vertices.size()) > options.max_vertices) {
    return absl::InternalError(absl::StrCat("the hull has ", hull->vertices.size(),
                                            " vertices, over the cap of ", options.max_vertices));
  }

  // Bounds and mass.
  hull->local_min = hull->local_max = hull->vertices.front();
  for (const Vec3& v : hull->vertices) {
    hull->local_min = hull->local_min.cwiseMin(v);
    hull->local_max = hull->local_max.cwiseMax(v);
    hull->bounding_radius = std::max(hull->bounding_radius, v.norm());
  }
  ComputeUnitMass(hull.get());
  const double size = (hull->local_max - hull->local_min).maxCoeff();
  if (!(hull->volume > 1e-12 * size * size * size)) {
    return absl::InvalidArgumentError("points: they span no volume (flat, a line or a point)");
  }
  return std::shared_ptr<const ConvexHull>(std::move(hull));
}

}  // namespace ligature
