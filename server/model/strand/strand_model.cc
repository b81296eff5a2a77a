#include "server/model/strand/strand_model.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "server/model/strand/spatial.h"

namespace ligature {
namespace {

constexpr double kMinSegmentLength = 1e-6;  // m

bool Finite(const Vec3& v) { return v.allFinite(); }

// The parent list of a desc, with the serial default filled in.
std::vector<int> ParentsOf(const StrandDesc& desc) {
  if (!desc.parents.empty() || desc.points.size() < 2) return desc.parents;
  const int n = static_cast<int>(desc.points.size()) - 1;
  std::vector<int> parents(n);
  for (int i = 0; i < n; ++i) parents[i] = i - 1;
  return parents;
}

// Checks the curve and the parents: enough finite points, a parent list of the right size in
// topological order, no zero-length segment.
absl::Status CheckCurve(const StrandDesc& desc, const std::vector<int>& parents) {
  if (desc.points.size() < 2) {
    return absl::InvalidArgumentError("points: a strand needs at least two points");
  }
  for (size_t i = 0; i < desc.points.size(); ++i) {
    if (!Finite(desc.points[i])) {
      return absl::InvalidArgumentError(absl::StrCat("points[", i, "]: not finite"));
    }
  }
  const int n = static_cast<int>(desc.points.size()) - 1;
  if (static_cast<int>(parents.size()) != n) {
    return absl::InvalidArgumentError(
        absl::StrCat("parents: need one per segment (", n, "), got ", parents.size()));
  }
  for (int i = 0; i < n; ++i) {
    if (parents[i] < -1 || parents[i] >= i) {
      return absl::InvalidArgumentError(
          absl::StrCat("parents[", i, "]: must be -1 or a smaller segment index"));
    }
    const Vec3 start = parents[i] < 0 ? desc.points[0] : desc.points[parents[i] + 1];
    if (!((desc.points[i + 1] - start).norm() > kMinSegmentLength)) {
      return absl::InvalidArgumentError(
          absl::StrCat("points[", i + 1, "]: segment ", i, " has zero length"));
    }
  }
  return absl::OkStatus();
}

// Checks one material value: finite and >= 0 (or > 0 when `positive`).
absl::Status CheckValue(double value, bool positive, int index, const char* name) {
  if (!std::isfinite(value) || value < 0.0 || (positive && value == 0.0)) {
    return absl::InvalidArgumentError(absl::StrCat("materials[", index, "].", name, ": must be ",
                                                   positive ? "> 0" : ">= 0",
                                                   " and finite, got ", value));
  }
  return absl::OkStatus();
}

absl::Status CheckMaterial(const StrandMaterial& m, int index) {
  const struct {
    double value;
    bool positive;
    const char* name;
  } fields[] = {
      {m.mass_per_length, true, "mass_per_length"}, {m.radius, true, "radius"},
      {m.bend_rigidity_x, false, "bend_rigidity_x"}, {m.bend_rigidity_z, false, "bend_rigidity_z"},
      {m.twist_rigidity, false, "twist_rigidity"},   {m.bend_damping_x, false, "bend_damping_x"},
      {m.bend_damping_z, false, "bend_damping_z"},   {m.twist_damping, false, "twist_damping"},
      {m.drag, false, "drag"},
  };
  for (const auto& f : fields) {
    if (absl::Status s = CheckValue(f.value, f.positive, index, f.name); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// Start point of segment i in the base frame.
Vec3 StartOf(const StrandDesc& desc, const std::vector<int>& parents, int i) {
  return parents[i] < 0 ? desc.points[0] : desc.points[parents[i] + 1];
}

}  // namespace

Quat SmallestRotation(const Vec3& a, const Vec3& b) {
  const double c = a.dot(b);
  if (c < -1.0 + 1e-12) {
    // Opposite: half a turn about any axis perpendicular to a.
    Vec3 axis = a.cross(Vec3::UnitX());
    if (axis.norm() < 1e-6) axis = a.cross(Vec3::UnitZ());
    return Quat(Eigen::AngleAxisd(M_PI, axis.normalized()));
  }
  return Quat::FromTwoVectors(a, b).normalized();
}

absl::StatusOr<std::vector<StrandMaterial>> MaterialsAlongLength(
    const StrandDesc& desc, const std::function<StrandMaterial(double s)>& material) {
  const std::vector<int> parents = ParentsOf(desc);
  if (absl::Status s = CheckCurve(desc, parents); !s.ok()) return s;
  const int n = static_cast<int>(parents.size());
  std::vector<double> arc_end(n);
  std::vector<StrandMaterial> out(n);
  for (int i = 0; i < n; ++i) {
    const double start = parents[i] < 0 ? 0.0 : arc_end[parents[i]];
    const double length = (desc.points[i + 1] - StartOf(desc, parents, i)).norm();
    arc_end[i] = start + length;
    out[i] = material(start + 0.5 * length);
  }
  return out;
}

absl::StatusOr<StrandModel> StrandModel::Make(const StrandDesc& desc) {
  const std::vector<int> parents = ParentsOf(desc);
  if (absl::Status s = CheckCurve(desc, parents); !s.ok()) return s;
  const int n = static_cast<int>(parents.size());
  if (desc.materials.size() != 1 && static_cast<int>(desc.materials.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "materials: need one, or one per segment (", n, "), got ", desc.materials.size()));
  }
  for (size_t i = 0; i < desc.materials.size(); ++i) {
    if (absl::Status s = CheckMaterial(desc.materials[i], static_cast<int>(i)); !s.ok()) return s;
  }

  StrandModel model;
  model.segments_.resize(n);
  model.children_.resize(n);
  // Rest orientation of each segment's frame in the base frame, carried by parallel transport.
  std::vector<Quat> rest_world(n);
  for (int i = 0; i < n; ++i) {
    StrandSegment& seg = model.segments_[i];
    const StrandMaterial& mat = desc.materials.size() == 1 ? desc.materials[0] : desc.materials[i];
    const int p = parents[i];
    seg.parent = p;
    const Vec3 start = StartOf(desc, parents, i);
    const Vec3 d = desc.points[i + 1] - start;
    seg.length = d.norm();
    const Vec3 dir = d / seg.length;
    const Quat parent_world = p < 0 ? Quat::Identity() : rest_world[p];
    // The rest joint: the smallest rotation from the parent's axis to this segment's axis,
    // expressed in the parent's frame.
    const Vec3 parent_axis = p < 0 ? Vec3::UnitY() : Vec3(parent_world * Vec3::UnitY());
    const Quat bend = SmallestRotation(parent_axis, dir);
    rest_world[i] = (bend * parent_world).normalized();
    seg.rest = (parent_world.conjugate() * rest_world[i]).normalized();
    seg.attach = p < 0 ? start : Vec3(0.0, model.segments_[p].length, 0.0);
    seg.arc_start = p < 0 ? 0.0 : model.segments_[p].arc_start + model.segments_[p].length;

    // A solid cylinder of radius r along y from 0 to L.
    seg.radius = mat.radius;
    seg.mass = mat.mass_per_length * seg.length;
    const double r2 = mat.radius * mat.radius;
    const double perp = seg.mass * (seg.length * seg.length / 12.0 + r2 / 4.0);
    const Mat3 ic = Vec3(perp, 0.5 * seg.mass * r2, perp).asDiagonal();
    seg.inertia = spatial::BodyInertia(seg.mass, Vec3(0.0, 0.5 * seg.length, 0.0), ic);

    seg.stiffness = Vec3(mat.bend_rigidity_x, mat.twist_rigidity, mat.bend_rigidity_z) / seg.length;
    seg.damping = Vec3(mat.bend_damping_x, mat.twist_damping, mat.bend_damping_z) / seg.length;
    seg.drag = mat.drag * seg.length;

    if (p < 0) {
      model.roots_.push_back(i);
    } else {
      model.children_[p].push_back(i);
    }
  }
  return model;
}

double StrandModel::total_mass() const {
  double m = 0.0;
  for (const StrandSegment& s : segments_) m += s.mass;
  return m;
}

double StrandModel::total_length() const {
  double l = 0.0;
  for (const StrandSegment& s : segments_) l += s.length;
  return l;
}

}  // namespace ligature
