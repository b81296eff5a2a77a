#include "server/haptics/wire/haptics_proto.h"

#include <array>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

Vec3 FromProto(const v1::Vec3& v) { return Vec3(v.x(), v.y(), v.z()); }
void ToProto(const Vec3& v, v1::Vec3* out) {
  out->set_x(v.x());
  out->set_y(v.y());
  out->set_z(v.z());
}
Quat FromProto(const v1::Quaternion& q) {
  if (q.x() == 0 && q.y() == 0 && q.z() == 0 && q.w() == 0) return Quat::Identity();
  return Quat(q.w(), q.x(), q.y(), q.z());
}
void ToProto(const Quat& q, v1::Quaternion* out) {
  out->set_x(q.x());
  out->set_y(q.y());
  out->set_z(q.z());
  out->set_w(q.w());
}
void ToProto(const Transform& t, v1::Pose* out) {
  ToProto(t.position, out->mutable_position());
  ToProto(t.orientation, out->mutable_orientation());
}
Transform FromProto(const v1::Pose& p) {
  return {FromProto(p.position()), FromProto(p.orientation()).normalized()};
}

// Groups of N buffer-local vertex indices (tetrahedra, triangles) from their flat list,
// whose length is a multiple of N; false at the first index outside [0, n).
template <size_t N>
bool IndexGroups(const google::protobuf::RepeatedField<int32_t>& flat, int n,
                 std::vector<std::array<int, N>>* out) {
  for (int k = 0; k + static_cast<int>(N) <= flat.size(); k += N) {
    std::array<int, N> group;
    for (size_t j = 0; j < N; ++j) {
      group[j] = flat[k + j];
      if (group[j] < 0 || group[j] >= n) return false;
    }
    out->push_back(group);
  }
  return true;
}

absl::Status Invalid(const std::string& field, const std::string& why) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", why));
}

}  // namespace

haptics::HapticParams HapticParamsFromProto(const v1::HapticOpen& open) {
  haptics::HapticParams p;
  p.coupling.stiffness = open.stiffness();
  p.coupling.damping = open.damping();
  p.coupling.rotational_stiffness = open.rotational_stiffness();
  p.coupling.rotational_damping = open.rotational_damping();
  p.limits.force_limit = open.force_limit();
  p.limits.torque_limit = open.torque_limit();
  p.limits.force_rate_limit = open.force_rate_limit();
  p.limits.torque_rate_limit = open.torque_rate_limit();
  p.limits.watchdog_timeout = open.watchdog_timeout_ms() * 1e-3;
  return p;
}

void HapticParamsToProto(const haptics::HapticParams& p, v1::HapticOpen* out) {
  out->set_stiffness(p.coupling.stiffness);
  out->set_damping(p.coupling.damping);
  out->set_rotational_stiffness(p.coupling.rotational_stiffness);
  out->set_rotational_damping(p.coupling.rotational_damping);
  out->set_force_limit(p.limits.force_limit);
  out->set_torque_limit(p.limits.torque_limit);
  out->set_force_rate_limit(p.limits.force_rate_limit);
  out->set_torque_rate_limit(p.limits.torque_rate_limit);
  out->set_watchdog_timeout_ms(p.limits.watchdog_timeout * 1e3);
}

haptics::DevicePose DevicePoseFromProto(const v1::HapticPose& pose) {
  haptics::DevicePose p;
  p.sequence = pose.sequence();
  p.client_time = pose.client_time();
  p.position = FromProto(pose.position());
  p.orientation = FromProto(pose.orientation());
  p.buttons = pose.buttons();
  return p;
}

void DevicePoseToProto(const haptics::DevicePose& pose, v1::HapticPose* out) {
  out->set_sequence(pose.sequence);
  out->set_client_time(pose.client_time);
  ToProto(pose.position, out->mutable_position());
  ToProto(pose.orientation, out->mutable_orientation());
  out->set_buttons(pose.buttons);
}

void HapticReplyToProto(const haptics::HapticReply& r, v1::HapticForce* out) {
  out->set_sequence(r.sequence);
  out->set_client_time(r.client_time);
  ToProto(r.force, out->mutable_force());
  ToProto(r.torque, out->mutable_torque());
  out->set_contacts(r.contacts);
  out->set_clamped(r.clamped);
  out->set_rate_limited(r.rate_limited);
  out->set_watchdog(r.watchdog);
  out->set_rejected_pose(r.rejected_pose);
  out->set_out_of_order(r.out_of_order);
  out->set_stale_model(r.stale_model);
  out->set_model_tick(r.model_tick);
}

haptics::HapticReply HapticReplyFromProto(const v1::HapticForce& f) {
  haptics::HapticReply r;
  r.sequence = f.sequence();
  r.client_time = f.client_time();
  r.force = FromProto(f.force());
  r.torque = FromProto(f.torque());
  r.contacts = f.contacts();
  r.clamped = f.clamped();
  r.rate_limited = f.rate_limited();
  r.watchdog = f.watchdog();
  r.rejected_pose = f.rejected_pose();
  r.out_of_order = f.out_of_order();
  r.stale_model = f.stale_model();
  r.model_tick = f.model_tick();
  return r;
}

void LocalModelToProto(const haptics::ToolLocalModel& m, v1::HapticModel* out) {
  out->Clear();
  out->set_tick(m.tick);
  out->set_sim_time(m.sim_time);
  out->set_dt(m.dt);
  ToProto(m.gravity, out->mutable_gravity());
  ToProto(Transform{m.tool.position, m.tool.orientation}, out->mutable_tool_pose());
  ToProto(m.tool.linear_velocity, out->mutable_tool_linear_velocity());
  ToProto(m.tool.angular_velocity, out->mutable_tool_angular_velocity());
  out->set_tool_mass(m.mass);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) out->add_tool_inertia(m.inertia_local(r, c));
  }
  ToProto(m.center_local, out->mutable_tool_center_local());
  for (const ChildShape& s : m.shapes) {
    v1::HapticToolShape* t = out->add_tool_shapes();
    t->set_type(static_cast<int>(s.shape.type));
    t->set_radius(s.shape.radius);
    ToProto(s.shape.half_extents, t->mutable_half_extents());
    t->set_half_length(s.shape.half_length);
    ToProto(s.local, t->mutable_local());
  }
  for (const haptics::ContactPlane& p : m.planes) {
    v1::HapticContactPlane* q = out->add_planes();
    ToProto(p.point, q->mutable_point());
    ToProto(p.normal, q->mutable_normal());
    q->set_gap(p.gap);
    q->set_compliance(p.compliance);
    q->set_friction(p.friction);
    q->set_body_id(p.body);
  }
  for (const haptics::BufferModel& b : m.buffers) {
    v1::HapticBuffer* q = out->add_buffers();
    q->set_body_id(b.body);
    for (int v : b.vertex_indices) q->add_vertex_indices(v);
    for (const Vec3& x : b.positions) ToProto(x, q->add_positions());
    for (const Vec3& x : b.anchors) ToProto(x, q->add_anchors());
    q->set_friction(b.friction);
    for (int r = 0; r < b.compliance.rows(); ++r) {
      for (int c = 0; c < b.compliance.cols(); ++c) q->add_compliance(b.compliance(r, c));
    }
    for (const auto& t : b.tets) {
      for (int v : t) q->add_tets(v);
    }
    for (const auto& t : b.faces) {
      for (int v : t) q->add_faces(v);
    }
  }
  out->set_tool_removed(m.tool_removed);
}

absl::StatusOr<std::shared_ptr<haptics::ToolLocalModel>> LocalModelFromProto(
    const v1::HapticModel& in) {
  auto m = std::make_shared<haptics::ToolLocalModel>();
  m->tick = in.tick();
  m->sim_time = in.sim_time();
  m->dt = in.dt();
  m->tool_removed = in.tool_removed();
  if (m->tool_removed) return m;
  // The tool: its clock, state and inertia.
  if (!std::isfinite(m->sim_time)) return Invalid("sim_time", "not finite");
  if (!(m->dt > 0.0) || !std::isfinite(m->dt)) return Invalid("dt", "must be > 0");
  m->gravity = FromProto(in.gravity());
  if (!m->gravity.allFinite()) return Invalid("gravity", "not finite");
  const Transform pose = FromProto(in.tool_pose());
  if (!pose.position.allFinite() || !pose.orientation.coeffs().allFinite()) {
    return Invalid("tool_pose", "not finite");
  }
  m->tool = {pose.position, pose.orientation, FromProto(in.tool_linear_velocity()),
             FromProto(in.tool_angular_velocity())};
  if (!m->tool.linear_velocity.allFinite()) return Invalid("tool_linear_velocity", "not finite");
  if (!m->tool.angular_velocity.allFinite()) {
    return Invalid("tool_angular_velocity", "not finite");
  }
  m->mass = in.tool_mass();
  if (!(m->mass > 0.0) || !std::isfinite(m->mass)) return Invalid("tool_mass", "must be > 0");
  if (in.tool_inertia_size() != 9) return Invalid("tool_inertia", "needs 9 values");
  for (int k = 0; k < 9; ++k) m->inertia_local(k / 3, k % 3) = in.tool_inertia(k);
  if (!m->inertia_local.allFinite() || !(m->inertia_local.determinant() > 0.0)) {
    return Invalid("tool_inertia", "must be finite and positive definite");
  }
  m->center_local = FromProto(in.tool_center_local());
  if (!m->center_local.allFinite()) return Invalid("tool_center_local", "not finite");
  // Its shapes.
  for (int i = 0; i < in.tool_shapes_size(); ++i) {
    const v1::HapticToolShape& t = in.tool_shapes(i);
    const std::string field = absl::StrCat("tool_shapes[", i, "]");
    if (t.type() < 0 || t.type() > 2) return Invalid(field + ".type", "must be 0, 1 or 2");
    ChildShape s;
    s.shape.type = static_cast<ShapeType>(t.type());
    s.shape.radius = t.radius();
    s.shape.half_extents = FromProto(t.half_extents());
    s.shape.half_length = t.half_length();
    s.local = FromProto(t.local());
    if (!(s.shape.radius >= 0.0) || !std::isfinite(s.shape.radius) ||
        !(s.shape.half_length >= 0.0) || !std::isfinite(s.shape.half_length) ||
        !s.shape.half_extents.allFinite() || (s.shape.half_extents.array() < 0.0).any()) {
      return Invalid(field, "sizes must be finite and >= 0");
    }
    if (!s.local.position.allFinite() || !s.local.orientation.coeffs().allFinite()) {
      return Invalid(field + ".local", "not finite");
    }
    m->shapes.push_back(s);
  }
  // The contact planes.
  for (int i = 0; i < in.planes_size(); ++i) {
    const v1::HapticContactPlane& q = in.planes(i);
    const std::string field = absl::StrCat("planes[", i, "]");
    haptics::ContactPlane p;
    p.point = FromProto(q.point());
    const Vec3 normal = FromProto(q.normal());
    p.gap = q.gap();
    p.compliance = q.compliance();
    p.friction = q.friction();
    p.body = q.body_id();
    if (!p.point.allFinite()) return Invalid(field + ".point", "not finite");
    if (!normal.allFinite() || !(normal.norm() > 1e-9)) {
      return Invalid(field + ".normal", "must be finite and non-zero");
    }
    p.normal = normal.normalized();
    if (!std::isfinite(p.gap)) return Invalid(field + ".gap", "not finite");
    if (!(p.compliance >= 0.0) || !std::isfinite(p.compliance)) {
      return Invalid(field + ".compliance", "must be finite and >= 0");
    }
    if (!(p.friction >= 0.0) || !std::isfinite(p.friction)) {
      return Invalid(field + ".friction", "must be finite and >= 0");
    }
    m->planes.push_back(std::move(p));
  }
  // The soft bodies' buffers.
  for (int i = 0; i < in.buffers_size(); ++i) {
    const v1::HapticBuffer& q = in.buffers(i);
    const std::string field = absl::StrCat("buffers[", i, "]");
    haptics::BufferModel b;
    b.body = q.body_id();
    const int n = q.positions_size();
    if (q.vertex_indices_size() != n || q.compliance_size() != 9 * n * n || q.tets_size() % 4 ||
        q.faces_size() % 3) {
      return Invalid(field,
                     "vertex_indices, positions, compliance (3n x 3n), tets and faces disagree");
    }
    for (int v : q.vertex_indices()) {
      if (v < 0) return Invalid(field + ".vertex_indices", "must be >= 0");
      b.vertex_indices.push_back(v);
    }
    for (const v1::Vec3& x : q.positions()) {
      b.positions.push_back(FromProto(x));
      if (!b.positions.back().allFinite()) return Invalid(field + ".positions", "not finite");
    }
    if (q.anchors_size() != 0 && q.anchors_size() != n) {
      return Invalid(field + ".anchors", "one per vertex, or none");
    }
    for (const v1::Vec3& x : q.anchors()) {
      b.anchors.push_back(FromProto(x));
      if (!b.anchors.back().allFinite()) return Invalid(field + ".anchors", "not finite");
    }
    b.friction = q.friction();
    if (!(b.friction >= 0.0) || !std::isfinite(b.friction)) {
      return Invalid(field + ".friction", "must be finite and >= 0");
    }
    b.compliance.resize(3 * n, 3 * n);
    for (int k = 0; k < 9 * n * n; ++k) b.compliance(k / (3 * n), k % (3 * n)) = q.compliance(k);
    if (!b.compliance.allFinite()) return Invalid(field + ".compliance", "not finite");
    if (!IndexGroups(q.tets(), n, &b.tets)) return Invalid(field + ".tets", "bad index");
    if (!IndexGroups(q.faces(), n, &b.faces)) return Invalid(field + ".faces", "bad index");
    m->buffers.push_back(std::move(b));
  }
  return m;
}

}  // namespace ligature
