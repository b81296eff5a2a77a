#include "server/scene/soft_proto.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "server/scene/field_error.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

constexpr size_t kMaxGmshBytes = 16 << 20;
constexpr int kMaxVertices = 200000;

// An optional positive (or non-negative) value, or its default.
absl::StatusOr<double> ValueOr(bool present, double value, double fallback, bool zero_ok,
                               const std::string& field) {
  if (!present) return fallback;
  if (!std::isfinite(value) || value < 0.0 || (!zero_ok && value == 0.0)) {
    return InvalidField(field, zero_ok ? "must be >= 0" : "must be > 0");
  }
  return value;
}

absl::Status CheckCount(int value, int lo, int hi, const std::string& field) {
  if (value < lo || value > hi)
    return InvalidField(field, absl::StrCat("must be in [", lo, ", ", hi, "]"));
  return absl::OkStatus();
}

// Explicit tetrahedra must be positively oriented and not degenerate, and every face must
// belong to at most two of them (a manifold volume); the field names the first index of
// the offending tetrahedron.
absl::Status CheckTets(const TetMesh& mesh, const std::string& field) {
  double scale = 0.0;
  for (const Vec3& v : mesh.vertices) scale = std::max(scale, v.cwiseAbs().maxCoeff());
  const double tiny = 1e-15 * std::max(scale * scale * scale, 1e-30);
  absl::flat_hash_map<std::array<int, 3>, int> faces;
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    const std::string at = absl::StrCat(field, "[", 4 * t, "]");
    const double volume = TetVolume(mesh, static_cast<int>(t));
    if (!(std::abs(volume) > tiny)) return InvalidField(at, "a degenerate (flat) tetrahedron");
    if (volume < 0.0) return InvalidField(at, "an inverted tetrahedron (negative volume)");
    const auto& k = mesh.tets[t];
    for (const std::array<int, 3>& f : {std::array<int, 3>{k[0], k[1], k[2]},
                                        std::array<int, 3>{k[0], k[1], k[3]},
                                        std::array<int, 3>{k[0], k[2], k[3]},
                                        std::array<int, 3>{k[1], k[2], k[3]}}) {
      std::array<int, 3> key = f;
      std::sort(key.begin(), key.end());
      if (key[0] == key[1] || key[1] == key[2]) {
        return InvalidField(at, "a tetrahedron repeats a vertex");
      }
      if (++faces[key] > 2) return InvalidField(at, "a face shared by more than two tetrahedra");
    }
  }
  return absl::OkStatus();
}

// The mesh in the body frame, from whichever source the message holds.
absl::StatusOr<TetMesh> MeshFromProto(const v1::SoftBody& s, const std::string& field) {
  switch (s.mesh_case()) {
    case v1::SoftBody::kBox: {
      const v1::SoftBoxMesh& b = s.box();
      auto half = Vec3FromProto(b.half_extents(), field + ".box.half_extents");
      if (!half.ok()) return half.status();
      if (!(half->minCoeff() > 0.0))
        return InvalidField(field + ".box.half_extents", "each must be > 0");
      for (const auto& [n, name] : {std::pair{b.cells_x(), "cells_x"}, {b.cells_y(), "cells_y"},
                                    {b.cells_z(), "cells_z"}}) {
        if (auto st = CheckCount(n, 1, 64, absl::StrCat(field, ".box.", name)); !st.ok()) return st;
      }
      return MakeBoxMesh(*half, b.cells_x(), b.cells_y(), b.cells_z());
    }
    case v1::SoftBody::kSphere: {
      const v1::SoftSphereMesh& sp = s.sphere();
      if (!std::isfinite(sp.radius()) || sp.radius() <= 0.0) {
        return InvalidField(field + ".sphere.radius", "must be > 0");
      }
      if (auto st = CheckCount(sp.resolution(), 1, 16, field + ".sphere.resolution"); !st.ok()) {
        return st;
      }
      return MakeSphereMesh(sp.radius(), sp.resolution());
    }
    case v1::SoftBody::kCylinder: {
      const v1::SoftCylinderMesh& c = s.cylinder();
      if (!std::isfinite(c.radius()) || c.radius() <= 0.0) {
        return InvalidField(field + ".cylinder.radius", "must be > 0");
      }
      if (!std::isfinite(c.half_height()) || c.half_height() <= 0.0) {
        return InvalidField(field + ".cylinder.half_height", "must be > 0");
      }
      if (auto st = CheckCount(c.rings(), 1, 32, field + ".cylinder.rings"); !st.ok()) return st;
      if (auto st = CheckCount(c.around(), 3, 128, field + ".cylinder.around"); !st.ok()) return st;
      if (auto st = CheckCount(c.layers(), 1, 64, field + ".cylinder.layers"); !st.ok()) return st;
      return MakeCylinderMesh(c.radius(), c.half_height(), c.rings(), c.around(), c.layers());
    }
    case v1::SoftBody::kGmsh: {
      if (s.gmsh().size() > kMaxGmshBytes)
        return InvalidField(field + ".gmsh", "larger than 16 MiB");
      auto mesh = ReadGmshMsh41(s.gmsh());
      if (!mesh.ok()) return InvalidField(field + ".gmsh", mesh.status().message());
      return mesh;
    }
    case v1::SoftBody::kTets: {
      const v1::TetMeshData& t = s.tets();
      if (t.vertices_size() > kMaxVertices)
        return InvalidField(field + ".tets.vertices", "too many");
      if (t.tets_size() == 0 || t.tets_size() % 4 != 0) {
        return InvalidField(field + ".tets.tets", "must hold four indices per tetrahedron");
      }
      TetMesh mesh;
      for (int i = 0; i < t.vertices_size(); ++i) {
        auto p = PositionFromProto(t.vertices(i), absl::StrCat(field, ".tets.vertices[", i, "]"));
        if (!p.ok()) return p.status();
        mesh.vertices.push_back(*p);
      }
      for (int i = 0; i < t.tets_size(); i += 4) {
        std::array<int, 4> tet;
        for (int k = 0; k < 4; ++k) {
          tet[k] = t.tets(i + k);
          if (tet[k] < 0 || tet[k] >= t.vertices_size()) {
            return InvalidField(absl::StrCat(field, ".tets.tets[", i + k, "]"),
                                "not a vertex index");
          }
        }
        mesh.tets.push_back(tet);
      }
      if (auto st = CheckTets(mesh, field + ".tets.tets"); !st.ok()) return st;
      return mesh;
    }
    case v1::SoftBody::MESH_NOT_SET:
      break;
  }
  return InvalidField(field, "a mesh (box, sphere, cylinder, gmsh or tets) is required");
}

absl::StatusOr<Integrator> IntegratorFromProto(v1::SoftIntegrator i, const std::string& field) {
  switch (i) {
    case v1::SOFT_INTEGRATOR_UNSPECIFIED:
    case v1::SOFT_INTEGRATOR_IMPLICIT_EULER: return Integrator::kImplicitEuler;
    case v1::SOFT_INTEGRATOR_EXPLICIT_EULER: return Integrator::kExplicitEuler;
    case v1::SOFT_INTEGRATOR_SEMI_IMPLICIT_EULER: return Integrator::kSemiImplicitEuler;
    case v1::SOFT_INTEGRATOR_MIDPOINT: return Integrator::kMidpoint;
    case v1::SOFT_INTEGRATOR_RUNGE_KUTTA_2: return Integrator::kRungeKutta2;
    case v1::SOFT_INTEGRATOR_VERLET: return Integrator::kVerlet;
    default: return InvalidField(field, "unknown integrator");
  }
}

v1::SoftIntegrator IntegratorToProto(Integrator i) {
  switch (i) {
    case Integrator::kExplicitEuler: return v1::SOFT_INTEGRATOR_EXPLICIT_EULER;
    case Integrator::kImplicitEuler: return v1::SOFT_INTEGRATOR_IMPLICIT_EULER;
    case Integrator::kSemiImplicitEuler: return v1::SOFT_INTEGRATOR_SEMI_IMPLICIT_EULER;
    case Integrator::kMidpoint: return v1::SOFT_INTEGRATOR_MIDPOINT;
    case Integrator::kRungeKutta2: return v1::SOFT_INTEGRATOR_RUNGE_KUTTA_2;
    case Integrator::kVerlet: return v1::SOFT_INTEGRATOR_VERLET;
  }
  return v1::SOFT_INTEGRATOR_UNSPECIFIED;
}

// The tissue's cutting parameters; the tool's sharpness is set per stroke.
absl::StatusOr<CuttingParams> CuttingFromProto(const v1::SoftCutting& c, const std::string& field) {
  CuttingParams out;
  auto toughness = ValueOr(true, c.toughness(), 0.0, false, field + ".toughness");
  auto alpha = ValueOr(c.has_neighbourhood(), c.neighbourhood(), out.alpha, false,
                       field + ".neighbourhood");
  for (const auto* v : {&toughness, &alpha}) {
    if (!v->ok()) return v->status();
  }
  out.toughness = *toughness;
  out.alpha = *alpha;
  if (c.has_damage()) {
    if (!(c.damage() >= 0.1 && c.damage() <= 1.0)) {
      return InvalidField(field + ".damage", "must be in [0.1, 1]");
    }
    out.zeta = c.damage();
  }
  if (c.has_cut_damage()) {
    if (!(c.cut_damage() >= 0.1 && c.cut_damage() <= 1.0)) {
      return InvalidField(field + ".cut_damage", "must be in [0.1, 1]");
    }
    out.cut_zeta = c.cut_damage();
  }
  out.combination = c.either_stress() ? StressCombination::kMax : StressCombination::kMin;
  return out;
}

}  // namespace

absl::StatusOr<ScalpelDesc> ScalpelFromProto(const v1::Scalpel& s, const std::string& field) {
  ScalpelDesc out;
  out.tip = Vec3(s.tip().x(), s.tip().y(), s.tip().z());
  if (!out.tip.allFinite()) return InvalidField(field + ".tip", "must be finite");
  auto depth =
      ValueOr(s.has_cut_depth(), s.cut_depth(), out.cut_depth, false, field + ".cut_depth");
  auto sharpness = ValueOr(s.has_sharpness(), s.sharpness(), out.sharpness, false,
                           field + ".sharpness");
  auto contact = ValueOr(s.has_contact_distance(), s.contact_distance(), out.contact_distance,
                         true, field + ".contact_distance");
  for (const auto* v : {&depth, &sharpness, &contact}) {
    if (!v->ok()) return v->status();
  }
  out.cut_depth = *depth;
  out.sharpness = *sharpness;
  out.contact_distance = *contact;
  out.reposition_cut_line = s.reposition_cut_line();
  return out;
}

void ScalpelToProto(const ScalpelDesc& scalpel, v1::Scalpel* out) {
  Vec3ToProto(scalpel.tip, out->mutable_tip());
  out->set_cut_depth(scalpel.cut_depth);
  out->set_sharpness(scalpel.sharpness);
  out->set_contact_distance(scalpel.contact_distance);
  out->set_reposition_cut_line(scalpel.reposition_cut_line);
}

absl::StatusOr<SoftBodyDesc> SoftBodyFromProto(const v1::SoftBody& s, const Transform& pose,
                                               const std::string& field) {
  SoftBodyDesc out;
  auto mesh = MeshFromProto(s, field);
  if (!mesh.ok()) return mesh.status();
  for (Vec3& v : mesh->vertices) v = pose.Apply(v);
  out.mesh = *std::move(mesh);
  switch (s.model()) {
    case v1::SOFT_MODEL_UNSPECIFIED:
    case v1::SOFT_MODEL_MASS_POINT: out.model = SoftModelKind::kMassPoint; break;
    case v1::SOFT_MODEL_COROTATIONAL_FEM: out.model = SoftModelKind::kCorotational; break;
    case v1::SOFT_MODEL_STVK_FEM: out.model = SoftModelKind::kStVK; break;
    default: return InvalidField(field + ".model", "unknown soft model");
  }
  auto integrator = IntegratorFromProto(s.integrator(), field + ".integrator");
  if (!integrator.ok()) return integrator.status();
  out.integrator = *integrator;
  auto density = ValueOr(s.has_density(), s.density(), 1000.0, false, field + ".density");
  auto young =
      ValueOr(s.has_young_modulus(), s.young_modulus(), 1e5, false, field + ".young_modulus");
  auto kd = ValueOr(s.has_distance_stiffness(), s.distance_stiffness(), 1e3, true,
                    field + ".distance_stiffness");
  auto kv = ValueOr(s.has_volume_stiffness(), s.volume_stiffness(), 1e3, true,
                    field + ".volume_stiffness");
  auto damping = ValueOr(true, s.damping(), 0.0, true, field + ".damping");
  auto friction = ValueOr(s.has_friction(), s.friction(), out.friction, true, field + ".friction");
  for (const auto* v : {&density, &young, &kd, &kv, &damping, &friction}) {
    if (!v->ok()) return v->status();
  }
  const double nu = s.has_poisson_ratio() ? s.poisson_ratio() : 0.3;
  if (!std::isfinite(nu) || nu < 0.0 || nu >= 0.5) {
    return InvalidField(field + ".poisson_ratio", "must be in [0, 0.5)");
  }
  out.mass_point = {*density, *kd, *kv, *damping};
  out.fem.young = *young;
  out.fem.poisson = nu;
  out.fem.density = *density;
  out.fem.mass_damping = *damping;
  out.friction = *friction;
  out.fixed.assign(s.fixed_vertices().begin(), s.fixed_vertices().end());
  if (s.has_cutting()) {
    auto cutting = CuttingFromProto(s.cutting(), field + ".cutting");
    if (!cutting.ok()) return cutting.status();
    out.cutting = *cutting;
  }
  return out;
}

absl::StatusOr<SoftConstraintDesc> SoftConstraintFromProto(const v1::SoftConstraint& c,
                                                           const std::string& field) {
  SoftConstraintDesc out;
  switch (c.kind()) {
    case v1::SOFT_CONSTRAINT_KIND_NAIL: out.type = LocalConstraintType::kNail; break;
    case v1::SOFT_CONSTRAINT_KIND_POINTS_TO_POINT:
      out.type = LocalConstraintType::kPointsToPoint;
      break;
    case v1::SOFT_CONSTRAINT_KIND_POINT_TO_LINE:
      out.type = LocalConstraintType::kPointToLine;
      break;
    case v1::SOFT_CONSTRAINT_KIND_POINT_TO_TRIANGLE:
      out.type = LocalConstraintType::kPointToTriangle;
      break;
    case v1::SOFT_CONSTRAINT_KIND_POINT_TO_TETRAHEDRON:
      out.type = LocalConstraintType::kPointToTetrahedron;
      break;
    case v1::SOFT_CONSTRAINT_KIND_POINT_TO_SURFACE:
      out.type = LocalConstraintType::kPointToSurface;
      break;
    default: return InvalidField(field + ".kind", "a soft constraint kind is required");
  }
  if (auto st = ValidateId(c.body(), field + ".body"); !st.ok()) return st;
  out.body = c.body();
  out.vertices.assign(c.vertices().begin(), c.vertices().end());
  auto goal = PositionFromProto(c.goal(), field + ".goal");
  if (!goal.ok()) return goal.status();
  out.goal = *goal;
  if (!c.follow_body().empty()) {
    if (out.type != LocalConstraintType::kNail) {
      return InvalidField(field + ".follow_body", "only a nail follows a body");
    }
    if (auto st = ValidateId(c.follow_body(), field + ".follow_body"); !st.ok()) return st;
  }
  out.follow_body = c.follow_body();
  if (c.self_assembly_steps() < 0)
    return InvalidField(field + ".self_assembly_steps", "must be >= 0");
  out.self_assembly_steps = c.self_assembly_steps();
  return out;
}

void SoftBodyToProto(const SoftBodyDesc& soft, v1::SoftBody* out) {
  v1::TetMeshData* t = out->mutable_tets();
  for (const Vec3& v : soft.mesh.vertices) Vec3ToProto(v, t->add_vertices());
  for (const auto& tet : soft.mesh.tets) {
    for (const int i : tet) t->add_tets(i);
  }
  switch (soft.model) {
    case SoftModelKind::kMassPoint: out->set_model(v1::SOFT_MODEL_MASS_POINT); break;
    case SoftModelKind::kCorotational: out->set_model(v1::SOFT_MODEL_COROTATIONAL_FEM); break;
    case SoftModelKind::kStVK: out->set_model(v1::SOFT_MODEL_STVK_FEM); break;
  }
  out->set_integrator(IntegratorToProto(soft.integrator));
  out->set_density(soft.mass_point.density);
  out->set_young_modulus(soft.fem.young);
  out->set_poisson_ratio(soft.fem.poisson);
  out->set_distance_stiffness(soft.mass_point.distance_stiffness);
  out->set_volume_stiffness(soft.mass_point.volume_stiffness);
  out->set_damping(soft.model == SoftModelKind::kMassPoint ? soft.mass_point.damping
                                                           : soft.fem.mass_damping);
  for (const int v : soft.fixed) out->add_fixed_vertices(v);
  out->set_friction(soft.friction);
  if (soft.cutting) {
    v1::SoftCutting* c = out->mutable_cutting();
    c->set_toughness(soft.cutting->toughness);
    c->set_damage(soft.cutting->zeta);
    c->set_neighbourhood(soft.cutting->alpha);
    c->set_either_stress(soft.cutting->combination == StressCombination::kMax);
    c->set_cut_damage(soft.cutting->cut_zeta);
  }
}

void SoftConstraintToProto(const SoftConstraintDesc& c, v1::SoftConstraint* out) {
  switch (c.type) {
    case LocalConstraintType::kNail: out->set_kind(v1::SOFT_CONSTRAINT_KIND_NAIL); break;
    case LocalConstraintType::kPointsToPoint:
      out->set_kind(v1::SOFT_CONSTRAINT_KIND_POINTS_TO_POINT);
      break;
    case LocalConstraintType::kPointToLine:
      out->set_kind(v1::SOFT_CONSTRAINT_KIND_POINT_TO_LINE);
      break;
    case LocalConstraintType::kPointToTriangle:
      out->set_kind(v1::SOFT_CONSTRAINT_KIND_POINT_TO_TRIANGLE);
      break;
    case LocalConstraintType::kPointToTetrahedron:
      out->set_kind(v1::SOFT_CONSTRAINT_KIND_POINT_TO_TETRAHEDRON);
      break;
    case LocalConstraintType::kPointToSurface:
      out->set_kind(v1::SOFT_CONSTRAINT_KIND_POINT_TO_SURFACE);
      break;
  }
  out->set_body(c.body);
  for (const int v : c.vertices) out->add_vertices(v);
  Vec3ToProto(c.goal, out->mutable_goal());
  out->set_follow_body(c.follow_body);
  out->set_self_assembly_steps(c.self_assembly_steps);
}

}  // namespace ligature
