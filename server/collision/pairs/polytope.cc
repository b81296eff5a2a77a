// Placing boxes and hulls in world space as polytopes: the shared unit-box topology, and
// the per-call transform of vertices, face planes and the edges' Gauss-map data.

#include "server/collision/pairs/polytope.h"

#include <cassert>
#include <cmath>
#include <cstddef>

#include "server/collision/pairs/geometry.h"

namespace ligature {
namespace {

// Builds the unit box hull: eight corners, six square faces counter-clockwise from outside,
// twelve edges each joining the two faces whose loops run along it in opposite directions.
ConvexHull BuildUnitBox() {
  ConvexHull box;
  for (int k = 0; k < 8; ++k) {
    box.vertices.emplace_back((k & 1) ? 1.0 : -1.0, (k & 2) ? 1.0 : -1.0, (k & 4) ? 1.0 : -1.0);
  }
  box.points = box.vertices;
  box.max_vertices = 8;
  // Face on side `s` of `axis`: with j, k the next axes, the loop (j-, k-), (j+, k-),
  // (j+, k+), (j-, k+) turns counter-clockwise about +axis (e_j x e_k = e_axis); the -axis
  // face runs it backwards.
  for (int axis = 0; axis < 3; ++axis) {
    const int j = (axis + 1) % 3;
    const int k = (axis + 2) % 3;
    for (int side : {-1, 1}) {
      ConvexHull::Face f;
      f.normal = Vec3::Zero();
      f.normal[axis] = side;
      f.offset = 1.0;
      f.first = static_cast<int>(box.face_vertices.size());
      f.count = 4;
      const int loop[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      for (int n = 0; n < 4; ++n) {
        const int m = side > 0 ? n : 3 - n;
        const int bits = (side > 0 ? 1 << axis : 0) | (loop[m][0] << j) | (loop[m][1] << k);
        box.face_vertices.push_back(bits);
      }
      box.faces.push_back(f);
    }
  }
  // Edges: each loop step from p to q; the face running p -> q with p < q is face_left.
  for (int fi = 0; fi < static_cast<int>(box.faces.size()); ++fi) {
    const ConvexHull::Face& f = box.faces[fi];
    for (int n = 0; n < f.count; ++n) {
      const int p = box.face_vertices[f.first + n];
      const int q = box.face_vertices[f.first + (n + 1) % f.count];
      const int lo = p < q ? p : q;
      const int hi = p < q ? q : p;
      ConvexHull::Edge* found = nullptr;
      for (ConvexHull::Edge& e : box.edges) {
        if (e.a == lo && e.b == hi) found = &e;
      }
      if (found == nullptr) {
        box.edges.push_back({lo, hi, fi, fi});
        found = &box.edges.back();
      }
      if (p < q) {
        found->face_left = fi;
      } else {
        found->face_right = fi;
      }
    }
  }
  box.local_min = Vec3::Constant(-1.0);
  box.local_max = Vec3::Constant(1.0);
  box.bounding_radius = std::sqrt(3.0);
  box.volume = 8.0;
  box.unit_inertia = Mat3::Identity() * (8.0 * 2.0 / 3.0);
  return box;
}

// The per-edge Gauss-map data from the placed face normals.
void FillEdgeGauss(const ConvexHull& topology, PolytopeBuffer* buffer) {
  const std::size_t edges = topology.edges.size();
  buffer->edge_gauss.resize(edges);
  for (std::size_t e = 0; e < edges; ++e) {
    const ConvexHull::Edge& edge = topology.edges[e];
    buffer->edge_gauss[e] = buffer->normals[edge.face_right].cross(buffer->normals[edge.face_left]);
  }
}

Polytope View(const ConvexHull& topology, double radius, const PolytopeBuffer& buffer) {
  Polytope p;
  p.topology = &topology;
  p.vertices = buffer.vertices;
  p.normals = buffer.normals;
  p.offsets = buffer.offsets;
  p.edge_gauss = buffer.edge_gauss;
  p.radius = radius;
  return p;
}

}  // namespace

double Polytope::MinProjection(const Vec3& direction) const {
  assert(!vertices.empty());
  double lowest = vertices[0].dot(direction);
  for (std::size_t i = 1; i < vertices.size(); ++i) {
    const double d = vertices[i].dot(direction);
    if (d < lowest) lowest = d;
  }
  return lowest;
}

int Polytope::SupportIndex(const Vec3& direction) const {
  assert(!vertices.empty());
  return SupportIndexOf(vertices, direction);
}

const ConvexHull& UnitBoxTopology() {
  static const ConvexHull* const box = new ConvexHull(BuildUnitBox());
  return *box;
}

Polytope PlaceBox(const Vec3& half, const Transform& pose, PolytopeBuffer* buffer) {
  const ConvexHull& topology = UnitBoxTopology();
  const Mat3 r = pose.orientation.toRotationMatrix();
  buffer->vertices.resize(8);
  for (int k = 0; k < 8; ++k) {
    buffer->vertices[k] = pose.position + r * topology.vertices[k].cwiseProduct(half);
  }
  // Face planes: the rotated axis, offset by the half extent along it.
  buffer->normals.resize(6);
  buffer->offsets.resize(6);
  for (int f = 0; f < 6; ++f) {
    const int axis = f / 2;
    const double side = (f & 1) ? 1.0 : -1.0;
    buffer->normals[f] = side * r.col(axis);
    buffer->offsets[f] = half[axis] + buffer->normals[f].dot(pose.position);
  }
  FillEdgeGauss(topology, buffer);
  return View(topology, half.norm(), *buffer);
}

Polytope PlaceHull(const ConvexHull& hull, const Transform& pose, PolytopeBuffer* buffer) {
  assert(!hull.vertices.empty());
  const Mat3 r = pose.orientation.toRotationMatrix();
  const std::size_t nv = hull.vertices.size();
  buffer->vertices.resize(nv);
  for (std::size_t i = 0; i < nv; ++i) buffer->vertices[i] = pose.position + r * hull.vertices[i];
  const std::size_t nf = hull.faces.size();
  buffer->normals.resize(nf);
  buffer->offsets.resize(nf);
  for (std::size_t f = 0; f < nf; ++f) {
    buffer->normals[f] = r * hull.faces[f].normal;
    buffer->offsets[f] = hull.faces[f].offset + buffer->normals[f].dot(pose.position);
  }
  FillEdgeGauss(hull, buffer);
  return View(hull, hull.bounding_radius, *buffer);
}

}  // namespace ligature
