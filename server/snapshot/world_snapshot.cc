// World snapshots: capture of the changing state, and a checked rebuild from one.

#include "server/snapshot/world_snapshot.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <tuple>
#include <utility>

#include "absl/strings/str_cat.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

using Doubles = google::protobuf::RepeatedField<double>;

absl::Status Invalid(const std::string& field, absl::string_view why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

// ---- Writing: flat packed doubles -----------------------------------------------------

void Put(const Vec3& v, Doubles* out) {
  out->Add(v.x());
  out->Add(v.y());
  out->Add(v.z());
}
void Put(const Quat& q, Doubles* out) {
  out->Add(q.w());
  out->Add(q.x());
  out->Add(q.y());
  out->Add(q.z());
}
void Put(const Transform& t, Doubles* out) {
  Put(t.position, out);
  Put(t.orientation, out);
}
void PutAll(const std::vector<Vec3>& vs, Doubles* out) {
  out->Reserve(out->size() + 3 * static_cast<int>(vs.size()));
  for (const Vec3& v : vs) Put(v, out);
}
void PutAll(const std::vector<double>& vs, Doubles* out) {
  out->Reserve(out->size() + static_cast<int>(vs.size()));
  for (const double v : vs) out->Add(v);
}

// ---- Reading: sizes and finiteness checked before a value is taken ----------------------

absl::Status CheckDoubles(const Doubles& in, int expected, const std::string& field) {
  if (in.size() != expected) {
    return Invalid(field, absl::StrCat("must hold ", expected, " numbers, holds ", in.size()));
  }
  for (int i = 0; i < in.size(); ++i) {
    if (!std::isfinite(in[i])) return Invalid(absl::StrCat(field, "[", i, "]"), "must be finite");
  }
  return absl::OkStatus();
}

absl::Status ReadVec3(const Doubles& in, const std::string& field, Vec3* out) {
  if (absl::Status s = CheckDoubles(in, 3, field); !s.ok()) return s;
  *out = Vec3(in[0], in[1], in[2]);
  return absl::OkStatus();
}

// A unit quaternion at in[at..at+3] (w x y z), taken bit for bit.
absl::StatusOr<Quat> QuatAt(const Doubles& in, int at, const std::string& field) {
  const Quat q(in[at], in[at + 1], in[at + 2], in[at + 3]);
  if (std::abs(q.squaredNorm() - 1.0) > 1e-6) {
    return Invalid(absl::StrCat(field, "[", at, "]"), "quaternion must have unit norm");
  }
  return q;
}

absl::Status ReadPose(const Doubles& in, const std::string& field, Transform* out) {
  if (absl::Status s = CheckDoubles(in, 7, field); !s.ok()) return s;
  absl::StatusOr<Quat> q = QuatAt(in, 3, field);
  if (!q.ok()) return q.status();
  out->position = Vec3(in[0], in[1], in[2]);
  out->orientation = *q;
  return absl::OkStatus();
}

// `count` Vec3s, replacing `out`.
absl::Status ReadVec3s(const Doubles& in, size_t count, const std::string& field,
                       std::vector<Vec3>* out) {
  if (absl::Status s = CheckDoubles(in, 3 * static_cast<int>(count), field); !s.ok()) return s;
  out->resize(count);
  for (size_t i = 0; i < count; ++i) (*out)[i] = Vec3(in[3 * i], in[3 * i + 1], in[3 * i + 2]);
  return absl::OkStatus();
}

absl::Status ReadDoubles(const Doubles& in, size_t count, const std::string& field,
                         std::vector<double>* out) {
  if (absl::Status s = CheckDoubles(in, static_cast<int>(count), field); !s.ok()) return s;
  out->assign(in.begin(), in.end());
  return absl::OkStatus();
}

absl::Status CheckCount(int size, size_t expected, const std::string& field) {
  if (size != static_cast<int>(expected)) {
    return Invalid(field, absl::StrCat("must have ", expected, " entries (one per item of the "
                                       "scene), has ", size));
  }
  return absl::OkStatus();
}

}  // namespace

// Reads and writes the private state of a world and its parts (a friend of each).
class WorldSnapshotAccess {
 public:
  static v1::WorldSnapshot Capture(const World& w);
  // Applies `state` (of a snapshot of format `version`) to `w`, freshly built from the
  // snapshot's scene.
  static absl::Status Apply(const v1::WorldState& state, uint32_t version, World* w);
  static void Replace(World* target, World restored);

 private:
  static absl::Status ApplyRigid(const v1::WorldState& state, World* w);
  static absl::Status ApplyRods(const v1::WorldState& state, World* w);
  static absl::Status ApplySoft(const v1::WorldState& state, World* w);
  static absl::Status ApplyStrands(const v1::WorldState& state, World* w);
  static absl::Status ApplySoftConstraints(const v1::WorldState& state, uint32_t version,
                                           World* w);
  static absl::Status ApplyRodOrderings(const v1::WorldState& state, World* w);
  static absl::Status ReadHistory(const google::protobuf::RepeatedPtrField<v1::PoseSample>& in,
                                  const std::string& field, BasePoseHistory* out);
};

// ---- Capture --------------------------------------------------------------------------

v1::WorldSnapshot WorldSnapshotAccess::Capture(const World& w) {
  v1::WorldSnapshot snap;
  snap.set_format_version(kSnapshotFormatVersion);
  snap.set_world_id(w.name_);
  *snap.mutable_scene() = SceneToProto(w.Export());
  v1::WorldState& s = *snap.mutable_state();
  s.set_tick(w.tick_);
  s.set_sim_time(w.sim_time_);
  s.set_next_id(w.next_id_);

  // Rigid bodies: exact centre-of-mass state (the scene holds body-frame poses).
  const RigidBodies& b = w.bodies_;
  v1::RigidBodyStates& rigid = *s.mutable_rigid();
  for (int i = 0; i < b.size(); ++i) {
    Put(b.position[i], rigid.mutable_position());
    Put(b.orientation[i], rigid.mutable_orientation());
    Put(b.linear_velocity[i], rigid.mutable_linear_velocity());
    Put(b.angular_velocity[i], rigid.mutable_angular_velocity());
  }
  for (const Joint& j : w.constraints_.joints()) {
    v1::JointState& js = *s.add_joints();
    Put(j.frame_a, js.mutable_frame_a());
    Put(j.frame_b, js.mutable_frame_b());
    for (const Vec3& f : j.forces) Put(f, js.mutable_forces());
    js.set_curve_segment(j.curve_segment);
    Put(j.curve_normal, js.mutable_curve_normal());
  }
  // What this tick stored is what the next tick looks up; bodies by scene index, pairs
  // sorted (the cache's own order is a hash map's), each pair's contacts in stored order.
  std::vector<std::tuple<uint32_t, uint32_t, const ContactCache::PairEntries*>> pairs;
  for (const auto& [key, pair] : w.contact_cache_.current_) {
    const BodyHandle a{static_cast<uint32_t>(key >> 32), pair.generation_a};
    const BodyHandle c{static_cast<uint32_t>(key & 0xffffffffu), pair.generation_b};
    if (!b.IsValid(a) || !b.IsValid(c)) continue;  // never matched again
    pairs.emplace_back(b.Index(a), b.Index(c), &pair);
  }
  std::sort(pairs.begin(), pairs.end(), [](const auto& x, const auto& y) {
    return std::pair(std::get<0>(x), std::get<1>(x)) < std::pair(std::get<0>(y), std::get<1>(y));
  });
  const auto& entries = w.contact_cache_.current_entries_;
  for (const auto& [ia, ib, pair] : pairs) {
    for (uint32_t k = pair->first; k < pair->first + pair->count; ++k) {
      v1::CachedContact& cc = *s.add_contact_cache();
      cc.set_body_a(ia);
      cc.set_body_b(ib);
      Put(entries[k].local_a, cc.mutable_local_a());
      Put(entries[k].force, cc.mutable_force());
    }
  }
  // The soft contacts' warm starts, sorted (the cache is a hash map).
  std::vector<std::pair<std::tuple<int, int, uint32_t>, Vec3>> soft_cache(w.soft_warm_.begin(),
                                                                          w.soft_warm_.end());
  std::sort(soft_cache.begin(), soft_cache.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [key, force] : soft_cache) {
    v1::SoftCachedContact& c = *s.add_soft_contact_cache();
    c.set_soft_body(static_cast<uint32_t>(std::get<0>(key)));
    c.set_vertex(std::get<1>(key));
    c.set_body(std::get<2>(key));
    Put(force, c.mutable_force());
  }
  // The rod contacts' warm starts, sorted likewise.
  std::vector<std::pair<std::tuple<int, int, uint32_t>, Vec3>> rod_cache(w.rod_warm_.begin(),
                                                                         w.rod_warm_.end());
  std::sort(rod_cache.begin(), rod_cache.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [key, force] : rod_cache) {
    v1::RodCachedContact& c = *s.add_rod_contact_cache();
    c.set_rod(static_cast<uint32_t>(std::get<0>(key)));
    c.set_sample(std::get<1>(key));
    c.set_body(std::get<2>(key));
    Put(force, c.mutable_force());
  }
  std::vector<std::pair<std::tuple<int, int, int>, Vec3>> pair_cache(w.soft_pair_warm_.begin(),
                                                                     w.soft_pair_warm_.end());
  std::sort(pair_cache.begin(), pair_cache.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [key, force] : pair_cache) {
    v1::SoftCachedContact& c = *s.add_soft_contact_cache();
    c.set_soft_body(static_cast<uint32_t>(std::get<0>(key)));
    c.set_vertex(std::get<1>(key));
    c.set_other_soft_body(static_cast<uint32_t>(std::get<2>(key)));
    Put(force, c.mutable_force());
  }
  for (const BodyHandle& h : w.device_driven_) {
    if (b.IsValid(h)) s.add_device_driven(b.Index(h));
  }
  for (const auto& [h, pose] : w.device_targets_) {
    if (!b.IsValid(h)) continue;
    v1::DeviceTarget& t = *s.add_device_targets();
    t.set_body(b.Index(h));
    Put(pose, t.mutable_pose());
  }
  for (const std::string& id : w.removed_constraints_) s.add_removed_constraints(id);

  // Rods and their constraints' runtime state (sliding positions are in the scene).
  for (const RodWorld::Rod& rod : w.rods_.rods_) {
    v1::RodStateMessage& r = *s.add_rods();
    PutAll(rod.state.x, r.mutable_x());
    PutAll(rod.state.theta, r.mutable_theta());
    PutAll(rod.state.v, r.mutable_v());
    PutAll(rod.state.omega, r.mutable_omega());
  }
  for (const RodConstraint& c : w.rods_.constraints_) {
    v1::RodConstraintState& r = *s.add_rod_constraints();
    r.set_active(c.active);
    r.set_released(c.released);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) r.add_relative(c.relative(i, j));
    }
    Put(c.reference_tangent, r.mutable_reference_tangent());
  }

  // Soft bodies (their meshes, as cut, are in the scene).
  for (const SoftWorld::Body& body : w.soft_.bodies_) {
    v1::SoftBodyState& sb = *s.add_soft_bodies();
    if (body.mass_point) {
      PutAll(body.mass_point_state.x, sb.mutable_x());
      PutAll(body.mass_point_state.v, sb.mutable_v());
      PutAll(body.mass_point_state.x_prev, sb.mutable_x_prev());
    } else {
      PutAll(body.fem_state.x, sb.mutable_x());
      PutAll(body.fem_state.v, sb.mutable_v());
    }
    sb.set_topology_version(body.topology_version);
    PutAll(body.damage, sb.mutable_damage());
  }
  // Sorted, so that equal worlds give equal bytes.
  std::vector<std::pair<std::pair<std::string, std::string>, Vec3>> anchors(
      w.soft_.stroke_anchor_.begin(), w.soft_.stroke_anchor_.end());
  std::sort(anchors.begin(), anchors.end(),
            [](const auto& x, const auto& y) { return x.first < y.first; });
  for (const auto& [key, point] : anchors) {
    v1::StrokeAnchor& a = *s.add_stroke_anchors();
    a.set_soft_body(key.first);
    a.set_tool(key.second);
    Put(point, a.mutable_point());
  }

  // Strands, with the pose histories their base velocities come from.
  for (const StrandWorld::Strand& st : w.strands_.strands_) {
    v1::StrandStateMessage& m = *s.add_strands();
    for (const Quat& q : st.sim.state().q) Put(q, m.mutable_q());
    PutAll(st.sim.state().w, m.mutable_w());
    for (const auto& [t, pose] : st.base_history.samples_) {
      v1::PoseSample& p = *m.add_base_history();
      p.set_time(t);
      Put(pose, p.mutable_pose());
    }
    for (const auto& [t, pose] : st.reference_history.samples_) {
      v1::PoseSample& p = *m.add_reference_history();
      p.set_time(t);
      Put(pose, p.mutable_pose());
    }
    PutAll(st.points, m.mutable_points());
    Put(st.base_pose, m.mutable_base_pose());
    m.set_last_motion(st.last_motion);
    m.set_base_speed(st.base_speed);
    for (const StrandWorld::Constraint& c : st.constraints) {
      v1::StrandTarget& t = *m.add_constraint_targets();
      t.set_set(c.last_target.has_value());
      const Vec3 target = c.last_target.value_or(Vec3::Zero());
      t.set_x(target.x());
      t.set_y(target.y());
      t.set_z(target.z());
    }
  }

  // Soft constraints' switches, self-assembly ramps and nail goals, in the scene's order.
  for (const SoftConstraintDesc& desc : w.soft_.constraints_) {
    const auto& [body_id, local] = w.soft_.constraint_ids_.at(desc.id);
    const LocalConstraintSet& set = w.soft_.bodies_[w.soft_.index_.at(body_id)].constraints;
    const auto& c = set.constraints_[local];
    v1::SoftConstraintState& m = *s.add_soft_constraints();
    m.set_enabled(c.enabled);
    m.set_ramp_steps(c.ramp_steps);
    m.set_ramp_count(c.ramp_count);
    if (c.type == LocalConstraintType::kNail) Put(c.goal, m.mutable_goal());
  }
  // The rods' solver orderings.
  auto put_ordering = [](const RodKkt::Ordering& o, v1::RodSolverOrdering* out) {
    out->mutable_graph_key()->Assign(o.graph_key.begin(), o.graph_key.end());
    out->mutable_node_order()->Assign(o.node_order.begin(), o.node_order.end());
  };
  put_ordering(w.rods_.kkt_.ordering(), s.mutable_rod_positions_ordering());
  put_ordering(w.rods_.twist_kkt_.ordering(), s.mutable_rod_twist_ordering());
  return snap;
}

// ---- Apply ----------------------------------------------------------------------------

absl::Status WorldSnapshotAccess::Apply(const v1::WorldState& s, uint32_t version, World* w) {
  if (!std::isfinite(s.sim_time()) || s.sim_time() < 0.0) {
    return Invalid("state.sim_time", "must be finite and >= 0");
  }
  w->tick_ = s.tick();
  w->sim_time_ = s.sim_time();
  w->next_id_ = s.next_id();
  if (absl::Status st = ApplyRigid(s, w); !st.ok()) return st;
  if (absl::Status st = ApplyRods(s, w); !st.ok()) return st;
  if (absl::Status st = ApplySoft(s, w); !st.ok()) return st;
  if (absl::Status st = ApplyStrands(s, w); !st.ok()) return st;
  if (absl::Status st = ApplySoftConstraints(s, version, w); !st.ok()) return st;
  if (absl::Status st = ApplyRodOrderings(s, w); !st.ok()) return st;
  if (s.removed_constraints_size() > w->limits_.max_constraints) {
    return Invalid("state.removed_constraints", "too many");
  }
  for (int i = 0; i < s.removed_constraints_size(); ++i) {
    const std::string field = absl::StrCat("state.removed_constraints[", i, "]");
    if (absl::Status st = ValidateId(s.removed_constraints(i), field); !st.ok()) return st;
    w->removed_constraints_.push_back(s.removed_constraints(i));
  }
  return absl::OkStatus();
}

absl::Status WorldSnapshotAccess::ApplyRigid(const v1::WorldState& s, World* w) {
  RigidBodies& b = w->bodies_;
  const int n = b.size();
  const v1::RigidBodyStates& r = s.rigid();
  for (const auto& [field, values, per] :
       {std::tuple{"state.rigid.position", &r.position(), 3},
        std::tuple{"state.rigid.orientation", &r.orientation(), 4},
        std::tuple{"state.rigid.linear_velocity", &r.linear_velocity(), 3},
        std::tuple{"state.rigid.angular_velocity", &r.angular_velocity(), 3}}) {
    if (absl::Status st = CheckDoubles(*values, per * n, field); !st.ok()) return st;
  }
  for (int i = 0; i < n; ++i) {
    absl::StatusOr<Quat> q = QuatAt(r.orientation(), 4 * i, "state.rigid.orientation");
    if (!q.ok()) return q.status();
    b.position[i] = Vec3(r.position(3 * i), r.position(3 * i + 1), r.position(3 * i + 2));
    b.orientation[i] = *q;
    b.linear_velocity[i] = Vec3(r.linear_velocity(3 * i), r.linear_velocity(3 * i + 1),
                                r.linear_velocity(3 * i + 2));
    b.angular_velocity[i] = Vec3(r.angular_velocity(3 * i), r.angular_velocity(3 * i + 1),
                                 r.angular_velocity(3 * i + 2));
  }

  std::vector<Joint>& joints = w->constraints_.joints();
  if (absl::Status st = CheckCount(s.joints_size(), joints.size(), "state.joints"); !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < joints.size(); ++k) {
    const v1::JointState& js = s.joints(k);
    const std::string field = absl::StrCat("state.joints[", k, "]");
    Joint& j = joints[k];
    std::vector<Vec3> forces;
    if (absl::Status st = ReadPose(js.frame_a(), field + ".frame_a", &j.frame_a); !st.ok()) {
      return st;
    }
    if (absl::Status st = ReadPose(js.frame_b(), field + ".frame_b", &j.frame_b); !st.ok()) {
      return st;
    }
    if (absl::Status st = ReadVec3s(js.forces(), 3, field + ".forces", &forces); !st.ok()) {
      return st;
    }
    if (absl::Status st = ReadVec3(js.curve_normal(), field + ".curve_normal", &j.curve_normal);
        !st.ok()) {
      return st;
    }
    std::copy(forces.begin(), forces.end(), j.forces.begin());
    j.curve_segment = js.curve_segment();
  }

  // Fresh world: scene index i is dense index i.
  for (int k = 0; k < s.contact_cache_size(); ++k) {
    const v1::CachedContact& c = s.contact_cache(k);
    const std::string field = absl::StrCat("state.contact_cache[", k, "]");
    if (c.body_a() >= static_cast<uint32_t>(n) || c.body_b() >= static_cast<uint32_t>(n)) {
      return Invalid(field, absl::StrCat("body index out of range [0, ", n, ")"));
    }
    Vec3 local_a, force;
    if (absl::Status st = ReadVec3(c.local_a(), field + ".local_a", &local_a); !st.ok()) return st;
    if (absl::Status st = ReadVec3(c.force(), field + ".force", &force); !st.ok()) return st;
    w->contact_cache_.Store(b.HandleAt(c.body_a()), b.HandleAt(c.body_b()), local_a, force);
  }
  for (int k = 0; k < s.soft_contact_cache_size(); ++k) {
    const v1::SoftCachedContact& c = s.soft_contact_cache(k);
    const std::string field = absl::StrCat("state.soft_contact_cache[", k, "]");
    const size_t soft_count = w->soft_.bodies().size();
    if (c.has_other_soft_body()) {
      if (c.other_soft_body() >= soft_count || c.other_soft_body() == c.soft_body()) {
        return Invalid(field + ".other_soft_body",
                       "soft body index out of range or the contact's own body");
      }
    } else if (c.body() >= static_cast<uint32_t>(n)) {
      return Invalid(field + ".body", absl::StrCat("body index out of range [0, ", n, ")"));
    }
    if (c.soft_body() >= soft_count) {
      return Invalid(field + ".soft_body", "soft body index out of range");
    }
    const int vertices =
        static_cast<int>(w->soft_.bodies()[c.soft_body()].positions().size());
    if (c.vertex() < 0 || c.vertex() >= vertices) {
      return Invalid(field + ".vertex", absl::StrCat("out of range [0, ", vertices, ")"));
    }
    Vec3 force;
    if (absl::Status st = ReadVec3(c.force(), field + ".force", &force); !st.ok()) return st;
    if (c.has_other_soft_body()) {
      w->soft_pair_warm_[{static_cast<int>(c.soft_body()), c.vertex(),
                          static_cast<int>(c.other_soft_body())}] = force;
    } else {
      w->soft_warm_[{static_cast<int>(c.soft_body()), c.vertex(), c.body()}] = force;
    }
  }
  for (int k = 0; k < s.rod_contact_cache_size(); ++k) {
    const v1::RodCachedContact& c = s.rod_contact_cache(k);
    const std::string field = absl::StrCat("state.rod_contact_cache[", k, "]");
    if (c.body() >= static_cast<uint32_t>(n)) {
      return Invalid(field + ".body", absl::StrCat("body index out of range [0, ", n, ")"));
    }
    if (c.rod() >= w->rods_.rods().size()) {
      return Invalid(field + ".rod", "rod index out of range");
    }
    if (c.sample() < 0) return Invalid(field + ".sample", "must be >= 0");
    Vec3 force;
    if (absl::Status st = ReadVec3(c.force(), field + ".force", &force); !st.ok()) return st;
    w->rod_warm_[{static_cast<int>(c.rod()), c.sample(), c.body()}] = force;
  }
  for (int k = 0; k < s.device_driven_size(); ++k) {
    if (s.device_driven(k) >= static_cast<uint32_t>(n)) {
      return Invalid(absl::StrCat("state.device_driven[", k, "]"), "body index out of range");
    }
    w->device_driven_.push_back(b.HandleAt(s.device_driven(k)));
  }
  for (int k = 0; k < s.device_targets_size(); ++k) {
    const v1::DeviceTarget& t = s.device_targets(k);
    const std::string field = absl::StrCat("state.device_targets[", k, "]");
    if (t.body() >= static_cast<uint32_t>(n)) return Invalid(field, "body index out of range");
    Transform pose;
    if (absl::Status st = ReadPose(t.pose(), field + ".pose", &pose); !st.ok()) return st;
    w->device_targets_.emplace_back(b.HandleAt(t.body()), pose);
  }
  return absl::OkStatus();
}

absl::Status WorldSnapshotAccess::ApplyRods(const v1::WorldState& s, World* w) {
  std::vector<RodWorld::Rod>& rods = w->rods_.rods_;
  if (absl::Status st = CheckCount(s.rods_size(), rods.size(), "state.rods"); !st.ok()) return st;
  for (size_t k = 0; k < rods.size(); ++k) {
    const v1::RodStateMessage& m = s.rods(k);
    const std::string field = absl::StrCat("state.rods[", k, "]");
    RodState& state = rods[k].state;
    const size_t n = state.x.size();
    if (absl::Status st = ReadVec3s(m.x(), n, field + ".x", &state.x); !st.ok()) return st;
    if (absl::Status st = ReadDoubles(m.theta(), n, field + ".theta", &state.theta); !st.ok()) {
      return st;
    }
    if (absl::Status st = ReadVec3s(m.v(), n, field + ".v", &state.v); !st.ok()) return st;
    if (absl::Status st = ReadDoubles(m.omega(), n, field + ".omega", &state.omega); !st.ok()) {
      return st;
    }
  }
  std::vector<RodConstraint>& constraints = w->rods_.constraints_;
  if (absl::Status st =
          CheckCount(s.rod_constraints_size(), constraints.size(), "state.rod_constraints");
      !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < constraints.size(); ++k) {
    const v1::RodConstraintState& m = s.rod_constraints(k);
    const std::string field = absl::StrCat("state.rod_constraints[", k, "]");
    RodConstraint& c = constraints[k];
    if (absl::Status st = CheckDoubles(m.relative(), 9, field + ".relative"); !st.ok()) return st;
    if (absl::Status st =
            ReadVec3(m.reference_tangent(), field + ".reference_tangent", &c.reference_tangent);
        !st.ok()) {
      return st;
    }
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) c.relative(i, j) = m.relative(3 * i + j);
    }
    c.active = m.active();
    c.released = m.released();
  }
  return absl::OkStatus();
}

absl::Status WorldSnapshotAccess::ApplySoft(const v1::WorldState& s, World* w) {
  std::vector<SoftWorld::Body>& bodies = w->soft_.bodies_;
  if (absl::Status st = CheckCount(s.soft_bodies_size(), bodies.size(), "state.soft_bodies");
      !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < bodies.size(); ++k) {
    const v1::SoftBodyState& m = s.soft_bodies(k);
    const std::string field = absl::StrCat("state.soft_bodies[", k, "]");
    SoftWorld::Body& body = bodies[k];
    if (body.mass_point) {
      MassPointState& st = body.mass_point_state;
      const size_t n = st.x.size();
      if (auto e = ReadVec3s(m.x(), n, field + ".x", &st.x); !e.ok()) return e;
      if (auto e = ReadVec3s(m.v(), n, field + ".v", &st.v); !e.ok()) return e;
      const size_t n_prev = m.x_prev().empty() ? 0 : n;
      if (auto e = ReadVec3s(m.x_prev(), n_prev, field + ".x_prev", &st.x_prev); !e.ok()) {
        return e;
      }
    } else {
      FemState& st = body.fem_state;
      const size_t n = st.x.size();
      if (auto e = ReadVec3s(m.x(), n, field + ".x", &st.x); !e.ok()) return e;
      if (auto e = ReadVec3s(m.v(), n, field + ".v", &st.v); !e.ok()) return e;
      if (!m.x_prev().empty()) return Invalid(field + ".x_prev", "only mass-point bodies");
    }
    if (!m.damage().empty()) {
      if (!body.fem || !body.desc.cutting) return Invalid(field + ".damage", "body cannot be cut");
      if (auto e = ReadDoubles(m.damage(), body.fem->tet_count(), field + ".damage", &body.damage);
          !e.ok()) {
        return e;
      }
    }
    body.topology_version = m.topology_version();
  }
  for (int k = 0; k < s.stroke_anchors_size(); ++k) {
    const v1::StrokeAnchor& a = s.stroke_anchors(k);
    const std::string field = absl::StrCat("state.stroke_anchors[", k, "]");
    if (!w->soft_.HasBody(a.soft_body())) return Invalid(field + ".soft_body", "no such soft body");
    if (!w->scalpels_.contains(a.tool())) return Invalid(field + ".tool", "no such scalpel");
    Vec3 point;
    if (auto e = ReadVec3(a.point(), field + ".point", &point); !e.ok()) return e;
    w->soft_.stroke_anchor_[{a.soft_body(), a.tool()}] = point;
  }
  return absl::OkStatus();
}

absl::Status WorldSnapshotAccess::ReadHistory(
    const google::protobuf::RepeatedPtrField<v1::PoseSample>& in, const std::string& field,
    BasePoseHistory* out) {
  if (in.size() > 4) return Invalid(field, "holds at most 4 samples");
  out->samples_.clear();
  for (int i = 0; i < in.size(); ++i) {
    const std::string f = absl::StrCat(field, "[", i, "]");
    const double t = in[i].time();
    if (!std::isfinite(t)) return Invalid(f + ".time", "must be finite");
    if (!out->samples_.empty() && !(t > out->samples_.back().first)) {
      return Invalid(f + ".time", "times must increase");
    }
    Transform pose;
    if (auto e = ReadPose(in[i].pose(), f + ".pose", &pose); !e.ok()) return e;
    out->samples_.emplace_back(t, pose);
  }
  return absl::OkStatus();
}

absl::Status WorldSnapshotAccess::ApplyStrands(const v1::WorldState& s, World* w) {
  std::vector<StrandWorld::Strand>& strands = w->strands_.strands_;
  if (absl::Status st = CheckCount(s.strands_size(), strands.size(), "state.strands"); !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < strands.size(); ++k) {
    const v1::StrandStateMessage& m = s.strands(k);
    const std::string field = absl::StrCat("state.strands[", k, "]");
    StrandWorld::Strand& st = strands[k];
    StrandState& state = st.sim.mutable_state();
    const int n = static_cast<int>(state.q.size());
    if (auto e = CheckDoubles(m.q(), 4 * n, field + ".q"); !e.ok()) return e;
    std::vector<Quat> q(n);
    for (int i = 0; i < n; ++i) {
      absl::StatusOr<Quat> qi = QuatAt(m.q(), 4 * i, field + ".q");
      if (!qi.ok()) return qi.status();
      q[i] = *qi;
    }
    std::vector<Vec3> wv;
    if (auto e = ReadVec3s(m.w(), state.w.size(), field + ".w", &wv); !e.ok()) return e;
    if (auto e = ReadHistory(m.base_history(), field + ".base_history", &st.base_history);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadHistory(m.reference_history(), field + ".reference_history",
                             &st.reference_history);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadVec3s(m.points(), st.points.size(), field + ".points", &st.points);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadPose(m.base_pose(), field + ".base_pose", &st.base_pose); !e.ok()) return e;
    if (!std::isfinite(m.last_motion()) || m.last_motion() < 0.0) {
      return Invalid(field + ".last_motion", "must be finite and >= 0");
    }
    if (!std::isfinite(m.base_speed()) || m.base_speed() < 0.0) {
      return Invalid(field + ".base_speed", "must be finite and >= 0");
    }
    if (auto e = CheckCount(m.constraint_targets_size(), st.constraints.size(),
                            field + ".constraint_targets");
        !e.ok()) {
      return e;
    }
    std::vector<std::optional<Vec3>> targets;
    for (const v1::StrandTarget& t : m.constraint_targets()) {
      const Vec3 target(t.x(), t.y(), t.z());
      if (!target.allFinite()) return Invalid(field + ".constraint_targets", "must be finite");
      targets.push_back(t.set() ? std::optional<Vec3>(target) : std::nullopt);
    }
    state.q = std::move(q);
    state.w = std::move(wv);
    st.last_motion = m.last_motion();
    st.base_speed = m.base_speed();
    for (size_t c = 0; c < targets.size(); ++c) st.constraints[c].last_target = targets[c];
  }
  return absl::OkStatus();
}

// Format 1 did not carry the soft constraints' state: they stay as the scene builds them
// (on, at the start of their ramps). From format 2 there is one entry per constraint.
absl::Status WorldSnapshotAccess::ApplySoftConstraints(const v1::WorldState& s,
                                                       uint32_t version, World* w) {
  SoftWorld& soft = w->soft_;
  if (version < 2 && s.soft_constraints().empty()) return absl::OkStatus();
  if (absl::Status st = CheckCount(s.soft_constraints_size(), soft.constraints_.size(),
                                   "state.soft_constraints");
      !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < soft.constraints_.size(); ++k) {
    const v1::SoftConstraintState& m = s.soft_constraints(static_cast<int>(k));
    const std::string field = absl::StrCat("state.soft_constraints[", k, "]");
    const auto& [body_id, local] = soft.constraint_ids_.at(soft.constraints_[k].id);
    LocalConstraintSet& set = soft.bodies_[soft.index_.at(body_id)].constraints;
    auto& c = set.constraints_[local];
    if (m.ramp_steps() < 0) return Invalid(field + ".ramp_steps", "must be >= 0");
    if (m.ramp_count() < 0 || m.ramp_count() > m.ramp_steps()) {
      return Invalid(field + ".ramp_count",
                     absl::StrCat("must be in [0, ramp_steps] = [0, ", m.ramp_steps(), "], is ",
                                  m.ramp_count()));
    }
    Vec3 goal = c.goal;
    if (c.type == LocalConstraintType::kNail) {
      if (absl::Status st = ReadVec3(m.goal(), field + ".goal", &goal); !st.ok()) return st;
    } else if (!m.goal().empty()) {
      return Invalid(field + ".goal", "only nails have a goal");
    }
    c.enabled = m.enabled();
    c.ramp_steps = m.ramp_steps();
    c.ramp_count = m.ramp_count();
    c.goal = goal;
  }
  return absl::OkStatus();
}

absl::Status WorldSnapshotAccess::ApplyRodOrderings(const v1::WorldState& s, World* w) {
  for (const auto& [field, message, kkt] :
       {std::tuple{"state.rod_positions_ordering", &s.rod_positions_ordering(), &w->rods_.kkt_},
        std::tuple{"state.rod_twist_ordering", &s.rod_twist_ordering(), &w->rods_.twist_kkt_}}) {
    RodKkt::Ordering ordering;
    ordering.graph_key.assign(message->graph_key().begin(), message->graph_key().end());
    ordering.node_order.assign(message->node_order().begin(), message->node_order().end());
    if (absl::Status st = kkt->SetOrdering(std::move(ordering)); !st.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".", st.message()));
    }
  }
  return absl::OkStatus();
}

void WorldSnapshotAccess::Replace(World* target, World restored) {
  std::string name = std::move(target->name_);
  StepCounters counters = target->counters_;
  auto tools = std::move(target->haptic_tools_);
  // The restore is one more edit of the world it replaces, so whatever keys on the edit
  // count (the divergence guard's checkpoint, the host's haptic tools) sees it.
  const uint64_t edits = target->edits_ + 1;
  *target = std::move(restored);
  target->name_ = std::move(name);
  target->counters_ = counters;
  target->haptic_tools_ = std::move(tools);
  target->edits_ = edits;
}

// ---- Public entry points ----------------------------------------------------------------

v1::WorldSnapshot CaptureSnapshot(const World& world) {
  return WorldSnapshotAccess::Capture(world);
}

absl::StatusOr<std::unique_ptr<World>> WorldFromSnapshot(const v1::WorldSnapshot& snapshot,
                                                         const std::string& name,
                                                         const WorldLimits& limits) {
  if (snapshot.format_version() < 1 || snapshot.format_version() > kSnapshotFormatVersion) {
    return Invalid("format_version", absl::StrCat("must be in [1, ", kSnapshotFormatVersion, "]"));
  }
  if (!snapshot.has_scene()) return Invalid("scene", "missing");
  if (!snapshot.has_state()) return Invalid("state", "missing");
  absl::StatusOr<SceneDesc> scene = SceneFromProto(snapshot.scene());
  if (!scene.ok()) {
    return absl::Status(scene.status().code(), absl::StrCat("scene.", scene.status().message()));
  }
  absl::StatusOr<std::unique_ptr<World>> world = World::FromScene(name, *scene, limits);
  if (!world.ok()) {
    // A scene that validates but does not build (a bad reference) is a bad snapshot too.
    return absl::InvalidArgumentError(absl::StrCat("scene.", world.status().message()));
  }
  if (absl::Status s = WorldSnapshotAccess::Apply(snapshot.state(), snapshot.format_version(), world->get()); !s.ok()) {
    return s;
  }
  return world;
}

absl::StatusOr<std::unique_ptr<World>> WorldFromSnapshotBytes(std::string_view bytes,
                                                              const std::string& name,
                                                              const WorldLimits& limits) {
  if (bytes.size() > static_cast<size_t>(INT_MAX)) return Invalid("snapshot", "too large");
  v1::WorldSnapshot snapshot;
  if (!snapshot.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Invalid("snapshot", "bytes do not parse as a ligature.v1.WorldSnapshot");
  }
  return WorldFromSnapshot(snapshot, name, limits);
}

void ReplaceWorldState(World* target, World restored) {
  WorldSnapshotAccess::Replace(target, std::move(restored));
}

absl::Status RestoreSnapshotInto(World* target, std::string_view bytes,
                                 const WorldLimits& limits) {
  absl::StatusOr<std::unique_ptr<World>> restored =
      WorldFromSnapshotBytes(bytes, target->name(), limits);
  if (!restored.ok()) return restored.status();
  ReplaceWorldState(target, std::move(**restored));
  return absl::OkStatus();
}

std::string SerializeSnapshot(const World& world) {
  std::string bytes;
  CaptureSnapshot(world).SerializeToString(&bytes);
  return bytes;
}

}  // namespace ligature
