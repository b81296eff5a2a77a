// Rods, constraints and pearls of a world: adding (with validation), removing, looking up.
// The rod stage of a step is in rod_world_step.cc.

#include "server/world/rod/rod_world.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

absl::Status Invalid(const std::string& field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

bool Finite(const Vec3& v) { return v.allFinite(); }

absl::Status ValidateMaterial(const RodMaterial& m) {
  auto positive = [](double v) { return std::isfinite(v) && v > 0.0; };
  auto non_negative = [](double v) { return std::isfinite(v) && v >= 0.0; };
  if (!positive(m.radius)) return Invalid("material.radius", "must be > 0");
  if (!positive(m.density)) return Invalid("material.density", "must be > 0");
  if (!positive(m.young)) return Invalid("material.young", "must be > 0");
  if (!positive(m.shear)) return Invalid("material.shear", "must be > 0");
  if (!non_negative(m.damping)) return Invalid("material.damping", "must be >= 0");
  if (!non_negative(m.stiffness_damping)) {
    return Invalid("material.stiffness_damping", "must be >= 0");
  }
  return absl::OkStatus();
}

// The unit tangent of a rod at u.
Vec3 UnitTangent(const RodWorld::Rod& rod, double u) {
  return rod.state.Tangent(rod.model.spline().Sample(u)).normalized();
}

}  // namespace

absl::Status RodWorld::AddRod(const RodDesc& desc) {
  if (rod_index_.contains(desc.id)) {
    return absl::AlreadyExistsError(absl::StrCat("rod ", desc.id, " already exists"));
  }
  for (size_t i = 0; i < desc.points.size(); ++i) {
    if (!Finite(desc.points[i])) return Invalid(absl::StrCat("points[", i, "]"), "not finite");
  }
  for (size_t i = 0; i < desc.rest_points.size(); ++i) {
    if (!Finite(desc.rest_points[i])) {
      return Invalid(absl::StrCat("rest_points[", i, "]"), "not finite");
    }
  }
  if (absl::Status s = ValidateMaterial(desc.material); !s.ok()) return s;
  absl::StatusOr<RodModel> model = RodModel::Make(desc);
  if (!model.ok()) return model.status();
  Rod rod{desc, *std::move(model), {}, {}, 0.0};
  rod.state = InitialRodState(rod.model, desc.points);
  rod_index_[desc.id] = static_cast<int>(rods_.size());
  rods_.push_back(std::move(rod));
  return absl::OkStatus();
}

void RodWorld::ReindexRods() {
  rod_index_.clear();
  for (size_t i = 0; i < rods_.size(); ++i) rod_index_[rods_[i].desc.id] = static_cast<int>(i);
  for (RodConstraint& c : constraints_) {
    c.rod_a = rod_index_.at(c.desc.a.rod);
    if (IsRelative(c.desc.kind)) c.rod_b = rod_index_.at(c.desc.b.rod);
  }
}

std::vector<std::string> RodWorld::RemoveRod(const std::string& id) {
  std::vector<std::string> removed;
  auto it = rod_index_.find(id);
  if (it == rod_index_.end()) return removed;
  const int index = it->second;
  std::erase_if(constraints_, [&](const RodConstraint& c) {
    const bool on = c.rod_a == index || (IsRelative(c.desc.kind) && c.rod_b == index);
    if (on) removed.push_back(c.desc.id);
    return on;
  });
  std::erase_if(pearls_, [&](const Pearl& p) {
    const bool on = p.desc.rod == id;
    if (on) removed.push_back(p.desc.id);
    return on;
  });
  rods_.erase(rods_.begin() + index);
  ReindexRods();
  return removed;
}

// Checks one rod point: the rod exists and u lies on it. A u past an end by no more than
// kEndSlack (round-off in a client's arithmetic of the length) is moved onto that end.
constexpr double kEndSlack = 1e-6;  // m
static absl::Status CheckPoint(RodPointRef& p, const std::string& field,
                               const absl::flat_hash_map<std::string, int>& index,
                               const std::vector<RodWorld::Rod>& rods) {
  auto it = index.find(p.rod);
  if (it == index.end()) {
    return absl::NotFoundError(absl::StrCat(field, ".rod: no rod ", p.rod));
  }
  const double length = rods[it->second].model.length();
  if (!std::isfinite(p.u) || p.u < -kEndSlack || p.u > length + kEndSlack) {
    return Invalid(absl::StrCat(field, ".u"), absl::StrCat("must be in [0, ", length, "] m"));
  }
  p.u = std::clamp(p.u, 0.0, length);
  return absl::OkStatus();
}

absl::Status RodWorld::AddConstraint(const RodConstraintDesc& request) {
  if (HasConstraint(request.id) || HasPearl(request.id)) {
    return absl::AlreadyExistsError(absl::StrCat("constraint ", request.id, " already exists"));
  }
  RodConstraintDesc desc = request;
  const RodConstraintKind kind = desc.kind;
  if (absl::Status s = CheckPoint(desc.a, "a", rod_index_, rods_); !s.ok()) return s;
  const bool relative = IsRelative(kind);
  if (relative) {
    if (absl::Status s = CheckPoint(desc.b, "b", rod_index_, rods_); !s.ok()) return s;
    if (desc.a.rod == desc.b.rod && std::abs(desc.a.u - desc.b.u) < 1e-9) {
      return Invalid("b", "a relative constraint needs two distinct rod points");
    }
  }
  if (!Finite(desc.target)) return Invalid("target", "not finite");
  const bool needs_direction =
      kind == RodConstraintKind::kOrientation || kind == RodConstraintKind::kPlane ||
      kind == RodConstraintKind::kAxis ||
      (kind == RodConstraintKind::kKeyhole && desc.oriented) ||
      (kind == RodConstraintKind::kRelativePlane && !desc.normal_from_tangent);
  if (needs_direction && (!Finite(desc.direction) || !(desc.direction.norm() > 1e-9))) {
    return Invalid("direction", "must be a non-zero vector");
  }
  if (!std::isfinite(desc.distance) ||
      ((kind == RodConstraintKind::kSphere || kind == RodConstraintKind::kDistance) &&
       desc.distance < 0.0)) {
    return Invalid("distance", "must be finite (and >= 0 for sphere and distance)");
  }
  if (desc.twist && !std::isfinite(*desc.twist)) return Invalid("twist", "not finite");
  if (!std::isfinite(desc.friction) || desc.friction < 0.0) {
    return Invalid("friction", "must be >= 0");
  }
  const bool can_be_unilateral =
      kind == RodConstraintKind::kDistance || kind == RodConstraintKind::kRelativePlane;
  if (desc.unilateral && !can_be_unilateral) {
    return Invalid("unilateral", "only distance and relative plane constraints can be");
  }
  if (desc.oriented && kind != RodConstraintKind::kKeyhole) {
    return Invalid("oriented", "only keyholes can be oriented");
  }
  if (kind == RodConstraintKind::kRelativeKeyhole && desc.oriented) {
    return Invalid("oriented", "only absolute keyholes can be oriented");
  }

  RodConstraint c;
  c.desc = desc;
  if (needs_direction) c.desc.direction.normalize();
  c.rod_a = rod_index_.at(desc.a.rod);
  c.u_a = desc.a.u;
  if (relative) {
    c.rod_b = rod_index_.at(desc.b.rod);
    c.u_b = desc.b.u;
    if (rods_[c.rod_a].desc.kinematic && rods_[c.rod_b].desc.kinematic) {
      return Invalid("b.rod", "both rods are held: the constraint could not act");
    }
  } else if (rods_[c.rod_a].desc.kinematic) {
    return Invalid("a.rod", "the rod is held: the constraint could not act");
  }
  if (kind == RodConstraintKind::kFusion) {
    const Vec3 ta = UnitTangent(rods_[c.rod_a], c.u_a);
    c.reference_tangent = ta;
    c.relative = Quat::FromTwoVectors(ta, UnitTangent(rods_[c.rod_b], c.u_b)).toRotationMatrix();
  }
  constraints_.push_back(std::move(c));
  return absl::OkStatus();
}

absl::Status RodWorld::RemoveConstraint(const std::string& id) {
  const auto n = std::erase_if(constraints_, [&](const RodConstraint& c) {
    return c.desc.id == id;
  });
  if (n == 0) return absl::NotFoundError(absl::StrCat("no rod constraint ", id));
  return absl::OkStatus();
}

std::vector<std::string> RodWorld::RemoveFollowing(const std::string& body_id) {
  std::vector<std::string> removed;
  std::erase_if(constraints_, [&](const RodConstraint& c) {
    const bool follows = c.desc.follow_body == body_id;
    if (follows) removed.push_back(c.desc.id);
    return follows;
  });
  return removed;
}

absl::Status RodWorld::AddPearl(const PearlDesc& request) {
  if (HasConstraint(request.id) || HasPearl(request.id)) {
    return absl::AlreadyExistsError(absl::StrCat("pearl ", request.id, " already exists"));
  }
  PearlDesc desc = request;
  RodPointRef at{desc.rod, desc.u};
  if (absl::Status s = CheckPoint(at, "at", rod_index_, rods_); !s.ok()) return s;
  desc.u = at.u;
  if (!std::isfinite(desc.mass) || desc.mass <= 0.0) return Invalid("mass", "must be > 0");
  if (!std::isfinite(desc.radius) || desc.radius < 0.0) return Invalid("radius", "must be >= 0");
  if (!std::isfinite(desc.friction) || desc.friction < 0.0) {
    return Invalid("friction", "must be >= 0");
  }
  if (!std::isfinite(desc.viscous) || desc.viscous < 0.0) {
    return Invalid("viscous", "must be >= 0");
  }
  if (!std::isfinite(desc.speed)) return Invalid("speed", "not finite");
  pearls_.push_back({desc, desc.u, desc.speed});
  return absl::OkStatus();
}

absl::Status RodWorld::RemovePearl(const std::string& id) {
  const auto n = std::erase_if(pearls_, [&](const Pearl& p) { return p.desc.id == id; });
  if (n == 0) return absl::NotFoundError(absl::StrCat("no pearl ", id));
  return absl::OkStatus();
}

bool RodWorld::HasConstraint(const std::string& id) const {
  return std::any_of(constraints_.begin(), constraints_.end(),
                     [&](const RodConstraint& c) { return c.desc.id == id; });
}
bool RodWorld::HasPearl(const std::string& id) const {
  return std::any_of(pearls_.begin(), pearls_.end(),
                     [&](const Pearl& p) { return p.desc.id == id; });
}
const RodWorld::Rod* RodWorld::FindRod(const std::string& id) const {
  auto it = rod_index_.find(id);
  return it == rod_index_.end() ? nullptr : &rods_[it->second];
}

RodWorld::SavedState RodWorld::Save() const {
  SavedState out;
  for (const Rod& rod : rods_) out.rods.push_back(rod.state);
  for (const RodConstraint& c : constraints_) {
    out.constraints.push_back({c.active, c.released, c.relative, c.reference_tangent});
  }
  out.positions_ordering = kkt_.ordering();
  out.twist_ordering = twist_kkt_.ordering();
  return out;
}

absl::Status RodWorld::Restore(SavedState state) {
  for (size_t k = 0; k < rods_.size(); ++k) rods_[k].state = std::move(state.rods[k]);
  for (size_t k = 0; k < constraints_.size(); ++k) {
    RodConstraint& c = constraints_[k];
    c.active = state.constraints[k].active;
    c.released = state.constraints[k].released;
    c.relative = state.constraints[k].relative;
    c.reference_tangent = state.constraints[k].reference_tangent;
  }
  for (auto& [field, ordering, kkt] :
       {std::tuple{"positions_ordering", &state.positions_ordering, &kkt_},
        std::tuple{"twist_ordering", &state.twist_ordering, &twist_kkt_}}) {
    if (absl::Status s = kkt->SetOrdering(std::move(*ordering)); !s.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".", s.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace ligature
