#include "server/rpc/frame_proto.h"

#include "server/scene/scene_proto.h"

namespace ligature {

void FrameToProto(const Frame& frame, const absl::flat_hash_set<std::string>& only,
                  v1::Frame* out) {
  out->Clear();
  out->set_world(frame.world);
  out->set_tick(frame.tick);
  out->set_sim_time(frame.sim_time);
  for (const BodyState& b : frame.bodies) {
    if (!only.empty() && !only.contains(b.id)) continue;
    v1::BodyState* s = out->add_bodies();
    s->set_id(b.id);
    PoseToProto(b.pose, s->mutable_pose());
    Vec3ToProto(b.linear_velocity, s->mutable_linear_velocity());
    Vec3ToProto(b.angular_velocity, s->mutable_angular_velocity());
    for (const Vec3& p : b.rod_points) Vec3ToProto(p, s->add_rod_points());
    for (const double t : b.rod_twist) s->add_rod_twist(t);
    for (const Vec3& p : b.soft_vertices) Vec3ToProto(p, s->add_soft_vertices());
    for (const int i : b.soft_triangles) s->add_soft_triangles(i);
    s->set_topology_version(b.topology_version);
    for (const Vec3& p : b.strand_points) Vec3ToProto(p, s->add_strand_points());
    for (const int i : b.strand_parents) s->add_strand_parents(i);
    s->set_sleeping(b.sleeping);
  }
  for (const PearlState& p : frame.pearls) {
    v1::PearlState* s = out->add_pearls();
    s->set_id(p.id);
    s->set_u(p.u);
    Vec3ToProto(p.position, s->mutable_position());
    s->set_speed(p.speed);
  }
  for (const CutEvent& c : frame.cuts) {
    v1::CutEvent* cut = out->add_cuts();
    cut->set_body(c.body);
    cut->set_tool(c.tool);
    Vec3ToProto(c.point, cut->mutable_point());
    cut->set_cutting_stress(c.cutting_stress);
    cut->set_tets_separated(c.tets_separated);
    cut->set_vertices_added(c.vertices_added);
    cut->set_pieces(c.pieces);
  }
  v1::RodStats* rods = out->mutable_rods();
  rods->set_unknowns(frame.rods.unknowns);
  rods->set_bandwidth(frame.rods.bandwidth);
  rods->set_newton_steps(frame.rods.newton_steps);
  rods->set_max_violation(frame.rods.max_violation);
  v1::SolverStats* stats = out->mutable_solver();
  stats->set_iterations(frame.stats.iterations);
  stats->set_residual(frame.stats.residual);
  stats->set_constraint_rows(frame.stats.constraint_rows);
  stats->set_contacts(frame.stats.contacts);
  stats->set_recovered_bodies(frame.stats.recovered_bodies);
  stats->set_budget_exhausted(frame.stats.budget_exhausted);
  stats->set_max_penetration(frame.stats.max_penetration);
  stats->set_solve_ms(frame.stats.solve_ms);
  stats->set_sleeping_bodies(frame.stats.sleeping_bodies);
  stats->set_substeps(frame.stats.substeps);
  out->set_step_ms(frame.stats.step_ms);
  for (const ToolFrameState& t : frame.tools) {
    v1::ToolState* s = out->add_tools();
    s->set_body_id(t.body_id);
    s->set_device_id(t.device_id);
    PoseToProto(t.device_pose, s->mutable_device_pose());
    Vec3ToProto(t.coupling_force, s->mutable_coupling_force());
    Vec3ToProto(t.coupling_torque, s->mutable_coupling_torque());
    s->set_contacts(t.contacts);
    s->set_watchdog(t.watchdog);
    s->set_buttons(t.buttons);
  }
  for (const JointBreak& b : frame.broken_joints) {
    v1::JointBreak* out_break = out->add_broken_joints();
    out_break->set_constraint(frame.world + "/constraints/" + b.id);
    out_break->set_force(b.force);
    out_break->set_torque(b.torque);
  }
  for (const std::string& c : frame.removed_constraints) {
    out->add_removed_constraints(frame.world + "/constraints/" + c);
  }
  if (frame.divergence) {
    v1::DivergenceEvent* d = out->mutable_divergence();
    d->set_diverged_tick(frame.divergence->diverged_tick);
    d->set_restored_tick(frame.divergence->restored_tick);
    d->set_body(frame.divergence->body);
    d->set_reason(frame.divergence->reason);
    d->set_value(frame.divergence->value);
    d->set_paused(frame.divergence->paused);
  }
}

namespace {

Vec3 ToVec3(const v1::Vec3& v) { return Vec3(v.x(), v.y(), v.z()); }

Transform ToPose(const v1::Pose& p) {
  Transform t;
  t.position = ToVec3(p.position());
  const v1::Quaternion& q = p.orientation();
  t.orientation = Quat(q.w(), q.x(), q.y(), q.z());
  return t;
}

// A constraint's id from its resource name in `world` (the name as it is when it is not one).
std::string ConstraintId(const std::string& world, const std::string& name) {
  const std::string prefix = world + "/constraints/";
  return name.rfind(prefix, 0) == 0 ? name.substr(prefix.size()) : name;
}

}  // namespace

Frame FrameFromProto(const v1::Frame& message) {
  Frame frame;
  frame.world = message.world();
  frame.tick = message.tick();
  frame.sim_time = message.sim_time();
  frame.bodies.reserve(message.bodies_size());
  for (const v1::BodyState& s : message.bodies()) {
    BodyState& b = frame.bodies.emplace_back();
    b.id = s.id();
    b.pose = ToPose(s.pose());
    b.linear_velocity = ToVec3(s.linear_velocity());
    b.angular_velocity = ToVec3(s.angular_velocity());
    for (const v1::Vec3& p : s.rod_points()) b.rod_points.push_back(ToVec3(p));
    b.rod_twist.assign(s.rod_twist().begin(), s.rod_twist().end());
    for (const v1::Vec3& p : s.soft_vertices()) b.soft_vertices.push_back(ToVec3(p));
    b.soft_triangles.assign(s.soft_triangles().begin(), s.soft_triangles().end());
    b.topology_version = s.topology_version();
    for (const v1::Vec3& p : s.strand_points()) b.strand_points.push_back(ToVec3(p));
    b.strand_parents.assign(s.strand_parents().begin(), s.strand_parents().end());
    b.sleeping = s.sleeping();
  }
  for (const v1::PearlState& s : message.pearls()) {
    frame.pearls.push_back({s.id(), s.u(), ToVec3(s.position()), s.speed()});
  }
  for (const v1::CutEvent& c : message.cuts()) {
    frame.cuts.push_back({c.body(), c.tool(), ToVec3(c.point()), c.cutting_stress(),
                          c.tets_separated(), c.vertices_added(), c.pieces()});
  }
  frame.rods = {message.rods().unknowns(), message.rods().bandwidth(),
                message.rods().newton_steps(), message.rods().max_violation()};
  const v1::SolverStats& stats = message.solver();
  frame.stats.iterations = stats.iterations();
  frame.stats.residual = stats.residual();
  frame.stats.constraint_rows = stats.constraint_rows();
  frame.stats.contacts = stats.contacts();
  frame.stats.recovered_bodies = stats.recovered_bodies();
  frame.stats.budget_exhausted = stats.budget_exhausted();
  frame.stats.max_penetration = stats.max_penetration();
  frame.stats.solve_ms = stats.solve_ms();
  frame.stats.sleeping_bodies = stats.sleeping_bodies();
  frame.stats.substeps = stats.substeps();
  frame.stats.step_ms = message.step_ms();
  for (const v1::ToolState& s : message.tools()) {
    ToolFrameState& t = frame.tools.emplace_back();
    t.body_id = s.body_id();
    t.device_id = s.device_id();
    t.device_pose = ToPose(s.device_pose());
    t.coupling_force = ToVec3(s.coupling_force());
    t.coupling_torque = ToVec3(s.coupling_torque());
    t.contacts = s.contacts();
    t.watchdog = s.watchdog();
    t.buttons = s.buttons();
  }
  for (const v1::JointBreak& b : message.broken_joints()) {
    frame.broken_joints.push_back(
        {ConstraintId(frame.world, b.constraint()), b.force(), b.torque()});
  }
  for (const std::string& c : message.removed_constraints()) {
    frame.removed_constraints.push_back(ConstraintId(frame.world, c));
  }
  if (message.has_divergence()) {
    const v1::DivergenceEvent& d = message.divergence();
    frame.divergence = DivergenceEvent{d.diverged_tick(), d.restored_tick(), d.body(),
                                       d.reason(),        d.value(),         d.paused()};
  }
  return frame;
}

v1::World WorldInfoToProto(const WorldInfo& info) {
  v1::World w;
  w.set_name(info.name);
  *w.mutable_settings() = SettingsToProto(info.settings);
  w.set_tick(info.tick);
  w.set_sim_time(info.sim_time);
  w.set_body_count(info.body_count);
  w.set_constraint_count(info.constraint_count);
  w.set_missed_ticks(info.missed_ticks);
  w.set_overruns(info.overruns);
  w.set_last_step_ms(info.last_step_ms);
  w.set_divergences(info.counters.divergences);
  for (const auto& [body, client] : info.owners) {
    v1::BodyOwner* o = w.add_owners();
    o->set_body(body);
    o->set_client(client);
  }
  return w;
}

}  // namespace ligature
