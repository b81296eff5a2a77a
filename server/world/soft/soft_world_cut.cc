// Scalpels cutting soft bodies, once a tick after the bodies moved (the method of
// server/model/soft/cutting.h). For each scalpel and each body that allows cutting:
//   - the tip touches when it is under the surface or within contact_distance of it; its
//     contact point is the closest surface point. Under the surface it presses: the touched
//     triangle follows the tip, which loads the tissue. A stroke starts at the first touch;
//   - the geometric criterion compares the stroke's anchor (its last attempt) with this
//     tick's contact point; an attempt moves the anchor there, so the cutting line goes on;
//   - the physical criterion takes the largest cutting stress in the tets the tip loads and
//     at the new closest vertex, each tet with its damage; reaching the toughness cuts. The
//     stress is the St Venant-Kirchhoff second Piola-Kirchhoff stress of the tet's
//     deformation for FEM bodies (the StVK model's own stress; the corotational model's
//     material taken as StVK), and the equivalent (virial) stress of the springs and volume
//     terms for mass-point bodies (mass_point_stress.h);
//   - the cut separates the tets along the cutting line v0 -> v1 down to cut_depth, rebuilds
//     the body's model on the new topology and damages the cut tets, so that the crack
//     goes on more easily than it started.
// A failure anywhere leaves the body as it was: a cut is all or nothing.

#include <algorithm>
#include <memory>
#include <optional>

#include "server/model/soft/cutting.h"
#include "server/model/soft/mass_point_stress.h"
#include "server/world/soft/soft_world.h"

namespace ligature {
namespace {

// The largest cutting stress over the tets that use one of `vertices`, each with its damage.
double LargestStress(const SoftWorld::Body& body, std::span<const int> vertices,
                     CuttingParams params) {
  double largest = 0.0;
  const std::vector<Vec3>& x = body.positions();
  const TetMesh& mesh = body.desc.mesh;
  // A mass-point body's spring shares, built when a stroke needs them.
  std::optional<MassPointStress> springs;
  if (body.mass_point) springs.emplace(*body.mass_point);
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const auto& tet = mesh.tets[t];
    const bool touched = std::any_of(tet.begin(), tet.end(), [&](int v) {
      return std::find(vertices.begin(), vertices.end(), v) != vertices.end();
    });
    if (!touched) continue;
    if (!body.damage.empty()) params.zeta = body.damage[t];
    if (springs) {
      const CuttingStress stress =
          EvaluateCuttingStress(springs->Stress(*body.mass_point, x, t), params);
      largest = std::max(largest, stress.sigma_c);
      continue;
    }
    const LameParameters& lame = body.fem ? body.fem->lame() : body.stvk->lame();
    const absl::StatusOr<CuttingStress> stress =
        TetCuttingStress(mesh, *body.fem_rest(), lame, x, t, params);
    if (stress.ok()) largest = std::max(largest, stress->sigma_c);
  }
  return largest;
}

// Where the tip meets the surface, from the closest surface point to it.
struct Touch {
  Vec3 contact = Vec3::Zero();  // the closest surface point
  Vec3 normal = Vec3::Zero();   // the touched triangle's outward unit normal
  bool below = false;           // the tip is under the surface
};

Touch TouchAt(const Vec3& tip, const SurfacePoint& touch, const SoftWorld::Body& body) {
  const auto& tri = body.surface.triangles[touch.triangle];
  const std::vector<Vec3>& x = body.positions();
  Touch t;
  t.contact = touch.barycentric[0] * x[tri[0]] + touch.barycentric[1] * x[tri[1]] +
              touch.barycentric[2] * x[tri[2]];
  t.normal = (x[tri[1]] - x[tri[0]]).cross(x[tri[2]] - x[tri[0]]).normalized();
  t.below = (tip - t.contact).dot(t.normal) < 0.0;
  return t;
}

Vec3 PressTip(const Vec3& tip, const SurfacePoint& touch, const Touch& at,
              SoftWorld::Body* body) {
  if (!at.below) return at.contact;
  const auto& tri = body->surface.triangles[touch.triangle];
  std::vector<Vec3>& x = body->mutable_positions();
  std::vector<Vec3>& v = body->mutable_velocities();
  const Vec3& contact = at.contact;
  const Vec3& normal = at.normal;
  double weights = 0.0;
  for (int k = 0; k < 3; ++k) {
    if (!body->held(tri[k])) weights += touch.barycentric[k] * touch.barycentric[k];
  }
  if (!(weights > 0.0)) return contact;
  for (int k = 0; k < 3; ++k) {
    const int i = tri[k];
    if (body->held(i)) continue;
    x[i] += (touch.barycentric[k] / weights) * (tip - contact);
    v[i] -= v[i].dot(normal) * normal;
  }
  return tip;
}

// The body's model rebuilt on the cut mesh, with `state` (FEM positions and velocities,
// extended to the duplicates); false, with the body unchanged, when a model cannot be
// built. A mass-point body keeps its local constraints (the set grows to the new vertices)
// and its held vertices' duplicates are held too; a Verlet body's previous positions are
// extended like its positions.
bool RebuildModel(const TetMesh& mesh, const std::vector<int>& fixed,
                  std::span<const VertexSplit> splits, FemState state, SoftWorld::Body* body) {
  if (body->mass_point) {
    absl::StatusOr<MassPointModel> rebuilt =
        MassPointModel::FromTetMesh(mesh, body->desc.mass_point, fixed);
    if (!rebuilt.ok()) return false;
    std::vector<Vec3> x_prev = body->mass_point_state.x_prev;
    if (!x_prev.empty()) {
      for (const VertexSplit& split : splits) x_prev.push_back(x_prev[split.original]);
    }
    if (!body->constraints.GrowPoints(rebuilt->points()).ok()) return false;
    for (const VertexSplit& split : splits) {
      auto owner = body->vertex_owner.find(split.original);
      if (owner == body->vertex_owner.end() || owner->second != "fixed_vertices") continue;
      body->vertex_owner[split.duplicate] = "fixed_vertices";
    }
    body->mass_point = *std::move(rebuilt);
    body->mass_point_state.x = std::move(state.x);
    body->mass_point_state.v = std::move(state.v);
    body->mass_point_state.x_prev = std::move(x_prev);
    return true;
  }
  if (body->fem) {
    absl::StatusOr<CorotationalModel> rebuilt =
        CorotationalModel::Make(mesh, body->fem->material(), fixed);
    if (!rebuilt.ok()) return false;
    // The scratch's sparsity pattern changed; the rest factorization carries on, mapped
    // onto the new mesh, while the new mesh's is made.
    const CorotationalModel model_before = *std::move(body->fem);
    body->fem = *std::move(rebuilt);
    std::shared_ptr<CorotationalSystem> before = std::move(body->system);
    body->system = std::make_shared<CorotationalSystem>();
    const double h = before->time_step();
    body->refresh.AfterCut(*body->fem, model_before.mesh(), splits, h, std::move(before),
                           body->system.get());
  } else {
    absl::StatusOr<StVKModel> rebuilt = StVKModel::Make(mesh, body->stvk->material(), fixed);
    if (!rebuilt.ok()) return false;
    body->stvk = *std::move(rebuilt);
  }
  body->fem_state = std::move(state);
  // The last step's dv was for the mesh before the cut: the next step starts afresh.
  body->fem_state.dv.clear();
  return true;
}

}  // namespace

// The cut works on copies of the body's mesh, rest data and state, committed only when
// every step succeeded. A mass-point body's rest data (masses, held vertices) is that of
// the FEM rest of its mesh: its masses come from the tets' volumes alike, and the local
// remeshing moves rest positions the same way.
std::optional<CutEvent> CutSoftBody(const SoftTool& tool, Vec3 to,
                                    const CuttingAttempt& attempt, SoftWorld::Body* body) {
  if (!body->desc.cutting) return std::nullopt;
  TetMesh mesh = body->desc.mesh;
  FemMaterial material = body->desc.fem;
  FemRest rest;
  FemState state;
  if (body->mass_point) {
    material.density = body->desc.mass_point.density;
    absl::StatusOr<FemRest> made = MakeFemRest(mesh, material, body->desc.fixed);
    if (!made.ok()) return std::nullopt;
    rest = *std::move(made);
    state = {body->mass_point_state.x, body->mass_point_state.v};
  } else {
    rest = *body->fem_rest();
    state = body->fem_state;
  }
  // Local remeshing: the cutting line's vertex onto the tip (refused moves are skipped).
  if (tool.scalpel.reposition_cut_line) {
    (void)MoveCutVertex(attempt.v1, to, material, &mesh, &rest, &state);
  }
  const absl::StatusOr<CutPlane> plane = CutPlaneFromAttempt(state.x, attempt);
  if (!plane.ok()) return std::nullopt;
  // The blade sweeps the cutting line's segment v0 -> v1, which lies in the plane, down
  // to the cut depth. The line runs along mesh vertices, so the tets on both sides of it
  // only touch the blade: they count within `touching` of it. The blade is pulled in from
  // the line's ends and from the surface by twice that, so that the tets beyond its ends
  // or above it, which touch it only at an edge, do not.
  const Vec3 line = state.x[attempt.v1] - state.x[attempt.v0];
  const double touching = 0.05 * line.norm();
  const Vec3 inward = -attempt.normal * (2.0 * touching);
  const Vec3 along = line * 0.1;
  const BladeSweep blade{state.x[attempt.v0] + along + inward,
                         state.x[attempt.v1] - along + inward,
                         -tool.scalpel.cut_depth * attempt.normal};
  const absl::StatusOr<std::vector<int>> tets = SelectBladeTets(mesh, state.x, blade, touching);
  if (!tets.ok() || tets->empty()) return std::nullopt;
  const absl::StatusOr<SeparationResult> separated =
      SeparateAlongPlane(*plane, *tets, state.x, &mesh);
  if (!separated.ok() || separated->splits.empty()) return std::nullopt;
  if (!ExtendStateAfterSplit(separated->splits, &state).ok()) return std::nullopt;

  // Held vertices stay held on both sides of the cut.
  std::vector<char> held = rest.fixed;
  for (const VertexSplit& split : separated->splits) {
    held.resize(std::max<size_t>(held.size(), split.duplicate + 1), 0);
    held[split.duplicate] = held[split.original];
  }
  std::vector<int> fixed;
  for (size_t v = 0; v < held.size(); ++v) {
    if (held[v]) fixed.push_back(static_cast<int>(v));
  }
  if (!RebuildModel(mesh, fixed, separated->splits, std::move(state), body)) return std::nullopt;

  // Commit the rest: surface and description.
  body->surface = ExtractBoundary(mesh);
  body->surface_vertices = SurfaceVertices(body->surface);
  body->desc.fixed = std::move(fixed);
  body->desc.mesh = std::move(mesh);
  ++body->topology_version;
  // The tets the cut passed are damaged: the crack goes on from there more easily.
  const CuttingParams& cutting = *body->desc.cutting;
  if (body->damage.empty()) body->damage.assign(body->desc.mesh.tets.size(), cutting.zeta);
  for (const int t : *tets) body->damage[t] = std::min(body->damage[t], cutting.cut_zeta);

  CutEvent event;
  event.body = body->desc.id;
  event.tool = tool.id;
  event.point = to;
  event.tets_separated = static_cast<int>(tets->size());
  event.vertices_added = static_cast<int>(separated->splits.size());
  event.pieces = CountPieces(body->desc.mesh);
  return event;
}

void SoftWorld::CutWithTools(std::span<const SoftTool> tools) {
  cuts_.clear();
  for (Body& body : bodies_) {
    if (!body.desc.cutting) continue;
    for (const SoftTool& tool : tools) {
      if (!body.desc.collision.Meets(tool.filter)) continue;
      const std::pair<std::string, std::string> key{body.desc.id, tool.id};
      const std::vector<Vec3>& x = body.positions();
      // Touch: the closest surface point to the tip, within the contact distance or below.
      const Vec3 tip = tool.pose.Apply(tool.scalpel.tip);
      const SurfacePoint touch = ClosestSurfacePoint(body.surface, x, tip);
      if (touch.triangle < 0) continue;
      const Touch at = TouchAt(tip, touch, body);
      if (!at.below && touch.distance > tool.scalpel.contact_distance) {
        stroke_anchor_.erase(key);
        continue;
      }
      const Vec3 contact = PressTip(tip, touch, at, &body);
      const auto [anchor, first_touch] = stroke_anchor_.try_emplace(key, contact);
      if (first_touch) continue;

      // Geometric criterion, from the anchor to this tick's contact point.
      CuttingParams params = *body.desc.cutting;
      params.kappa = tool.scalpel.sharpness;
      const absl::StatusOr<CuttingAttempt> attempt =
          DetectCuttingAttempt(x, body.surface, anchor->second, contact, params);
      if (!attempt.ok() || !attempt->attempt) continue;
      anchor->second = contact;

      // Physical criterion in the tets the tip loads (at the pressed triangle) and at the
      // new closest vertex, then the cut.
      const auto& tri = body.surface.triangles[touch.triangle];
      const int loaded[] = {tri[0], tri[1], tri[2], attempt->v1};
      CuttingStress stress;
      stress.sigma_c = LargestStress(body, loaded, params);
      if (!CutsThrough(stress, params)) continue;
      std::optional<CutEvent> cut = CutSoftBody(tool, contact, *attempt, &body);
      if (!cut) continue;
      cut->cutting_stress = stress.sigma_c;
      cuts_.push_back(std::move(*cut));
    }
  }
}

}  // namespace ligature
