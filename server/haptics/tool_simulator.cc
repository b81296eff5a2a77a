#include "server/haptics/tool_simulator.h"

#include <algorithm>
#include <cmath>

#include "server/haptics/tool_distance.h"

namespace ligature::haptics {
namespace {

constexpr int kMaxIterations = 60;
constexpr double kTolerance = 1e-10;       // m, largest gap change in a sweep
constexpr double kPenetrationShare = 0.2;  // of the overlap removed per step
constexpr double kYieldingCompliance = 1e-12;  // m/N, below this an obstacle is fixed
// How deep below its pressed surface a triangle holds a tool's feature (beyond how far the
// tool moved since the tick), m; a feature no triangle holds so is pushed out by those it
// is sunk under, down to kMaxSunkDepth, as the world's faces do.
constexpr double kFaceDepth = 0.001;

}  // namespace

Vec3 RotationBetween(const Quat& from, const Quat& to) {
  Quat d = to * from.conjugate();
  if (d.w() < 0.0) d.coeffs() = -d.coeffs();
  const Eigen::AngleAxisd aa(d);
  return aa.axis() * aa.angle();
}

void ToolSimulator::Reset(std::shared_ptr<const ToolLocalModel> model) {
  model_ = std::move(model);
  state_ = model_->tool;
  plane_lever_.clear();
  for (const ContactPlane& p : model_->planes) {
    plane_lever_.push_back(p.point - model_->tool.position);
  }
  const Transform tool{model_->tool.position, model_->tool.orientation};
  anchor_local_.clear();
  for (const BufferModel& b : model_->buffers) {
    const std::vector<Vec3>& anchors = b.anchors.empty() ? b.positions : b.anchors;
    std::vector<Vec3>& local = anchor_local_.emplace_back();
    for (const Vec3& a : anchors) local.push_back(tool.InverseApply(a));
  }
}

void ToolSimulator::Refresh(std::shared_ptr<const ToolLocalModel> model, double blend) {
  if (model_ == nullptr) {
    Reset(std::move(model));
    return;
  }
  // The model's planes (Reset keeps their offsets from the world's tool centre, which now
  // follow the local one), the local tool drawn `blend` of the way to the world's.
  const ToolState local = state_;
  Reset(std::move(model));
  const ToolState& world = model_->tool;
  state_.position = local.position + blend * (world.position - local.position);
  state_.orientation = local.orientation;
  state_.linear_velocity = local.linear_velocity;
  state_.angular_velocity = local.angular_velocity;
}

// Rows of the planes (their gap follows the tool's motion since the tick) and of the
// buffer vertices within reach of the tool at its current pose.
void ToolSimulator::CollectRows() {
  rows_.clear();
  const ToolLocalModel& m = *model_;
  for (size_t i = 0; i < m.planes.size(); ++i) {
    const ContactPlane& p = m.planes[i];
    const Vec3& r = plane_lever_[i];
    Row row;
    row.gap = p.gap + p.normal.dot(state_.position + r - p.point);
    row.h << p.normal, r.cross(p.normal);
    row.compliance = p.compliance;
    row.friction = p.friction > 0.0 ? p.friction : 0.0;
    rows_.push_back(row);
    // Friction: two tangent rows spanning the plane, right after their normal row.
    if (row.friction > 0.0) {
      const Vec3 t1 = p.normal.unitOrthogonal();
      const Vec3 t2 = p.normal.cross(t1);
      for (const Vec3& t : {t1, t2}) {
        Row tangent;
        tangent.kind = RowKind::kTangent;
        tangent.h << t, r.cross(t);
        tangent.compliance = p.compliance;
        rows_.push_back(tangent);
      }
    }
  }
  const Transform pose{state_.position, state_.orientation};
  for (size_t b = 0; b < m.buffers.size(); ++b) {
    const BufferModel& buffer = m.buffers[b];
    for (size_t k = 0; k < buffer.positions.size(); ++k) {
      const SurfaceQuery q = ToolDistance(m.shapes, pose, buffer.positions[k]);
      if (!(q.distance < kToolVertexReach)) continue;
      Row row;
      row.gap = q.distance;
      row.buffer = static_cast<int>(b);
      row.vertex[0] = static_cast<int>(k);
      row.weight[0] = 1.0;
      // The vertex sticks to the tool at its anchor.
      const Vec3 anchor = pose.Apply(anchor_local_[b][k]);
      AddBufferRows(row, -q.normal, q.surface - state_.position, anchor, anchor - state_.position,
                    buffer.positions[k]);
    }
  }
  CollectFaceRows(pose);
}

// Per feature of the tool without a buffer vertex within reach, the buffers' triangles over
// it where they are pressed (where the world's faces meet it): those that hold it within
// kFaceDepth, or else every one it is sunk under. A row's gap is measured to the triangle's point
// without the press, along the normal where it is pressed.
void ToolSimulator::CollectFaceRows(const Transform& pose) {
  const ToolLocalModel& m = *model_;
  const auto faced = [](const BufferModel& b) { return !b.faces.empty(); };
  if (std::none_of(m.buffers.begin(), m.buffers.end(), faced)) return;
  features_.clear();
  for (const ChildShape& c : m.shapes) AppendShapeFeatures(c.shape, pose * c.local, &features_);
  const double depth = kFaceDepth + (state_.position - m.tool.position).norm();
  const auto add = [&](const FaceHit& h) {
    const BufferModel& buffer = m.buffers[h.buffer];
    Row row;
    row.buffer = h.buffer;
    row.vertex = buffer.faces[h.face];
    row.weight = h.hit.barycentric;
    Vec3 unpressed = Vec3::Zero();
    for (int j = 0; j < 3; ++j) unpressed += row.weight[j] * buffer.positions[row.vertex[j]];
    row.gap = h.hit.distance + h.hit.normal.dot(h.hit.on_triangle - unpressed);
    const Vec3 r = h.hit.on_feature - state_.position;
    AddBufferRows(row, h.hit.normal, r, h.hit.on_triangle, r, unpressed);
  };
  // Whether a buffer vertex, where it is pressed, is within reach of feature f.
  const auto vertex_near = [&](const ShapeFeature& f) {
    for (const BufferModel& buffer : m.buffers) {
      for (const Vec3& x : buffer.anchors.empty() ? buffer.positions : buffer.anchors) {
        if (FeatureDistance(f, x) < kToolVertexReach) return true;
      }
    }
    return false;
  };
  std::array<TriangleFeatureHit, 2> hits;
  for (const ShapeFeature& f : features_) {
    if (vertex_near(f)) continue;
    bool held = false;
    sunk_.clear();
    for (size_t b = 0; b < m.buffers.size(); ++b) {
      const BufferModel& buffer = m.buffers[b];
      const std::vector<Vec3>& x = buffer.anchors.empty() ? buffer.positions : buffer.anchors;
      for (size_t t = 0; t < buffer.faces.size(); ++t) {
        const std::array<int, 3>& tri = buffer.faces[t];
        const int count = FeatureOverTriangle(f, x[tri[0]], x[tri[1]], x[tri[2]], kToolVertexReach,
                                              kMaxSunkDepth, &hits);
        for (int k = 0; k < count; ++k) {
          const FaceHit h{static_cast<int>(b), static_cast<int>(t), hits[k]};
          if (h.hit.distance >= -depth) {
            add(h);
            held = true;
          } else {
            sunk_.push_back(h);
          }
        }
      }
    }
    if (held) continue;
    for (const FaceHit& h : sunk_) add(h);
  }
}

void ToolSimulator::AddBufferRows(Row row, const Vec3& n, const Vec3& r, const Vec3& anchor,
                                  const Vec3& anchor_lever, const Vec3& unpressed) {
  const BufferModel& buffer = model_->buffers[row.buffer];
  row.h << n, r.cross(n);
  row.vertex_direction = -n;  // the point is pushed back from the tool
  row.friction = buffer.friction > 0.0 ? buffer.friction : 0.0;
  rows_.push_back(row);
  if (!(row.friction > 0.0)) return;
  const Vec3 t1 = n.unitOrthogonal();
  for (const Vec3& t : {t1, n.cross(t1)}) {
    Row tangent = row;
    tangent.kind = RowKind::kTangent;
    tangent.friction = 0.0;
    tangent.gap = t.dot(anchor - unpressed);
    tangent.h << t, anchor_lever.cross(t);
    tangent.vertex_direction = -t;
    rows_.push_back(tangent);
  }
}

double ToolSimulator::BufferCoupling(const Row& i, const Row& j) const {
  if (i.buffer < 0 || i.buffer != j.buffer) return 0.0;
  const Eigen::MatrixXd& c = model_->buffers[i.buffer].compliance;
  double w = 0.0;
  for (int a = 0; a < 3 && i.vertex[a] >= 0; ++a) {
    for (int b = 0; b < 3 && j.vertex[b] >= 0; ++b) {
      const double weight = i.weight[a] * j.weight[b];
      if (weight == 0.0) continue;
      w += weight * i.vertex_direction.dot(c.block<3, 3>(3 * i.vertex[a], 3 * j.vertex[b]) *
                                           j.vertex_direction);
    }
  }
  return w;
}

void ToolSimulator::SolveLcp(const Eigen::VectorXd& delta_free, bool friction,
                             Eigen::VectorXd* f) const {
  const int n = static_cast<int>(delta_free.size());
  f->setZero(n);
  auto delta = [&](int i) { return delta_free[i] + w_.row(i).dot(*f); };
  for (int it = 0; it < kMaxIterations; ++it) {
    double change = 0.0;
    for (int i = 0; i < n; ++i) {
      if (rows_[i].kind != RowKind::kNormal) continue;
      // The normal force, projected onto f >= 0.
      const double fi = std::max(0.0, (*f)[i] - delta(i) / w_(i, i));
      change = std::max(change, std::abs(fi - (*f)[i]) * w_(i, i));
      (*f)[i] = fi;
      if (!(rows_[i].friction > 0.0)) continue;
      // Its tangent pair: the force that stops the tangential displacement (stick), cut
      // to the cone's border when that is outside it (slip).
      const int a = i + 1, b = i + 2;
      Eigen::Vector2d ft((*f)[a], (*f)[b]);
      if (friction) {
        Eigen::Matrix2d wt;
        wt << w_(a, a), w_(a, b), w_(b, a), w_(b, b);
        const Eigen::Vector2d dt(delta(a), delta(b));
        ft -= wt.ldlt().solve(dt);
        const double limit = rows_[i].friction * fi;
        const double norm = ft.norm();
        if (norm > limit) ft *= limit / norm;  // limit >= 0, so norm > 0 here
      } else {
        ft.setZero();
      }
      change = std::max(change, std::abs(ft[0] - (*f)[a]) * w_(a, a));
      change = std::max(change, std::abs(ft[1] - (*f)[b]) * w_(b, b));
      (*f)[a] = ft[0];
      (*f)[b] = ft[1];
    }
    if (change < kTolerance) break;
  }
}

ToolStepResult ToolSimulator::Step(const DeviceTarget& target, double h) {
  ToolStepResult result;
  if (model_ == nullptr) return result;
  const ToolLocalModel& m = *model_;
  const double k = coupling_.stiffness, b = coupling_.damping;
  const double kr = coupling_.rotational_stiffness, br = coupling_.rotational_damping;

  // Free motion: one implicit Euler step under gravity and the coupling.
  const Mat3 rot = state_.orientation.toRotationMatrix();
  const Mat3 inertia = rot * m.inertia_local * rot.transpose();
  const double ct = 1.0 / (m.mass / (h * h) + b / h + k);
  const Mat3 cr = (inertia / (h * h) + (br / h + kr) * Mat3::Identity()).inverse();
  const Vec3 rhs_t = m.mass * state_.linear_velocity / h + m.mass * m.gravity +
                     k * (target.position - state_.position) + b * target.linear_velocity;
  const Vec3 rhs_r = inertia * state_.angular_velocity / h +
                     kr * RotationBetween(state_.orientation, target.orientation) +
                     br * target.angular_velocity;
  Vec6 dq_free;
  dq_free << ct * rhs_t, cr * rhs_r;
  auto apply_c = [&](const Vec6& v) {
    Vec6 out;
    out << ct * v.head<3>(), cr * v.tail<3>();
    return out;
  };

  // Contacts in constraint space: W = H C H^T plus the obstacles' compliance.
  CollectRows();
  const int n = static_cast<int>(rows_.size());
  Vec6 dq = dq_free;
  Vec6 push = Vec6::Zero();
  if (n > 0) {
    std::vector<Vec6> ch(n);
    for (int i = 0; i < n; ++i) ch[i] = apply_c(rows_[i].h);
    w_.resize(n, n);
    for (int i = 0; i < n; ++i) {
      for (int j = 0; j < n; ++j) {
        double wij = rows_[i].h.dot(ch[j]);
        if (i == j) wij += rows_[i].compliance;
        w_(i, j) = wij + BufferCoupling(rows_[i], rows_[j]);
      }
      w_(i, i) = std::max(w_(i, i), 1e-12);
    }
    for (int i = 0; i < n; ++i) {
      rows_[i].yielding = w_(i, i) - rows_[i].h.dot(ch[i]) > kYieldingCompliance;
    }
    // Velocity pass. A yielding obstacle (compliance > 0: a soft vertex, a dynamic body)
    // is a spring whose deflection is its compliance times the present force, so its
    // gap counts whole; a fixed one must only not be entered deeper than at the start.
    Eigen::VectorXd delta_free(n), f;
    bool overlap = false;
    // A plane's tangent rows have no gap: their free violation is the tangential
    // displacement; a buffer vertex's start from its anchor's offset.
    for (int i = 0; i < n; ++i) {
      const Row& r = rows_[i];
      const double gap = r.kind == RowKind::kTangent ? r.gap
                         : r.yielding               ? r.gap
                                                    : std::max(r.gap, 0.0);
      delta_free[i] = gap + r.h.dot(dq_free);
      overlap = overlap || (r.kind == RowKind::kNormal && !r.yielding && r.gap < 0.0);
    }
    SolveLcp(delta_free, /*friction=*/true, &f);
    for (int i = 0; i < n; ++i) {
      dq += ch[i] * f[i];
      Vec3& part = rows_[i].kind == RowKind::kNormal ? result.contact_normal_force
                                                     : result.contact_friction_force;
      part += f[i] * rows_[i].h.head<3>();
    }
    // Position pass: a share of the overlap with fixed obstacles, without velocity.
    if (overlap) {
      const Eigen::VectorXd after = delta_free + w_ * f;
      Eigen::VectorXd delta2(n), f2;
      for (int i = 0; i < n; ++i) {
        const Row& r = rows_[i];
        delta2[i] = r.kind == RowKind::kTangent ? 0.0
                    : r.yielding            ? std::max(after[i], 0.0)
                                            : std::min(r.gap, 0.0) * kPenetrationShare + after[i];
      }
      SolveLcp(delta2, /*friction=*/false, &f2);
      for (int i = 0; i < n; ++i) push += ch[i] * f2[i];
    }
    for (int i = 0; i < n; ++i) {
      result.contacts += rows_[i].kind == RowKind::kNormal && f[i] > 0.0 ? 1 : 0;
    }
  }

  // The new state; velocities from the velocity pass alone.
  state_.linear_velocity = dq.head<3>() / h;
  state_.angular_velocity = dq.tail<3>() / h;
  state_.position += dq.head<3>() + push.head<3>();
  state_.orientation = Rotated(state_.orientation, dq.tail<3>() + push.tail<3>());

  // The coupling's force and torque on the tool at the end of the step.
  result.force = k * (target.position - state_.position) +
                 b * (target.linear_velocity - state_.linear_velocity);
  result.torque = kr * RotationBetween(state_.orientation, target.orientation) +
                  br * (target.angular_velocity - state_.angular_velocity);
  return result;
}

double ToolSimulator::CouplingEnergy(const DeviceTarget& target) const {
  const double e = 0.5 * coupling_.stiffness * (target.position - state_.position).squaredNorm();
  return e + 0.5 * coupling_.rotational_stiffness *
                 RotationBetween(state_.orientation, target.orientation).squaredNorm();
}

}  // namespace ligature::haptics
