// World snapshots: the world's saved state (each part saves and restores its own, see
// world_saved_state.h) as the snapshot's messages, and back: every size, index and number
// of a snapshot is checked against the world freshly built from its scene before the world
// takes any of it.

#include "server/snapshot/world_snapshot.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <optional>
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

// `count` unit quaternions, 4 numbers each.
absl::Status ReadQuats(const Doubles& in, size_t count, const std::string& field,
                       std::vector<Quat>* out) {
  if (absl::Status s = CheckDoubles(in, 4 * static_cast<int>(count), field); !s.ok()) return s;
  out->resize(count);
  for (size_t i = 0; i < count; ++i) {
    absl::StatusOr<Quat> q = QuatAt(in, 4 * static_cast<int>(i), field);
    if (!q.ok()) return q.status();
    (*out)[i] = *q;
  }
  return absl::OkStatus();
}

absl::Status CheckCount(int size, size_t expected, const std::string& field) {
  if (size != static_cast<int>(expected)) {
    return Invalid(field, absl::StrCat("must have ", expected, " entries (one per item of the "
                                       "scene), has ", size));
  }
  return absl::OkStatus();
}

// ---- Capture: each part's saved state, as the snapshot's messages ---------------------

void PutHistory(const std::deque<BasePoseHistory::Sample>& samples,
                google::protobuf::RepeatedPtrField<v1::PoseSample>* out) {
  for (const auto& [t, pose] : samples) {
    v1::PoseSample& p = *out->Add();
    p.set_time(t);
    Put(pose, p.mutable_pose());
  }
}

void PutRigid(const WorldSavedState& w, v1::WorldState* s) {
  v1::RigidBodyStates& rigid = *s->mutable_rigid();
  for (size_t i = 0; i < w.rigid.position.size(); ++i) {
    Put(w.rigid.position[i], rigid.mutable_position());
    Put(w.rigid.orientation[i], rigid.mutable_orientation());
    Put(w.rigid.linear_velocity[i], rigid.mutable_linear_velocity());
    Put(w.rigid.angular_velocity[i], rigid.mutable_angular_velocity());
  }
  // Sleeping only when some body rests or sleeps, so that other worlds' snapshots stay as
  // they were.
  const auto nonzero = [](auto x) { return x != 0; };
  if (std::any_of(w.rigid.rest_time.begin(), w.rigid.rest_time.end(), nonzero) ||
      std::any_of(w.rigid.sleep_island.begin(), w.rigid.sleep_island.end(), nonzero)) {
    rigid.mutable_rest_time()->Assign(w.rigid.rest_time.begin(), w.rigid.rest_time.end());
    rigid.mutable_sleep_island()->Assign(w.rigid.sleep_island.begin(),
                                         w.rigid.sleep_island.end());
  }
  for (const WorldSavedState::Joint& j : w.joints) {
    v1::JointState& js = *s->add_joints();
    Put(j.frame_a, js.mutable_frame_a());
    Put(j.frame_b, js.mutable_frame_b());
    // Three blocks' forces always, those of further blocks (drives) when they hold any.
    size_t blocks = 3;
    for (size_t m = blocks; m < j.forces.size(); ++m) {
      if (!j.forces[m].isZero()) blocks = m + 1;
    }
    for (size_t m = 0; m < blocks; ++m) Put(j.forces[m], js.mutable_forces());
    js.set_curve_segment(j.curve_segment);
    Put(j.curve_normal, js.mutable_curve_normal());
  }
  for (const ContactCache::Saved& c : w.contact_cache) {
    v1::CachedContact& cc = *s->add_contact_cache();
    cc.set_body_a(c.body_a);
    cc.set_body_b(c.body_b);
    Put(c.local_a, cc.mutable_local_a());
    Put(c.force, cc.mutable_force());
  }
  for (const auto& [key, force] : w.soft_warm) {
    v1::SoftCachedContact& c = *s->add_soft_contact_cache();
    c.set_soft_body(static_cast<uint32_t>(std::get<0>(key)));
    c.set_vertex(std::get<1>(key));
    c.set_body(std::get<2>(key));
    Put(force, c.mutable_force());
  }
  for (const auto& [key, force] : w.rod_warm) {
    v1::RodCachedContact& c = *s->add_rod_contact_cache();
    c.set_rod(static_cast<uint32_t>(std::get<0>(key)));
    c.set_sample(std::get<1>(key));
    c.set_body(std::get<2>(key));
    Put(force, c.mutable_force());
  }
  for (const auto& [key, force] : w.soft_pair_warm) {
    v1::SoftCachedContact& c = *s->add_soft_contact_cache();
    c.set_soft_body(static_cast<uint32_t>(std::get<0>(key)));
    c.set_vertex(std::get<1>(key));
    c.set_other_soft_body(static_cast<uint32_t>(std::get<2>(key)));
    Put(force, c.mutable_force());
  }
  for (uint32_t i : w.device_driven) s->add_device_driven(i);
  for (const auto& [i, pose] : w.device_targets) {
    v1::DeviceTarget& t = *s->add_device_targets();
    t.set_body(i);
    Put(pose, t.mutable_pose());
  }
  for (const std::string& id : w.removed_constraints) s->add_removed_constraints(id);
}

void PutRods(const RodWorld::SavedState& rods, v1::WorldState* s) {
  for (const RodState& rod : rods.rods) {
    v1::RodStateMessage& r = *s->add_rods();
    PutAll(rod.x, r.mutable_x());
    PutAll(rod.theta, r.mutable_theta());
    PutAll(rod.v, r.mutable_v());
    PutAll(rod.omega, r.mutable_omega());
  }
  for (const RodWorld::SavedConstraint& c : rods.constraints) {
    v1::RodConstraintState& r = *s->add_rod_constraints();
    r.set_active(c.active);
    r.set_released(c.released);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) r.add_relative(c.relative(i, j));
    }
    Put(c.reference_tangent, r.mutable_reference_tangent());
  }
}

void PutSoft(const SoftWorld::SavedState& soft, v1::WorldState* s) {
  for (const SoftWorld::SavedBody& body : soft.bodies) {
    v1::SoftBodyState& sb = *s->add_soft_bodies();
    PutAll(body.x, sb.mutable_x());
    PutAll(body.v, sb.mutable_v());
    PutAll(body.x_prev, sb.mutable_x_prev());
    PutAll(body.dv, sb.mutable_dv());
    sb.set_topology_version(body.topology_version);
    PutAll(body.damage, sb.mutable_damage());
    const RestRefresh::Saved& refresh = body.refresh;
    const auto put_past = [](const RestRefresh::PastMesh& past, v1::PastMesh* message) {
      PutAll(past.rest, message->mutable_rest());
      message->mutable_split_from()->Add(past.split_from.begin(), past.split_from.end());
    };
    if (refresh.factorized) put_past(*refresh.factorized, sb.mutable_factorized());
    if (refresh.refactorizing) put_past(*refresh.refactorizing, sb.mutable_refactorizing());
    if (refresh.factorized || refresh.refactorizing) sb.set_refactor_h(refresh.h);
    sb.set_refactor_ticks_left(refresh.ticks_left);
  }
  for (const SoftWorld::SavedAnchor& anchor : soft.anchors) {
    v1::StrokeAnchor& a = *s->add_stroke_anchors();
    a.set_soft_body(anchor.soft_body);
    a.set_tool(anchor.tool);
    Put(anchor.point, a.mutable_point());
  }
}

void PutStrands(const std::vector<StrandWorld::SavedStrand>& strands, v1::WorldState* s) {
  for (const StrandWorld::SavedStrand& st : strands) {
    v1::StrandStateMessage& m = *s->add_strands();
    for (const Quat& q : st.q) Put(q, m.mutable_q());
    PutAll(st.w, m.mutable_w());
    PutHistory(st.base_history, m.mutable_base_history());
    PutHistory(st.reference_history, m.mutable_reference_history());
    PutAll(st.points, m.mutable_points());
    Put(st.base_pose, m.mutable_base_pose());
    m.set_last_motion(st.last_motion);
    m.set_base_speed(st.base_speed);
    for (const std::optional<Vec3>& target : st.constraint_targets) {
      v1::StrandTarget& t = *m.add_constraint_targets();
      t.set_set(target.has_value());
      const Vec3 at = target.value_or(Vec3::Zero());
      t.set_x(at.x());
      t.set_y(at.y());
      t.set_z(at.z());
    }
  }
}

// The soft constraints' switches, self-assembly ramps and nail goals, in the scene's order.
void PutSoftConstraints(const World& world, const SoftWorld::SavedState& soft,
                        v1::WorldState* s) {
  for (size_t k = 0; k < soft.constraints.size(); ++k) {
    const LocalConstraintSet::Switches& c = soft.constraints[k];
    v1::SoftConstraintState& m = *s->add_soft_constraints();
    m.set_enabled(c.enabled);
    m.set_ramp_steps(c.ramp_steps);
    m.set_ramp_count(c.ramp_count);
    if (world.soft_bodies().ConstraintType(static_cast<int>(k)) == LocalConstraintType::kNail) {
      Put(c.goal, m.mutable_goal());
    }
  }
}

void PutOrdering(const RodKkt::Ordering& o, v1::RodSolverOrdering* out) {
  out->mutable_graph_key()->Assign(o.graph_key.begin(), o.graph_key.end());
  out->mutable_node_order()->Assign(o.node_order.begin(), o.node_order.end());
}

// ---- Reading: the snapshot's messages, checked against the freshly built world ----------

// Sleeping: none (every body awake, none resting), or one entry per body; only a dynamic
// body at rest sleeps.
absl::Status ReadSleep(const v1::RigidBodyStates& r, const World& w,
                       WorldSavedState::Rigid* rigid) {
  const int n = w.bodies().size();
  rigid->rest_time.assign(n, 0.0);
  rigid->sleep_island.assign(n, 0);
  if (r.rest_time_size() == 0 && r.sleep_island_size() == 0) return absl::OkStatus();
  if (absl::Status st = CheckDoubles(r.rest_time(), n, "state.rigid.rest_time"); !st.ok()) {
    return st;
  }
  if (absl::Status st = CheckCount(r.sleep_island_size(), n, "state.rigid.sleep_island");
      !st.ok()) {
    return st;
  }
  for (int i = 0; i < n; ++i) {
    if (r.rest_time(i) < 0.0) {
      return Invalid(absl::StrCat("state.rigid.rest_time[", i, "]"), "must be >= 0");
    }
    rigid->rest_time[i] = r.rest_time(i);
    rigid->sleep_island[i] = r.sleep_island(i);
    if (r.sleep_island(i) == 0) continue;
    if (!w.bodies().IsDynamic(i) || !rigid->linear_velocity[i].isZero() ||
        !rigid->angular_velocity[i].isZero()) {
      return Invalid(absl::StrCat("state.rigid.sleep_island[", i, "]"),
                     "only a dynamic body at rest sleeps");
    }
  }
  return absl::OkStatus();
}

absl::Status ReadRigid(const v1::WorldState& s, const World& w, WorldSavedState* out) {
  const int n = w.bodies().size();
  const v1::RigidBodyStates& r = s.rigid();
  for (const auto& [field, values, per] :
       {std::tuple{"state.rigid.position", &r.position(), 3},
        std::tuple{"state.rigid.orientation", &r.orientation(), 4},
        std::tuple{"state.rigid.linear_velocity", &r.linear_velocity(), 3},
        std::tuple{"state.rigid.angular_velocity", &r.angular_velocity(), 3}}) {
    if (absl::Status st = CheckDoubles(*values, per * n, field); !st.ok()) return st;
  }
  WorldSavedState::Rigid& rigid = out->rigid;
  if (auto e = ReadQuats(r.orientation(), n, "state.rigid.orientation", &rigid.orientation);
      !e.ok()) {
    return e;
  }
  ReadVec3s(r.position(), n, "", &rigid.position).IgnoreError();  // checked above
  ReadVec3s(r.linear_velocity(), n, "", &rigid.linear_velocity).IgnoreError();
  ReadVec3s(r.angular_velocity(), n, "", &rigid.angular_velocity).IgnoreError();
  if (absl::Status st = ReadSleep(r, w, &rigid); !st.ok()) return st;

  if (absl::Status st = CheckCount(s.joints_size(), w.joint_count(), "state.joints"); !st.ok()) {
    return st;
  }
  for (int k = 0; k < s.joints_size(); ++k) {
    const v1::JointState& js = s.joints(k);
    const std::string field = absl::StrCat("state.joints[", k, "]");
    WorldSavedState::Joint& j = out->joints.emplace_back();
    std::vector<Vec3> forces;
    if (auto e = ReadPose(js.frame_a(), field + ".frame_a", &j.frame_a); !e.ok()) return e;
    if (auto e = ReadPose(js.frame_b(), field + ".frame_b", &j.frame_b); !e.ok()) return e;
    const int blocks = js.forces_size() / 3;
    if (js.forces_size() % 3 != 0 || blocks < 3 || blocks > kMaxJointBlocks) {
      return Invalid(field + ".forces",
                     absl::StrCat("must hold 3 to ", kMaxJointBlocks, " vectors"));
    }
    if (auto e = ReadVec3s(js.forces(), blocks, field + ".forces", &forces); !e.ok()) return e;
    if (auto e = ReadVec3(js.curve_normal(), field + ".curve_normal", &j.curve_normal); !e.ok()) {
      return e;
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
    ContactCache::Saved& saved = out->contact_cache.emplace_back();
    saved.body_a = c.body_a();
    saved.body_b = c.body_b();
    if (auto e = ReadVec3(c.local_a(), field + ".local_a", &saved.local_a); !e.ok()) return e;
    if (auto e = ReadVec3(c.force(), field + ".force", &saved.force); !e.ok()) return e;
  }
  const size_t soft_count = w.soft_bodies().bodies().size();
  for (int k = 0; k < s.soft_contact_cache_size(); ++k) {
    const v1::SoftCachedContact& c = s.soft_contact_cache(k);
    const std::string field = absl::StrCat("state.soft_contact_cache[", k, "]");
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
        static_cast<int>(w.soft_bodies().bodies()[c.soft_body()].positions().size());
    // A negative vertex is a rigid feature over a triangle (rigid contacts only); a stale one
    // only misses its warm start.
    const bool face = c.vertex() < 0 && !c.has_other_soft_body() &&
                      c.vertex() > std::numeric_limits<int32_t>::min();
    if (!face && (c.vertex() < 0 || c.vertex() >= vertices)) {
      return Invalid(field + ".vertex", absl::StrCat("out of range [0, ", vertices, ")"));
    }
    Vec3 force;
    if (auto e = ReadVec3(c.force(), field + ".force", &force); !e.ok()) return e;
    const int soft = static_cast<int>(c.soft_body());
    if (c.has_other_soft_body()) {
      out->soft_pair_warm.push_back(
          {{soft, c.vertex(), static_cast<int>(c.other_soft_body())}, force});
    } else {
      out->soft_warm.push_back({{soft, c.vertex(), c.body()}, force});
    }
  }
  for (int k = 0; k < s.rod_contact_cache_size(); ++k) {
    const v1::RodCachedContact& c = s.rod_contact_cache(k);
    const std::string field = absl::StrCat("state.rod_contact_cache[", k, "]");
    if (c.body() >= static_cast<uint32_t>(n)) {
      return Invalid(field + ".body", absl::StrCat("body index out of range [0, ", n, ")"));
    }
    if (c.rod() >= w.rods().rods().size()) return Invalid(field + ".rod", "rod index out of range");
    if (c.sample() < 0) return Invalid(field + ".sample", "must be >= 0");
    Vec3 force;
    if (auto e = ReadVec3(c.force(), field + ".force", &force); !e.ok()) return e;
    out->rod_warm.push_back({{static_cast<int>(c.rod()), c.sample(), c.body()}, force});
  }
  for (int k = 0; k < s.device_driven_size(); ++k) {
    if (s.device_driven(k) >= static_cast<uint32_t>(n)) {
      return Invalid(absl::StrCat("state.device_driven[", k, "]"), "body index out of range");
    }
    out->device_driven.push_back(s.device_driven(k));
  }
  for (int k = 0; k < s.device_targets_size(); ++k) {
    const v1::DeviceTarget& t = s.device_targets(k);
    const std::string field = absl::StrCat("state.device_targets[", k, "]");
    if (t.body() >= static_cast<uint32_t>(n)) return Invalid(field, "body index out of range");
    Transform pose;
    if (auto e = ReadPose(t.pose(), field + ".pose", &pose); !e.ok()) return e;
    out->device_targets.emplace_back(t.body(), pose);
  }
  return absl::OkStatus();
}

absl::Status ReadRods(const v1::WorldState& s, const World& w, RodWorld::SavedState* out) {
  const std::vector<RodWorld::Rod>& rods = w.rods().rods();
  if (absl::Status st = CheckCount(s.rods_size(), rods.size(), "state.rods"); !st.ok()) return st;
  for (size_t k = 0; k < rods.size(); ++k) {
    const v1::RodStateMessage& m = s.rods(k);
    const std::string field = absl::StrCat("state.rods[", k, "]");
    RodState& state = out->rods.emplace_back();
    const size_t n = rods[k].state.x.size();
    if (auto e = ReadVec3s(m.x(), n, field + ".x", &state.x); !e.ok()) return e;
    if (auto e = ReadDoubles(m.theta(), n, field + ".theta", &state.theta); !e.ok()) return e;
    if (auto e = ReadVec3s(m.v(), n, field + ".v", &state.v); !e.ok()) return e;
    if (auto e = ReadDoubles(m.omega(), n, field + ".omega", &state.omega); !e.ok()) return e;
  }
  const size_t constraints = w.rods().constraints().size();
  if (absl::Status st = CheckCount(s.rod_constraints_size(), constraints, "state.rod_constraints");
      !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < constraints; ++k) {
    const v1::RodConstraintState& m = s.rod_constraints(k);
    const std::string field = absl::StrCat("state.rod_constraints[", k, "]");
    RodWorld::SavedConstraint& c = out->constraints.emplace_back();
    if (auto e = CheckDoubles(m.relative(), 9, field + ".relative"); !e.ok()) return e;
    if (auto e = ReadVec3(m.reference_tangent(), field + ".reference_tangent",
                          &c.reference_tangent);
        !e.ok()) {
      return e;
    }
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) c.relative(i, j) = m.relative(3 * i + j);
    }
    c.active = m.active();
    c.released = m.released();
  }
  for (auto& [message, ordering] :
       {std::pair{&s.rod_positions_ordering(), &out->positions_ordering},
        std::pair{&s.rod_twist_ordering(), &out->twist_ordering}}) {
    ordering->graph_key.assign(message->graph_key().begin(), message->graph_key().end());
    ordering->node_order.assign(message->node_order().begin(), message->node_order().end());
  }
  return absl::OkStatus();
}

// A corotational body's refresh after a cut (see RestRefresh), checked against its `n`
// vertices.
absl::Status ReadRefresh(const v1::SoftBodyState& m, int n, const std::string& field,
                         RestRefresh::Saved* out) {
  for (const auto& [has, message, past, name] :
       {std::tuple(m.has_factorized(), &m.factorized(), &out->factorized, ".factorized"),
        std::tuple(m.has_refactorizing(), &m.refactorizing(), &out->refactorizing,
                   ".refactorizing")}) {
    if (!has) continue;
    RestRefresh::PastMesh& mesh = past->emplace();
    if (message->rest_size() % 3 != 0) {
      return Invalid(field + name + ".rest", "not 3 numbers per vertex");
    }
    if (auto e = ReadVec3s(message->rest(), message->rest_size() / 3, field + name + ".rest",
                           &mesh.rest);
        !e.ok()) {
      return e;
    }
    mesh.split_from.assign(message->split_from().begin(), message->split_from().end());
  }
  out->h = m.refactor_h();
  out->ticks_left = static_cast<int>(std::min<uint32_t>(m.refactor_ticks_left(), 1u << 30));
  return RestRefresh::CheckSaved(*out, n, field);
}

absl::Status ReadSoft(const v1::WorldState& s, const World& w, SoftWorld::SavedState* out) {
  const std::vector<SoftWorld::Body>& bodies = w.soft_bodies().bodies();
  if (absl::Status st = CheckCount(s.soft_bodies_size(), bodies.size(), "state.soft_bodies");
      !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < bodies.size(); ++k) {
    const v1::SoftBodyState& m = s.soft_bodies(k);
    const std::string field = absl::StrCat("state.soft_bodies[", k, "]");
    const SoftWorld::Body& body = bodies[k];
    SoftWorld::SavedBody& saved = out->bodies.emplace_back();
    const size_t n = body.positions().size();
    if (auto e = ReadVec3s(m.x(), n, field + ".x", &saved.x); !e.ok()) return e;
    if (auto e = ReadVec3s(m.v(), n, field + ".v", &saved.v); !e.ok()) return e;
    if (body.mass_point) {
      const size_t n_prev = m.x_prev().empty() ? 0 : n;
      if (auto e = ReadVec3s(m.x_prev(), n_prev, field + ".x_prev", &saved.x_prev); !e.ok()) {
        return e;
      }
    } else if (!m.x_prev().empty()) {
      return Invalid(field + ".x_prev", "only mass-point bodies");
    }
    if (body.fem) {
      const size_t n_dv = m.dv().empty() ? 0 : n;
      if (auto e = ReadVec3s(m.dv(), n_dv, field + ".dv", &saved.dv); !e.ok()) return e;
      if (auto e = ReadRefresh(m, static_cast<int>(n), field, &saved.refresh); !e.ok()) return e;
    } else if (!m.dv().empty()) {
      return Invalid(field + ".dv", "only corotational bodies");
    } else if (m.has_factorized() || m.has_refactorizing()) {
      return Invalid(field + (m.has_factorized() ? ".factorized" : ".refactorizing"),
                     "only corotational bodies");
    }
    if (!m.damage().empty()) {
      if (!body.fem || !body.desc.cutting) return Invalid(field + ".damage", "body cannot be cut");
      if (auto e = ReadDoubles(m.damage(), body.fem->tet_count(), field + ".damage",
                               &saved.damage);
          !e.ok()) {
        return e;
      }
    }
    saved.topology_version = m.topology_version();
  }
  for (int k = 0; k < s.stroke_anchors_size(); ++k) {
    const v1::StrokeAnchor& a = s.stroke_anchors(k);
    const std::string field = absl::StrCat("state.stroke_anchors[", k, "]");
    if (!w.soft_bodies().HasBody(a.soft_body())) {
      return Invalid(field + ".soft_body", "no such soft body");
    }
    if (!w.IsScalpel(a.tool())) return Invalid(field + ".tool", "no such scalpel");
    SoftWorld::SavedAnchor& anchor = out->anchors.emplace_back();
    anchor.soft_body = a.soft_body();
    anchor.tool = a.tool();
    if (auto e = ReadVec3(a.point(), field + ".point", &anchor.point); !e.ok()) return e;
  }
  return absl::OkStatus();
}

absl::Status ReadHistory(const google::protobuf::RepeatedPtrField<v1::PoseSample>& in,
                         const std::string& field, std::deque<BasePoseHistory::Sample>* out) {
  if (in.size() > static_cast<int>(BasePoseHistory::kMaxSamples)) {
    return Invalid(field, absl::StrCat("holds at most ", BasePoseHistory::kMaxSamples,
                                       " samples"));
  }
  out->clear();
  for (int i = 0; i < in.size(); ++i) {
    const std::string f = absl::StrCat(field, "[", i, "]");
    const double t = in[i].time();
    if (!std::isfinite(t)) return Invalid(f + ".time", "must be finite");
    if (!out->empty() && !(t > out->back().first)) {
      return Invalid(f + ".time", "times must increase");
    }
    Transform pose;
    if (auto e = ReadPose(in[i].pose(), f + ".pose", &pose); !e.ok()) return e;
    out->emplace_back(t, pose);
  }
  return absl::OkStatus();
}

absl::Status ReadStrands(const v1::WorldState& s, const World& w,
                         std::vector<StrandWorld::SavedStrand>* out) {
  const std::vector<StrandWorld::Strand>& strands = w.strands().strands();
  if (absl::Status st = CheckCount(s.strands_size(), strands.size(), "state.strands"); !st.ok()) {
    return st;
  }
  for (size_t k = 0; k < strands.size(); ++k) {
    const v1::StrandStateMessage& m = s.strands(k);
    const std::string field = absl::StrCat("state.strands[", k, "]");
    const StrandWorld::Strand& strand = strands[k];
    StrandWorld::SavedStrand& saved = out->emplace_back();
    if (auto e = ReadQuats(m.q(), strand.sim.state().q.size(), field + ".q", &saved.q);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadVec3s(m.w(), strand.sim.state().w.size(), field + ".w", &saved.w);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadHistory(m.base_history(), field + ".base_history", &saved.base_history);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadHistory(m.reference_history(), field + ".reference_history",
                             &saved.reference_history);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadVec3s(m.points(), strand.points.size(), field + ".points", &saved.points);
        !e.ok()) {
      return e;
    }
    if (auto e = ReadPose(m.base_pose(), field + ".base_pose", &saved.base_pose); !e.ok()) {
      return e;
    }
    if (!std::isfinite(m.last_motion()) || m.last_motion() < 0.0) {
      return Invalid(field + ".last_motion", "must be finite and >= 0");
    }
    if (!std::isfinite(m.base_speed()) || m.base_speed() < 0.0) {
      return Invalid(field + ".base_speed", "must be finite and >= 0");
    }
    saved.last_motion = m.last_motion();
    saved.base_speed = m.base_speed();
    if (auto e = CheckCount(m.constraint_targets_size(), strand.constraints.size(),
                            field + ".constraint_targets");
        !e.ok()) {
      return e;
    }
    for (const v1::StrandTarget& t : m.constraint_targets()) {
      const Vec3 target(t.x(), t.y(), t.z());
      if (!target.allFinite()) return Invalid(field + ".constraint_targets", "must be finite");
      saved.constraint_targets.push_back(t.set() ? std::optional<Vec3>(target) : std::nullopt);
    }
  }
  return absl::OkStatus();
}

// Format 1 did not carry the soft constraints' state: they stay as the scene builds them
// (on, at the start of their ramps). From format 2 there is one entry per constraint.
absl::Status ReadSoftConstraints(const v1::WorldState& s, uint32_t version, const World& w,
                                 std::vector<LocalConstraintSet::Switches>* out) {
  const SoftWorld& soft = w.soft_bodies();
  const int count = soft.constraint_count();
  if (version < 2 && s.soft_constraints().empty()) {
    // The scene's own switches, unchanged.
    *out = soft.Save().constraints;
    return absl::OkStatus();
  }
  if (absl::Status st = CheckCount(s.soft_constraints_size(), count, "state.soft_constraints");
      !st.ok()) {
    return st;
  }
  const std::vector<LocalConstraintSet::Switches> built = soft.Save().constraints;
  for (int k = 0; k < count; ++k) {
    const v1::SoftConstraintState& m = s.soft_constraints(k);
    const std::string field = absl::StrCat("state.soft_constraints[", k, "]");
    if (m.ramp_steps() < 0) return Invalid(field + ".ramp_steps", "must be >= 0");
    if (m.ramp_count() < 0 || m.ramp_count() > m.ramp_steps()) {
      return Invalid(field + ".ramp_count",
                     absl::StrCat("must be in [0, ramp_steps] = [0, ", m.ramp_steps(), "], is ",
                                  m.ramp_count()));
    }
    LocalConstraintSet::Switches c = built[k];
    if (soft.ConstraintType(k) == LocalConstraintType::kNail) {
      if (absl::Status st = ReadVec3(m.goal(), field + ".goal", &c.goal); !st.ok()) return st;
    } else if (!m.goal().empty()) {
      return Invalid(field + ".goal", "only nails have a goal");
    }
    c.enabled = m.enabled();
    c.ramp_steps = m.ramp_steps();
    c.ramp_count = m.ramp_count();
    out->push_back(c);
  }
  return absl::OkStatus();
}

// The state of a snapshot of format `version`, checked against `w` (freshly built from the
// snapshot's scene), as the world's saved state.
absl::StatusOr<WorldSavedState> ReadState(const v1::WorldState& s, uint32_t version,
                                          const World& w) {
  if (!std::isfinite(s.sim_time()) || s.sim_time() < 0.0) {
    return Invalid("state.sim_time", "must be finite and >= 0");
  }
  WorldSavedState out;
  out.tick = s.tick();
  out.sim_time = s.sim_time();
  out.next_id = s.next_id();
  if (absl::Status st = ReadRigid(s, w, &out); !st.ok()) return st;
  if (absl::Status st = ReadRods(s, w, &out.rods); !st.ok()) return st;
  if (absl::Status st = ReadSoft(s, w, &out.soft); !st.ok()) return st;
  if (absl::Status st = ReadStrands(s, w, &out.strands); !st.ok()) return st;
  if (absl::Status st = ReadSoftConstraints(s, version, w, &out.soft.constraints); !st.ok()) {
    return st;
  }
  if (s.removed_constraints_size() > w.limits().max_constraints) {
    return Invalid("state.removed_constraints", "too many");
  }
  for (int i = 0; i < s.removed_constraints_size(); ++i) {
    const std::string field = absl::StrCat("state.removed_constraints[", i, "]");
    if (absl::Status st = ValidateId(s.removed_constraints(i), field); !st.ok()) return st;
    out.removed_constraints.push_back(s.removed_constraints(i));
  }
  return out;
}

// The mesh assets the scene's rigid shapes were made from, each once, by name.
void PutAssets(const SceneDesc& scene, v1::WorldSnapshot* snap) {
  std::map<std::string, const MeshAsset*> used;
  for (const BodyDesc& b : scene.bodies) {
    const RigidBodyDesc* rigid = b.rigid();
    if (rigid == nullptr) continue;
    if (rigid->shape.asset) used.emplace(rigid->shape.asset->name, rigid->shape.asset.get());
    for (const ChildShape& c : rigid->children) {
      if (c.shape.asset) used.emplace(c.shape.asset->name, c.shape.asset.get());
    }
  }
  for (const auto& [name, asset] : used) MeshAssetToProto(*asset, true, snap->add_assets());
}

// The snapshot's own assets, checked as uploads are, by name.
absl::StatusOr<std::map<std::string, std::shared_ptr<const MeshAsset>>> ReadAssets(
    const v1::WorldSnapshot& snapshot) {
  std::map<std::string, std::shared_ptr<const MeshAsset>> out;
  for (int i = 0; i < snapshot.assets_size(); ++i) {
    const v1::Asset& a = snapshot.assets(i);
    const std::string field = absl::StrCat("assets[", i, "]");
    auto asset = MeshAssetFromProto(a.mesh(), a.name(), field + ".mesh");
    if (!asset.ok()) return asset.status();
    if (!out.emplace(a.name(), *std::move(asset)).second) {
      return Invalid(field + ".name", "appears twice");
    }
  }
  return out;
}

}  // namespace

// ---- Public entry points ----------------------------------------------------------------

v1::WorldSnapshot CaptureSnapshot(const World& world) {
  v1::WorldSnapshot snap;
  snap.set_format_version(kSnapshotFormatVersion);
  snap.set_world_id(world.name());
  const SceneDesc scene = world.Export();
  *snap.mutable_scene() = SceneToProto(scene);
  PutAssets(scene, &snap);
  const WorldSavedState saved = world.SaveState();
  v1::WorldState& s = *snap.mutable_state();
  s.set_tick(saved.tick);
  s.set_sim_time(saved.sim_time);
  s.set_next_id(saved.next_id);
  PutRigid(saved, &s);
  PutRods(saved.rods, &s);
  PutSoft(saved.soft, &s);
  PutStrands(saved.strands, &s);
  PutSoftConstraints(world, saved.soft, &s);
  PutOrdering(saved.rods.positions_ordering, s.mutable_rod_positions_ordering());
  PutOrdering(saved.rods.twist_ordering, s.mutable_rod_twist_ordering());
  return snap;
}

absl::StatusOr<std::unique_ptr<World>> WorldFromSnapshot(const v1::WorldSnapshot& snapshot,
                                                         const std::string& name,
                                                         const WorldLimits& limits) {
  if (snapshot.format_version() < 1 || snapshot.format_version() > kSnapshotFormatVersion) {
    return Invalid("format_version", absl::StrCat("must be in [1, ", kSnapshotFormatVersion, "]"));
  }
  if (!snapshot.has_scene()) return Invalid("scene", "missing");
  if (!snapshot.has_state()) return Invalid("state", "missing");
  auto assets = ReadAssets(snapshot);
  if (!assets.ok()) return assets.status();
  const MeshAssetLookup lookup = [&assets](const std::string& asset_name) {
    auto found = assets->find(asset_name);
    return found == assets->end() ? std::shared_ptr<const MeshAsset>() : found->second;
  };
  absl::StatusOr<SceneDesc> scene = SceneFromProto(snapshot.scene(), lookup);
  if (!scene.ok()) {
    return absl::Status(scene.status().code(), absl::StrCat("scene.", scene.status().message()));
  }
  absl::StatusOr<std::unique_ptr<World>> world = World::FromScene(name, *scene, limits);
  if (!world.ok()) {
    // A scene that validates but does not build (a bad reference) is a bad snapshot too.
    return absl::InvalidArgumentError(absl::StrCat("scene.", world.status().message()));
  }
  absl::StatusOr<WorldSavedState> state =
      ReadState(snapshot.state(), snapshot.format_version(), **world);
  if (!state.ok()) return state.status();
  // The rods' solver orderings are checked as the world takes them.
  if (absl::Status s = (*world)->RestoreSavedState(std::move(*state)); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("state.rod_", s.message()));
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
  target->ReplaceWith(std::move(restored));
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
