#include "server/scene/scene_proto.h"

#include <algorithm>
#include <cmath>
#include <regex>
#include <span>
#include <tuple>

#include <Eigen/Eigenvalues>

#include "absl/strings/str_cat.h"
#include "server/base/status_macros.h"
#include "server/math/unit_quat.h"
#include "server/model/rigid/convex_hull_builder.h"
#include "server/model/rigid/height_field_builder.h"
#include "server/model/rigid/triangle_mesh_builder.h"
#include "server/scene/field_error.h"
#include "server/scene/mesh_asset_proto.h"
#include "server/scene/rod_proto.h"
#include "server/scene/soft_proto.h"
#include "server/scene/strand_proto.h"

namespace ligature {
namespace {

absl::Status CheckFinite(double v, const std::string& field) {
  if (!std::isfinite(v)) return InvalidField(field, "must be finite");
  return absl::OkStatus();
}

absl::Status CheckPositive(double v, const std::string& field) {
  if (!std::isfinite(v) || v <= 0.0) return InvalidField(field, "must be finite and > 0");
  return absl::OkStatus();
}

// Ranges that keep every derived quantity (mass, inertia, bounds, a tick's motion) finite
// and well conditioned.
constexpr double kMinLength = 1e-4;    // m
constexpr double kMaxLength = 1e6;     // m
constexpr double kMaxSpeed = 1e5;      // m/s and rad/s
constexpr double kMaxDensity = 1e6;    // kg/m^3
constexpr double kMaxMass = 1e9;       // kg
constexpr double kMaxInertia = 1e12;   // kg m^2

absl::Status CheckLength(double v, const std::string& field) {
  if (!std::isfinite(v) || v < kMinLength || v > kMaxLength) {
    return InvalidField(field, absl::StrCat("must be in [", kMinLength, ", ", kMaxLength, "] m"));
  }
  return absl::OkStatus();
}

// A material's rolling or spinning resistance: a lever arm, finite and >= 0 (0: none).
absl::Status CheckLeverArm(double v, const std::string& field) {
  if (!std::isfinite(v) || v < 0.0) return InvalidField(field, "must be finite and >= 0 (m)");
  return absl::OkStatus();
}

// Points of a hull or vertices of a mesh (`field`, with the element named on error): at
// most `max_count`, each within kMaxLength of the body origin.
absl::StatusOr<std::vector<Vec3>> PointsFromProto(
    const google::protobuf::RepeatedPtrField<v1::Vec3>& in, const std::string& field,
    int max_count) {
  if (in.size() > max_count) {
    return InvalidField(field, absl::StrCat(in.size(), " given, at most ", max_count));
  }
  std::vector<Vec3> points;
  points.reserve(in.size());
  for (int i = 0; i < in.size(); ++i) {
    const std::string point = absl::StrCat(field, "[", i, "]");
    auto p = Vec3FromProto(in.Get(i), point);
    if (!p.ok()) return p.status();
    if (p->cwiseAbs().maxCoeff() > kMaxLength) {
      return InvalidField(point, absl::StrCat("must be within ", kMaxLength, " m of the origin"));
    }
    points.push_back(*p);
  }
  return points;
}

// A hull from its points; the builder's own complaints (a point, the options, a flat set)
// come back under the field's path.
absl::StatusOr<Shape> HullFromProto(const v1::ConvexHull& h, const std::string& field) {
  auto points = PointsFromProto(h.points(), field + ".points", kMaxHullPoints);
  if (!points.ok()) return points.status();
  HullOptions options;
  if (h.max_vertices() != 0) {
    options.max_vertices = static_cast<int>(std::min<uint32_t>(h.max_vertices(), 1u << 20));
  }
  options.weld_tolerance = h.weld_tolerance();
  // The builder names its own fields (points, max_vertices, weld_tolerance).
  auto hull = BuildConvexHull(*points, options);
  if (!hull.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".", hull.status().message()));
  }
  return Shape::Hull(*std::move(hull));
}

// A height field: sides beyond any allowed size are refused here, before they are narrowed
// to the grid's integers; the builder's checks name the rest.
absl::StatusOr<Shape> HeightFieldFromProto(const v1::HeightField& h, const std::string& field) {
  HeightField grid;
  for (const auto& [given, side, name] : {std::tuple(h.rows(), &grid.rows, "rows"),
                                          std::tuple(h.columns(), &grid.columns, "columns")}) {
    if (given > static_cast<uint32_t>(kMaxHeightFieldSide)) {
      return InvalidField(absl::StrCat(field, ".", name),
                          absl::StrCat("at most ", kMaxHeightFieldSide, " grid points"));
    }
    *side = static_cast<int>(given);
  }
  grid.spacing_x = h.spacing_x();
  grid.spacing_z = h.spacing_z();
  grid.heights.assign(h.heights().begin(), h.heights().end());
  grid.holes.assign(h.holes().begin(), h.holes().end());
  auto mesh = BuildHeightField(std::move(grid));
  if (!mesh.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".", mesh.status().message()));
  }
  return Shape::Mesh(*std::move(mesh));
}

}  // namespace

absl::StatusOr<Shape> ShapeFromProto(const v1::Shape& s, const std::string& field,
                                     const MeshAssetLookup& assets) {
  switch (s.kind_case()) {
    case v1::Shape::kSphere:
      LIGATURE_RETURN_IF_ERROR(CheckLength(s.sphere().radius(), field + ".sphere.radius"));
      return Shape::Sphere(s.sphere().radius());
    case v1::Shape::kBox: {
      auto h = Vec3FromProto(s.box().half_extents(), field + ".box.half_extents");
      if (!h.ok()) return h.status();
      for (int i = 0; i < 3; ++i) {
        LIGATURE_RETURN_IF_ERROR(CheckLength((*h)[i], field + ".box.half_extents." + "xyz"[i]));
      }
      return Shape::Box(*h);
    }
    case v1::Shape::kCapsule:
      LIGATURE_RETURN_IF_ERROR(CheckLength(s.capsule().radius(), field + ".capsule.radius"));
      LIGATURE_RETURN_IF_ERROR(
          CheckLength(s.capsule().half_length(), field + ".capsule.half_length"));
      return Shape::Capsule(s.capsule().radius(), s.capsule().half_length());
    case v1::Shape::kPlane:
      return Shape::Plane();
    case v1::Shape::kHull:
      return HullFromProto(s.hull(), field + ".hull");
    case v1::Shape::kMesh: {
      auto mesh = TriangleMeshFromProto(s.mesh(), field + ".mesh");
      if (!mesh.ok()) return mesh.status();
      return Shape::Mesh(*std::move(mesh));
    }
    case v1::Shape::kMeshAsset:
      return MeshAssetShapeFromProto(s.mesh_asset(), assets, field + ".mesh_asset");
    case v1::Shape::kHeightField:
      return HeightFieldFromProto(s.height_field(), field + ".height_field");
    case v1::Shape::kCompound:
      return InvalidField(field + ".compound",
                          "a compound cannot be nested or hold a plane, a mesh or a height field");
    case v1::Shape::KIND_NOT_SET:
      break;
  }
  return InvalidField(field,
                      "a shape (sphere, box, capsule, plane, hull, mesh, height field or mesh "
                      "asset) is required");
}

CollisionFilter CollisionFilterFromProto(const v1::CollisionFilter& f) {
  CollisionFilter out;
  if (f.has_layers()) out.layers = f.layers();
  if (f.has_mask()) out.mask = f.mask();
  out.sensor = f.sensor();
  return out;
}

void CollisionFilterToProto(const CollisionFilter& f, v1::CollisionFilter* out) {
  out->set_layers(f.layers);
  out->set_mask(f.mask);
  out->set_sensor(f.sensor);
}

namespace {

// The children of a compound: 1 to 64 shapes (no planes) with their poses.
absl::StatusOr<std::vector<ChildShape>> CompoundFromProto(const v1::Compound& c,
                                                          const std::string& field,
                                                          const MeshAssetLookup& assets) {
  constexpr int kMaxChildren = 64;
  if (c.children_size() < 1 || c.children_size() > kMaxChildren) {
    return InvalidField(field + ".children",
                        absl::StrCat("must hold 1 to ", kMaxChildren, " shapes"));
  }
  std::vector<ChildShape> out;
  for (int i = 0; i < c.children_size(); ++i) {
    const std::string child = absl::StrCat(field, ".children[", i, "]");
    if (c.children(i).shape().has_plane()) {
      return InvalidField(child + ".shape.plane", "a compound cannot hold a plane");
    }
    if (c.children(i).shape().has_mesh()) {
      return InvalidField(child + ".shape.mesh", "a compound cannot hold a mesh");
    }
    if (c.children(i).shape().has_height_field()) {
      return InvalidField(child + ".shape.height_field", "a compound cannot hold a height field");
    }
    if (c.children(i).shape().has_mesh_asset() && !c.children(i).shape().mesh_asset().as_hull()) {
      return InvalidField(child + ".shape.mesh_asset.as_hull",
                          "a compound holds a mesh asset only as a hull");
    }
    auto shape = ShapeFromProto(c.children(i).shape(), child + ".shape", assets);
    if (!shape.ok()) return shape.status();
    auto pose = PoseFromProto(c.children(i).pose(), child + ".pose");
    if (!pose.ok()) return pose.status();
    out.push_back({*shape, *pose});
    if (c.children(i).has_collision()) {
      out.back().filter = CollisionFilterFromProto(c.children(i).collision());
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const TriangleMesh>> TriangleMeshFromProto(
    const v1::TriangleMesh& m, const std::string& field) {
  // The vertices, then the builder's checks (which name the indices).
  auto vertices = PointsFromProto(m.vertices(), field + ".vertices", kMaxMeshVertices);
  if (!vertices.ok()) return vertices.status();
  const std::span<const uint32_t> indices(m.indices().data(), m.indices_size());
  auto mesh = BuildTriangleMesh(*vertices, indices);
  if (!mesh.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".", mesh.status().message()));
  }
  return mesh;
}

absl::Status ValidateId(const std::string& id, const std::string& field) {
  static const std::regex kId("[a-z0-9][a-z0-9_-]{0,62}");
  if (!std::regex_match(id, kId)) {
    return InvalidField(field, "must match [a-z0-9][a-z0-9_-]{0,62}");
  }
  return absl::OkStatus();
}

absl::StatusOr<Vec3> Vec3FromProto(const v1::Vec3& v, const std::string& field) {
  LIGATURE_RETURN_IF_ERROR(CheckFinite(v.x(), field + ".x"));
  LIGATURE_RETURN_IF_ERROR(CheckFinite(v.y(), field + ".y"));
  LIGATURE_RETURN_IF_ERROR(CheckFinite(v.z(), field + ".z"));
  return Vec3(v.x(), v.y(), v.z());
}

// A linear or angular velocity: finite components and a magnitude of at most kMaxSpeed.
absl::StatusOr<Vec3> VelocityFromProto(const v1::Vec3& v, const std::string& field) {
  auto out = Vec3FromProto(v, field);
  if (out.ok() && out->norm() > kMaxSpeed) {
    return InvalidField(field, absl::StrCat("magnitude must be at most ", kMaxSpeed));
  }
  return out;
}

absl::StatusOr<Quat> QuatFromProto(const v1::Quaternion& q, const std::string& field) {
  for (double c : {q.x(), q.y(), q.z(), q.w()}) LIGATURE_RETURN_IF_ERROR(CheckFinite(c, field));
  // The proto default (all zero) is the identity.
  if (q.x() == 0.0 && q.y() == 0.0 && q.z() == 0.0 && q.w() == 0.0) return Quat::Identity();
  const Quat out(q.w(), q.x(), q.y(), q.z());
  if (std::abs(out.norm() - 1.0) > 1e-6) {
    return InvalidField(field, absl::StrCat("must be a unit quaternion (x, y, z, w); norm is ",
                                       out.norm()));
  }
  return UnitQuat(out);
}

absl::StatusOr<Vec3> PositionFromProto(const v1::Vec3& p, const std::string& field) {
  auto position = Vec3FromProto(p, field);
  if (position.ok() && position->cwiseAbs().maxCoeff() > kMaxLength) {
    return InvalidField(field, absl::StrCat("must be within ", kMaxLength, " m"));
  }
  return position;
}

absl::StatusOr<Transform> PoseFromProto(const v1::Pose& p, const std::string& field) {
  auto position = PositionFromProto(p.position(), field + ".position");
  if (!position.ok()) return position.status();
  auto orientation = QuatFromProto(p.orientation(), field + ".orientation");
  if (!orientation.ok()) return orientation.status();
  return Transform{*position, *orientation};
}

absl::StatusOr<GivenInertia> InertiaFromProto(const v1::Inertia& in, const std::string& field) {
  GivenInertia out;
  auto center = PositionFromProto(in.center_of_mass(), field + ".center_of_mass");
  if (!center.ok()) return center.status();
  out.center = *center;
  // The tensor: finite, positive definite, its principal moments a possible solid's.
  const double ixx = in.ixx(), iyy = in.iyy(), izz = in.izz();
  const double ixy = in.ixy(), ixz = in.ixz(), iyz = in.iyz();
  for (const double v : {ixx, iyy, izz, ixy, ixz, iyz}) {
    if (!std::isfinite(v) || std::abs(v) > kMaxInertia) {
      return InvalidField(field, absl::StrCat("components must be finite and within ",
                                              kMaxInertia, " kg m^2"));
    }
  }
  out.tensor << ixx, ixy, ixz, ixy, iyy, iyz, ixz, iyz, izz;
  const Vec3 moments = Eigen::SelfAdjointEigenSolver<Mat3>(out.tensor).eigenvalues();
  const double tolerance = 1e-9 * moments.cwiseAbs().maxCoeff();
  if (!(moments.minCoeff() > tolerance)) {
    return InvalidField(field, "must be positive definite");
  }
  if (moments.maxCoeff() > moments.sum() - moments.maxCoeff() + tolerance) {
    return InvalidField(field, "principal moments must satisfy the triangle inequality "
                               "(each at most the sum of the other two)");
  }
  return out;
}

void InertiaToProto(const GivenInertia& in, v1::Inertia* out) {
  Vec3ToProto(in.center, out->mutable_center_of_mass());
  out->set_ixx(in.tensor(0, 0));
  out->set_iyy(in.tensor(1, 1));
  out->set_izz(in.tensor(2, 2));
  out->set_ixy(in.tensor(0, 1));
  out->set_ixz(in.tensor(0, 2));
  out->set_iyz(in.tensor(1, 2));
}

absl::StatusOr<Material> MaterialFromProto(const v1::Material& m, const std::string& field) {
  Material out;
  if (m.has_density()) {
    LIGATURE_RETURN_IF_ERROR(CheckPositive(m.density(), field + ".density"));
    if (m.density() > kMaxDensity) {
      return InvalidField(field + ".density",
                          absl::StrCat("must be at most ", kMaxDensity, " kg/m^3"));
    }
    out.density = m.density();
  }
  if (!std::isfinite(m.mass()) || m.mass() < 0.0 || m.mass() > kMaxMass) {
    return InvalidField(field + ".mass", absl::StrCat("must be in [0, ", kMaxMass, "] kg"));
  }
  out.mass = m.mass();
  if (m.has_friction()) {
    if (!std::isfinite(m.friction()) || m.friction() < 0.0) {
      return InvalidField(field + ".friction", "must be finite and >= 0");
    }
    out.friction = m.friction();
  }
  if (!std::isfinite(m.restitution()) || m.restitution() < 0.0 || m.restitution() > 1.0) {
    return InvalidField(field + ".restitution", "must be in [0, 1]");
  }
  out.restitution = m.restitution();
  // Rolling and spinning resistance: lever arms (m), unset means none.
  if (m.has_rolling_friction()) {
    LIGATURE_RETURN_IF_ERROR(CheckLeverArm(m.rolling_friction(), field + ".rolling_friction"));
    out.rolling_friction = m.rolling_friction();
  }
  if (m.has_spinning_friction()) {
    LIGATURE_RETURN_IF_ERROR(
        CheckLeverArm(m.spinning_friction(), field + ".spinning_friction"));
    out.spinning_friction = m.spinning_friction();
  }
  if (m.has_inertia()) {
    auto inertia = InertiaFromProto(m.inertia(), field + ".inertia");
    if (!inertia.ok()) return inertia.status();
    if (out.mass <= 0.0) return InvalidField(field + ".mass", "must be > 0 with an inertia");
    out.inertia = *inertia;
  }
  return out;
}

absl::StatusOr<BodyDesc> BodyFromProto(const v1::Body& b, const std::string& field,
                                       const MeshAssetLookup& assets) {
  BodyDesc out;
  if (!b.id().empty()) LIGATURE_RETURN_IF_ERROR(ValidateId(b.id(), field + ".id"));
  out.id = b.id();
  switch (b.kind()) {
    case v1::BODY_KIND_UNSPECIFIED:
    case v1::BODY_KIND_DYNAMIC:
      out.kind = BodyKind::kDynamic;
      break;
    case v1::BODY_KIND_KINEMATIC:
      out.kind = BodyKind::kKinematic;
      break;
    case v1::BODY_KIND_STATIC:
      out.kind = BodyKind::kStatic;
      break;
    default:
      return InvalidField(field + ".kind", "unknown body kind");
  }
  if (b.has_scalpel() && (b.has_rod() || b.has_soft() || b.has_strand())) {
    return InvalidField(field + ".scalpel", "only a rigid body can be a scalpel");
  }
  // Rods, soft bodies and strands have layers and masks too, but push whatever they meet.
  if (b.collision().sensor() && (b.has_rod() || b.has_soft() || b.has_strand())) {
    return InvalidField(field + ".collision.sensor", "only a rigid body can be a sensor");
  }
  const CollisionFilter collision = CollisionFilterFromProto(b.collision());
  // A rod: its own shape and material; the rigid fields are not read.
  if (b.has_rod()) {
    auto rod = RodFromProto(b.rod(), field + ".rod");
    if (!rod.ok()) return rod.status();
    out.body = *std::move(rod);
    out.rod()->collision = collision;
    return out;
  }
  // A soft body: its mesh placed at the body's pose.
  if (b.has_soft()) {
    auto pose = PoseFromProto(b.pose(), field + ".pose");
    if (!pose.ok()) return pose.status();
    auto soft = SoftBodyFromProto(b.soft(), *pose, field + ".soft");
    if (!soft.ok()) return soft.status();
    out.body = *std::move(soft);
    out.soft()->collision = collision;
    return out;
  }
  // A strand: its base frame is the body's pose.
  if (b.has_strand()) {
    auto pose = PoseFromProto(b.pose(), field + ".pose");
    if (!pose.ok()) return pose.status();
    auto strand = StrandFromProto(b.strand(), *pose, field + ".strand");
    if (!strand.ok()) return strand.status();
    out.body = *std::move(strand);
    out.strand()->collision = collision;
    return out;
  }
  // A rigid body: a shape or a compound, its material, pose and velocities, and maybe a
  // scalpel.
  RigidBodyDesc& rigid = *out.rigid();
  if (b.shape().has_compound()) {
    auto children = CompoundFromProto(b.shape().compound(), field + ".shape.compound", assets);
    if (!children.ok()) return children.status();
    rigid.children = std::move(*children);
  } else {
    auto shape = ShapeFromProto(b.shape(), field + ".shape", assets);
    if (!shape.ok()) return shape.status();
    rigid.shape = *shape;
  }
  if (rigid.children.empty() && rigid.shape.type == ShapeType::kPlane &&
      out.kind != BodyKind::kStatic) {
    return InvalidField(field + ".kind", "a plane must be BODY_KIND_STATIC");
  }
  if (rigid.children.empty() && rigid.shape.type == ShapeType::kMesh &&
      out.kind == BodyKind::kDynamic) {
    return InvalidField(field + ".kind",
                        "a mesh or height field must be BODY_KIND_STATIC or BODY_KIND_KINEMATIC "
                        "(a dynamic concave body is a compound of hulls)");
  }
  auto material = MaterialFromProto(b.material(), field + ".material");
  if (!material.ok()) return material.status();
  rigid.material = *material;
  auto pose = PoseFromProto(b.pose(), field + ".pose");
  if (!pose.ok()) return pose.status();
  rigid.pose = *pose;
  auto v = VelocityFromProto(b.linear_velocity(), field + ".linear_velocity");
  if (!v.ok()) return v.status();
  rigid.linear_velocity = *v;
  auto w = VelocityFromProto(b.angular_velocity(), field + ".angular_velocity");
  if (!w.ok()) return w.status();
  rigid.angular_velocity = *w;
  rigid.collision = collision;
  if (b.has_scalpel()) {
    auto scalpel = ScalpelFromProto(b.scalpel(), field + ".scalpel");
    if (!scalpel.ok()) return scalpel.status();
    rigid.scalpel = *scalpel;
  }
  return out;
}

absl::StatusOr<SolverSettings> SolverFromProto(const v1::SolverSettings& s,
                                               const std::string& field) {
  SolverSettings out;
  switch (s.kind()) {
    case v1::SOLVER_KIND_UNSPECIFIED:
    case v1::SOLVER_KIND_GAUSS_SEIDEL:
      out.kind = SolverKind::kGaussSeidel;
      break;
    case v1::SOLVER_KIND_TUNABLE_LCP:
      out.kind = SolverKind::kTunableLcp;
      break;
    default:
      return InvalidField(field + ".kind", "unknown solver kind");
  }
  if (s.max_iterations() != 0) {
    if (s.max_iterations() < 1 || s.max_iterations() > 10000) {
      return InvalidField(field + ".max_iterations", "must be in [1, 10000]");
    }
    out.max_iterations = s.max_iterations();
  }
  if (s.has_tolerance()) {
    if (!std::isfinite(s.tolerance()) || s.tolerance() < 0.0) {
      return InvalidField(field + ".tolerance", "must be finite and >= 0");
    }
    out.tolerance = s.tolerance();
  }
  if (s.has_warm_start()) out.warm_start = s.warm_start();
  if (!std::isfinite(s.time_budget_us()) || s.time_budget_us() < 0.0 ||
      s.time_budget_us() > 1e6) {
    return InvalidField(field + ".time_budget_us", "must be in [0, 1e6] us");
  }
  out.time_budget_us = s.time_budget_us();
  if (s.has_position_share()) {
    if (!std::isfinite(s.position_share()) || s.position_share() < 0.0 ||
        s.position_share() > 1.0) {
      return InvalidField(field + ".position_share", "must be in [0, 1]");
    }
    out.position_share = s.position_share();
  }
  if (s.has_substeps()) {
    if (s.substeps() < 1 || s.substeps() > kMaxSubsteps) {
      return InvalidField(field + ".substeps", "must be in [1, 64]");
    }
    out.substeps = s.substeps();
  }
  return out;
}

absl::StatusOr<SleepSettings> SleepFromProto(const v1::SleepSettings& s,
                                             const std::string& field) {
  SleepSettings out;
  out.enabled = s.enabled();
  for (const auto& [has, value, name, top, target] :
       {std::tuple{s.has_linear_speed(), s.linear_speed(), ".linear_speed", 1e3,
                   &out.linear_speed},
        std::tuple{s.has_angular_speed(), s.angular_speed(), ".angular_speed", 1e3,
                   &out.angular_speed},
        std::tuple{s.has_time_to_sleep(), s.time_to_sleep(), ".time_to_sleep", 3600.0,
                   &out.time_to_sleep}}) {
    if (!has) continue;
    if (!std::isfinite(value) || value < 0.0 || value > top) {
      return InvalidField(field + name, absl::StrCat("must be in [0, ", top, "]"));
    }
    *target = value;
  }
  return out;
}

absl::StatusOr<WorldSettings> SettingsFromProto(const v1::WorldSettings& s,
                                                const std::string& field) {
  WorldSettings out;
  if (s.rate_hz() != 0.0) {
    if (!std::isfinite(s.rate_hz()) || s.rate_hz() < 1.0 || s.rate_hz() > 1000.0) {
      return InvalidField(field + ".rate_hz", "must be in [1, 1000] Hz");
    }
    out.rate_hz = s.rate_hz();
  }
  if (s.has_gravity()) {
    auto g = Vec3FromProto(s.gravity(), field + ".gravity");
    if (!g.ok()) return g.status();
    if (g->norm() > 1e4) return InvalidField(field + ".gravity", "must be at most 1e4 m/s^2");
    out.gravity = *g;
  }
  out.paused = s.paused();
  auto solver = SolverFromProto(s.solver(), field + ".solver");
  if (!solver.ok()) return solver.status();
  out.solver = *solver;
  if (s.has_contact_margin()) {
    if (!std::isfinite(s.contact_margin()) || s.contact_margin() < 0.0 ||
        s.contact_margin() > 10.0) {
      return InvalidField(field + ".contact_margin", "must be in [0, 10] m");
    }
    out.contact_margin = s.contact_margin();
  }
  auto sleep = SleepFromProto(s.sleep(), field + ".sleep");
  if (!sleep.ok()) return sleep.status();
  out.sleep = *sleep;
  return out;
}

absl::StatusOr<SceneDesc> SceneFromProto(const v1::Scene& scene,
                                         const MeshAssetLookup& assets) {
  SceneDesc out;
  auto settings = SettingsFromProto(scene.settings(), "settings");
  if (!settings.ok()) return settings.status();
  out.settings = *settings;
  for (int i = 0; i < scene.bodies_size(); ++i) {
    auto body = BodyFromProto(scene.bodies(i), absl::StrCat("bodies[", i, "]"), assets);
    if (!body.ok()) return body.status();
    out.bodies.push_back(std::move(*body));
  }
  for (int i = 0; i < scene.constraints_size(); ++i) {
    auto c = ConstraintFromProto(scene.constraints(i), absl::StrCat("constraints[", i, "]"));
    if (!c.ok()) return c.status();
    out.constraints.push_back(std::move(*c));
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Engine -> proto.

void Vec3ToProto(const Vec3& v, v1::Vec3* out) {
  out->set_x(v.x());
  out->set_y(v.y());
  out->set_z(v.z());
}

void QuatToProto(const Quat& q, v1::Quaternion* out) {
  out->set_x(q.x());
  out->set_y(q.y());
  out->set_z(q.z());
  out->set_w(q.w());
}

void PoseToProto(const Transform& t, v1::Pose* out) {
  Vec3ToProto(t.position, out->mutable_position());
  QuatToProto(t.orientation, out->mutable_orientation());
}

v1::WorldSettings SettingsToProto(const WorldSettings& s) {
  v1::WorldSettings out;
  out.set_rate_hz(s.rate_hz);
  Vec3ToProto(s.gravity, out.mutable_gravity());
  out.set_paused(s.paused);
  out.mutable_solver()->set_kind(s.solver.kind == SolverKind::kTunableLcp
                                     ? v1::SOLVER_KIND_TUNABLE_LCP
                                     : v1::SOLVER_KIND_GAUSS_SEIDEL);
  out.mutable_solver()->set_time_budget_us(s.solver.time_budget_us);
  out.mutable_solver()->set_position_share(s.solver.position_share);
  // One substep is the default, left out so that earlier snapshots keep their bytes.
  if (s.solver.substeps != 1) out.mutable_solver()->set_substeps(s.solver.substeps);
  out.mutable_solver()->set_max_iterations(s.solver.max_iterations);
  out.mutable_solver()->set_tolerance(s.solver.tolerance);
  out.mutable_solver()->set_warm_start(s.solver.warm_start);
  out.set_contact_margin(s.contact_margin);
  if (!(s.sleep == SleepSettings{})) {
    v1::SleepSettings& sleep = *out.mutable_sleep();
    sleep.set_enabled(s.sleep.enabled);
    sleep.set_linear_speed(s.sleep.linear_speed);
    sleep.set_angular_speed(s.sleep.angular_speed);
    sleep.set_time_to_sleep(s.sleep.time_to_sleep);
  }
  return out;
}

namespace {

// A height field's grid as it was given.
void HeightFieldToProto(const HeightField& grid, v1::HeightField* out) {
  out->set_rows(static_cast<uint32_t>(grid.rows));
  out->set_columns(static_cast<uint32_t>(grid.columns));
  out->set_spacing_x(grid.spacing_x);
  out->set_spacing_z(grid.spacing_z);
  out->mutable_heights()->Assign(grid.heights.begin(), grid.heights.end());
  out->mutable_holes()->Assign(grid.holes.begin(), grid.holes.end());
}

}  // namespace

void ShapeToProto(const Shape& s, v1::Shape* shape) {
  // A shape made from an asset gives back the reference, not the geometry.
  if (s.asset) {
    MeshAssetShapeToProto(s, shape->mutable_mesh_asset());
    return;
  }
  switch (s.type) {
    case ShapeType::kSphere:
      shape->mutable_sphere()->set_radius(s.radius);
      break;
    case ShapeType::kBox:
      Vec3ToProto(s.half_extents, shape->mutable_box()->mutable_half_extents());
      break;
    case ShapeType::kCapsule:
      shape->mutable_capsule()->set_radius(s.radius);
      shape->mutable_capsule()->set_half_length(s.half_length);
      break;
    case ShapeType::kPlane:
      shape->mutable_plane();
      break;
    case ShapeType::kHull: {
      v1::ConvexHull* hull = shape->mutable_hull();
      for (const Vec3& p : s.hull->points) Vec3ToProto(p, hull->add_points());
      hull->set_max_vertices(s.hull->max_vertices);
      hull->set_weld_tolerance(s.hull->weld_tolerance);
      break;
    }
    case ShapeType::kMesh: {
      if (const HeightField* grid = s.mesh->height_field.get()) {
        HeightFieldToProto(*grid, shape->mutable_height_field());
        break;
      }
      v1::TriangleMesh* mesh = shape->mutable_mesh();
      for (const Vec3& v : s.mesh->vertices) Vec3ToProto(v, mesh->add_vertices());
      for (const auto& t : s.mesh->triangles) {
        for (const int i : t) mesh->add_indices(static_cast<uint32_t>(i));
      }
      break;
    }
  }
}

v1::Body BodyToProto(const BodyDesc& b) {
  v1::Body out;
  out.set_id(b.id);
  switch (b.kind) {
    case BodyKind::kDynamic:
      out.set_kind(v1::BODY_KIND_DYNAMIC);
      break;
    case BodyKind::kKinematic:
      out.set_kind(v1::BODY_KIND_KINEMATIC);
      break;
    case BodyKind::kStatic:
      out.set_kind(v1::BODY_KIND_STATIC);
      break;
  }
  // The body's layers and mask, when not the default (any kind of body).
  const auto collision = [&out](const CollisionFilter& f) {
    if (f != CollisionFilter{}) CollisionFilterToProto(f, out.mutable_collision());
  };
  if (const RodDesc* rod = b.rod()) {
    RodToProto(*rod, out.mutable_rod());
    collision(rod->collision);
    return out;
  }
  if (const SoftBodyDesc* soft = b.soft()) {
    SoftBodyToProto(*soft, out.mutable_soft());
    collision(soft->collision);
    return out;
  }
  if (const StrandBodyDesc* strand = b.strand()) {
    StrandToProto(*strand, out.mutable_strand());
    PoseToProto(strand->pose, out.mutable_pose());
    collision(strand->collision);
    return out;
  }
  // A rigid body: its shape or compound, material, pose, velocities and scalpel role.
  const RigidBodyDesc& rigid = *b.rigid();
  if (rigid.children.empty()) {
    ShapeToProto(rigid.shape, out.mutable_shape());
  } else {
    v1::Compound* compound = out.mutable_shape()->mutable_compound();
    for (const ChildShape& c : rigid.children) {
      v1::CompoundChild* child = compound->add_children();
      ShapeToProto(c.shape, child->mutable_shape());
      PoseToProto(c.local, child->mutable_pose());
      if (c.filter) CollisionFilterToProto(*c.filter, child->mutable_collision());
    }
  }
  v1::Material* m = out.mutable_material();
  m->set_density(rigid.material.density);
  m->set_mass(rigid.material.mass);
  m->set_friction(rigid.material.friction);
  m->set_restitution(rigid.material.restitution);
  // Rolling and spinning resistance only when there is some (unset reads back as none).
  if (rigid.material.rolling_friction > 0.0) {
    m->set_rolling_friction(rigid.material.rolling_friction);
  }
  if (rigid.material.spinning_friction > 0.0) {
    m->set_spinning_friction(rigid.material.spinning_friction);
  }
  if (rigid.material.inertia) InertiaToProto(*rigid.material.inertia, m->mutable_inertia());
  PoseToProto(rigid.pose, out.mutable_pose());
  Vec3ToProto(rigid.linear_velocity, out.mutable_linear_velocity());
  Vec3ToProto(rigid.angular_velocity, out.mutable_angular_velocity());
  collision(rigid.collision);
  if (rigid.scalpel) ScalpelToProto(*rigid.scalpel, out.mutable_scalpel());
  return out;
}

v1::Scene SceneToProto(const SceneDesc& scene) {
  v1::Scene out;
  *out.mutable_settings() = SettingsToProto(scene.settings);
  for (const BodyDesc& b : scene.bodies) *out.add_bodies() = BodyToProto(b);
  for (const ConstraintDesc& c : scene.constraints) *out.add_constraints() = ConstraintToProto(c);
  return out;
}

}  // namespace ligature
