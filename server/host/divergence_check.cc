#include "server/host/divergence_check.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace ligature {

namespace {

// Records the first diverged quantity; every check after it is a no-op.
class Checker {
 public:
  explicit Checker(const DivergenceBounds& bounds) : bounds_(bounds) {}

  // A position: finite, and every component within the position bound.
  void Position(const std::string& body, const char* what, const Vec3& x) {
    if (found_) return;
    if (!x.allFinite()) return Fail(body, absl::StrCat("non-finite ", what), 0.0);
    const double m = x.cwiseAbs().maxCoeff();
    if (m > bounds_.max_position) Fail(body, absl::StrCat(what, " beyond the bound"), m);
  }
  // A velocity whose norm is bounded by `bound`.
  void Speed(const std::string& body, const char* what, const Vec3& v, double bound) {
    if (found_) return;
    if (!v.allFinite()) return Fail(body, absl::StrCat("non-finite ", what), 0.0);
    const double n = v.norm();
    if (n > bound) Fail(body, absl::StrCat(what, " beyond the bound"), n);
  }
  // A scalar that only has to be finite (and, with a bound, within it in magnitude).
  void Scalar(const std::string& body, const char* what, double s, double bound) {
    if (found_) return;
    if (!std::isfinite(s)) return Fail(body, absl::StrCat("non-finite ", what), 0.0);
    if (std::abs(s) > bound) Fail(body, absl::StrCat(what, " beyond the bound"), std::abs(s));
  }
  void Orientation(const std::string& body, const Quat& q) {
    if (found_) return;
    if (!q.coeffs().allFinite()) Fail(body, "non-finite orientation", 0.0);
  }
  void Positions(const std::string& body, const char* what, const std::vector<Vec3>& xs) {
    for (const Vec3& x : xs) Position(body, what, x);
  }
  void Speeds(const std::string& body, const char* what, const std::vector<Vec3>& vs,
              double bound) {
    for (const Vec3& v : vs) Speed(body, what, v, bound);
  }

  const DivergenceBounds& bounds() const { return bounds_; }
  std::optional<DivergenceEvent> result() const { return found_; }

 private:
  void Fail(const std::string& body, std::string reason, double value) {
    DivergenceEvent e;
    e.body = body;
    e.reason = std::move(reason);
    e.value = value;
    found_ = std::move(e);
  }

  const DivergenceBounds& bounds_;
  std::optional<DivergenceEvent> found_;
};

void CheckRigid(const RigidBodies& b, Checker* c) {
  for (int i = 0; i < b.size(); ++i) {
    c->Position(b.id[i], "position", b.position[i]);
    c->Orientation(b.id[i], b.orientation[i]);
    c->Speed(b.id[i], "linear velocity", b.linear_velocity[i], c->bounds().max_speed);
    c->Speed(b.id[i], "angular velocity", b.angular_velocity[i],
             c->bounds().max_angular_speed);
  }
}

// Rods: control points and their velocities, twist and twist rates; pearls along them.
void CheckRods(const RodWorld& rods, Checker* c) {
  const DivergenceBounds& bounds = c->bounds();
  for (const RodWorld::Rod& r : rods.rods()) {
    const std::string& id = r.desc.id;
    c->Positions(id, "rod control point", r.state.x);
    c->Speeds(id, "rod control point velocity", r.state.v, bounds.max_speed);
    for (double t : r.state.theta) c->Scalar(id, "rod twist", t, HUGE_VAL);
    for (double w : r.state.omega) c->Scalar(id, "rod twist rate", w, bounds.max_angular_speed);
  }
  for (const Pearl& p : rods.pearls()) {
    c->Scalar(p.desc.id, "pearl position along its rod", p.u, bounds.max_position);
    c->Scalar(p.desc.id, "pearl speed", p.speed, bounds.max_speed);
  }
}

// Soft bodies: vertices and their velocities, under either model.
void CheckSoft(const SoftWorld& soft, Checker* c) {
  for (const SoftWorld::Body& b : soft.bodies()) {
    const std::string& id = b.desc.id;
    c->Positions(id, "soft vertex", b.positions());
    if (b.mass_point) {
      c->Speeds(id, "soft vertex velocity", b.mass_point_state.v, c->bounds().max_speed);
      c->Positions(id, "soft vertex (previous)", b.mass_point_state.x_prev);
    } else {
      c->Speeds(id, "soft vertex velocity", b.fem_state.v, c->bounds().max_speed);
    }
  }
}

// Strands: joint rotations and rates, and the points they place.
void CheckStrands(const StrandWorld& strands, Checker* c) {
  for (const StrandWorld::Strand& s : strands.strands()) {
    const std::string& id = s.desc.id;
    for (const Quat& q : s.sim.state().q) c->Orientation(id, q);
    c->Speeds(id, "strand joint rate", s.sim.state().w, c->bounds().max_angular_speed);
    c->Positions(id, "strand point", s.points);
    c->Position(id, "strand base", s.base_pose.position);
  }
}

// Walks a frame's numbers; `where` receives the first non-finite one's path.
class FrameScan {
 public:
  void Num(double x, const std::string& path) {
    if (!where_ && !std::isfinite(x)) where_ = path;
  }
  void Vec(const Vec3& v, const std::string& path) {
    if (!where_ && !v.allFinite()) where_ = path;
  }
  void Vecs(const std::vector<Vec3>& vs, const std::string& path) {
    for (size_t i = 0; i < vs.size() && !where_; ++i) Vec(vs[i], absl::StrCat(path, "[", i, "]"));
  }
  void Pose(const Transform& t, const std::string& path) {
    Vec(t.position, absl::StrCat(path, ".position"));
    if (!where_ && !t.orientation.coeffs().allFinite()) {
      where_ = absl::StrCat(path, ".orientation");
    }
  }
  std::optional<std::string> where() const { return where_; }

 private:
  std::optional<std::string> where_;
};

}  // namespace

std::optional<DivergenceEvent> FindDivergence(const World& world,
                                              const DivergenceBounds& bounds) {
  Checker c(bounds);
  CheckRigid(world.bodies(), &c);
  CheckRods(world.rods(), &c);
  CheckSoft(world.soft_bodies(), &c);
  CheckStrands(world.strands(), &c);
  return c.result();
}

std::optional<std::string> FindNonFinite(const Frame& f) {
  FrameScan s;
  s.Num(f.sim_time, "sim_time");
  for (size_t i = 0; i < f.bodies.size(); ++i) {
    const BodyState& b = f.bodies[i];
    const std::string p = absl::StrCat("bodies[", i, "]");
    s.Pose(b.pose, absl::StrCat(p, ".pose"));
    s.Vec(b.linear_velocity, absl::StrCat(p, ".linear_velocity"));
    s.Vec(b.angular_velocity, absl::StrCat(p, ".angular_velocity"));
    s.Vecs(b.rod_points, absl::StrCat(p, ".rod_points"));
    for (double t : b.rod_twist) s.Num(t, absl::StrCat(p, ".rod_twist"));
    s.Vecs(b.soft_vertices, absl::StrCat(p, ".soft_vertices"));
    s.Vecs(b.strand_points, absl::StrCat(p, ".strand_points"));
  }
  const StepStats& st = f.stats;
  s.Num(st.residual, "solver.residual");
  s.Num(st.max_penetration, "solver.max_penetration");
  s.Num(st.step_ms, "step_ms");
  s.Num(st.solve_ms, "solver.solve_ms");
  s.Num(f.rods.max_violation, "rods.max_violation");
  for (size_t i = 0; i < f.pearls.size(); ++i) {
    const std::string p = absl::StrCat("pearls[", i, "]");
    s.Num(f.pearls[i].u, absl::StrCat(p, ".u"));
    s.Vec(f.pearls[i].position, absl::StrCat(p, ".position"));
    s.Num(f.pearls[i].speed, absl::StrCat(p, ".speed"));
  }
  for (size_t i = 0; i < f.cuts.size(); ++i) {
    s.Vec(f.cuts[i].point, absl::StrCat("cuts[", i, "].point"));
    s.Num(f.cuts[i].cutting_stress, absl::StrCat("cuts[", i, "].cutting_stress"));
  }
  for (size_t i = 0; i < f.tools.size(); ++i) {
    const std::string p = absl::StrCat("tools[", i, "]");
    s.Pose(f.tools[i].device_pose, absl::StrCat(p, ".device_pose"));
    s.Vec(f.tools[i].coupling_force, absl::StrCat(p, ".coupling_force"));
    s.Vec(f.tools[i].coupling_torque, absl::StrCat(p, ".coupling_torque"));
  }
  if (f.divergence) s.Num(f.divergence->value, "divergence.value");
  return s.where();
}

}  // namespace ligature
