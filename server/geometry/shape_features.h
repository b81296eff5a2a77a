#pragma once
// The features of a rigid shape that can meet a surface triangle between its vertices, and
// where they lie under a triangle. A soft body's vertices find the rigid shapes they touch
// (a vertex against the shape); these find what a vertex test misses: an edge or corner of
// a box or hull, or a thin sphere or capsule, pressed into the middle of a coarse
// triangle.

#include <array>
#include <vector>

#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

// A segment of a shape (an edge of a box or hull, a capsule's axis; a sphere's centre as a
// segment of no length), world space, with the radius the shape adds around it.
struct ShapeFeature {
  Vec3 a = Vec3::Zero();
  Vec3 b = Vec3::Zero();
  double radius = 0.0;  // m
};

// Appends the features of `shape` at `pose`. Planes and meshes give none: they are not
// small against a triangle, and the triangle's vertices meet them.
void AppendShapeFeatures(const Shape& shape, const Transform& pose, std::vector<ShapeFeature>* out);

// How far `point` is from the surface the feature stands for (its segment grown by its
// radius), m; < 0 inside.
double FeatureDistance(const ShapeFeature& feature, const Vec3& point);

// The deepest a feature may lie under a surface triangle for the triangle to push it out,
// m: a probe pressed into soft tissue faster than its surface gives way sinks below the
// surface in a tick and must not then slip under it; deeper than this it came in
// elsewhere.
inline constexpr double kMaxSunkDepth = 0.05;

// A point of a feature over (or under) a triangle.
struct TriangleFeatureHit {
  Vec3 barycentric = Vec3::Zero();  // of the point of the triangle under it
  Vec3 normal = Vec3::UnitY();      // from the triangle towards the feature, unit
  Vec3 on_triangle = Vec3::Zero();  // that point, m
  Vec3 on_feature = Vec3::Zero();   // the feature's surface point nearest the plane, m
  double distance = 0.0;            // m, along the triangle's normal; < 0 when sunk into it
};

// The part of `feature` inside the prism over triangle (a, b, c) (counter-clockwise seen
// from its outward side), the prism's sides moved out by the feature's radius: its ends
// whose signed distance to the triangle is below `margin` and not below -max_depth (a
// feature sunk deeper is not this face's to push out: near a body's edge it may lie in the
// prism of a side face it never crossed). An end over the triangle is measured along its
// normal; one beside it (a sphere or capsule near an edge) from the nearest point of the
// edges, along the line between them. Ends whose nearest point is one of the triangle's
// own vertices are left out (the vertex meets the shape itself), and two ends that
// coincide are one. Returns how many were written (0, 1 or 2).
int FeatureOverTriangle(const ShapeFeature& feature, const Vec3& a, const Vec3& b, const Vec3& c,
                        double margin, double max_depth, std::array<TriangleFeatureHit, 2>* out);

}  // namespace ligature
