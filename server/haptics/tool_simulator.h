#pragma once
// The haptic-rate solve of one tool against its local model: the tool body, pulled by the
// virtual coupling towards the device, moves among the model's obstacles, one step per
// device pose.
//
// Each step is one implicit Euler step of the tool under gravity and the coupling
// (spring k, damper b between the device target and the tool), solved in constraint space
// after the unified-constraints scheme: the free motion dq_free uses the compliance
//   C = [M / h^2 + B / h + K]^-1      (6x6 block-diagonal: translation, rotation)
// where K, B are the coupling's stiffness and damping; every contact i (a plane of the
// model, or a buffer vertex within reach) gives a row H_i = [n_i, r_i x n_i] and
//   W = H C H^T + (obstacle compliance: the plane's, or the buffer's block d_i^T C_ij d_j,
//   d the direction a row pushes its vertex)
// and a projected Gauss-Seidel finds forces f >= 0 with gaps delta = delta_free + W f >= 0,
// f delta = 0. The tool then moves by dq = dq_free + C H^T f. A yielding obstacle (a soft
// vertex, a dynamic body) is a spring whose deflection is its compliance times the force,
// so its whole gap counts; overlap with a fixed obstacle left by the world (a negative gap
// at the start of a step) is removed by a second, position-only pass at 20 % per step, so
// that recovering it never feeds the tool's velocity (and the device's force).
//
// Planes with a friction coefficient mu add two tangent rows (t1, t2, H_t = [t, r x t])
// after their normal row: Coulomb friction in constraint space, integrated over the step
// (in displacement, as in the unified-constraints scheme). The Gauss-Seidel solves each
// contact as a block: the normal force by projection, then the tangent pair by its 2x2
// block for zero tangential displacement (sticking), cut back onto the cone
// |f_t| <= mu f_n when that needs more (sliding, at the cone's border). Friction acts in the
// velocity pass only. A buffer vertex in reach with friction gets the same two rows, its
// tangential gap the offset of its unpressed position from its anchor, the tool's point it
// sticks to (carried with the tool from where the world left it): so the tool finds again
// the sideways forces that held it in the world, and keeps them until they pass mu f_n.
//
// A feature of the tool (a box's edge or corner, a capsule's or sphere's core) over a
// buffer's surface triangle is a row too, between the tool and the triangle's point under
// the feature (its vertices by their barycentric weights, so its compliance is w^T C w
// along the row): a thin tool pressed into the middle of a coarse triangle meets it as the
// world's tool does. A feature with a buffer vertex within kToolVertexReach meets the body
// at its vertices alone. A face row's gap is measured to the unpressed triangle's point, as
// a vertex's is, along the normal of the triangle where the world left it pressed (where
// the world's faces meet the tool). A triangle takes a feature that lies within
// kFaceDepth of it (allowing for the tool's motion since the tick); a feature that no
// triangle holds so is pushed by every triangle it is sunk under, as in the world (a thin
// body's far side never pushes a tool through its near one). With friction, its tangent
// pair's gaps are the triangle point's sideways deflection.
//
// The force on the tool is the coupling's at the end of the step; the device gets its
// opposite. This is a dynamic proxy (god-object) against the exported planes and buffer
// vertices: obstacles do not move within a tick except by their compliance.

#include <array>
#include <memory>
#include <vector>

#include <Eigen/Dense>

#include "server/geometry/shape_features.h"
#include "server/haptics/haptic_params.h"
#include "server/haptics/local_model.h"

namespace ligature::haptics {

// Where the device wants the tool's centre of mass to be, and how fast it moves.
struct DeviceTarget {
  Vec3 position = Vec3::Zero();          // m
  Quat orientation = Quat::Identity();
  Vec3 linear_velocity = Vec3::Zero();   // m/s
  Vec3 angular_velocity = Vec3::Zero();  // rad/s
};

struct ToolStepResult {
  Vec3 force = Vec3::Zero();   // N, the coupling's force on the tool
  Vec3 torque = Vec3::Zero();  // N m, its torque on the tool
  int contacts = 0;            // contacts carrying a force
  // N, what the contacts put on the tool in the velocity pass: normal and friction parts.
  Vec3 contact_normal_force = Vec3::Zero();
  Vec3 contact_friction_force = Vec3::Zero();
};

class ToolSimulator {
 public:
  explicit ToolSimulator(const CouplingParams& coupling) : coupling_(coupling) {}

  // Takes the model's obstacles and the tool's state from it (re-synchronization).
  void Reset(std::shared_ptr<const ToolLocalModel> model);
  // Takes the model's obstacles but keeps the tool's own state, its position moved only a
  // share `blend` of the way to the model's: for models that arrive late (remote mode),
  // whose tool state is older than the local one. The orientation stays the local one.
  void Refresh(std::shared_ptr<const ToolLocalModel> model, double blend);
  bool has_model() const { return model_ != nullptr; }
  const ToolLocalModel* model() const { return model_.get(); }

  // One step of h seconds towards `target`.
  ToolStepResult Step(const DeviceTarget& target, double h);

  const ToolState& state() const { return state_; }
  // Potential energy in the coupling spring for `target` (J): 1/2 k |x_t - x|^2 plus the
  // rotational spring's.
  double CouplingEnergy(const DeviceTarget& target) const;

 private:
  enum class RowKind { kNormal, kTangent };
  struct Row {
    Vec6 h = Vec6::Zero();  // [n, r x n] (or [t, r x t] for a tangent row)
    RowKind kind = RowKind::kNormal;
    double friction = 0.0;  // normal rows: mu; the two tangent rows follow when > 0
    double gap = 0.0;       // m, at the start of the step
    double compliance = 0.0;  // the obstacle's own (planes)
    int buffer = -1;        // buffer index, or -1 for a plane
    // The buffer point the row pushes: one vertex (weight 1), or a triangle's three by
    // their barycentric weights (buffer-local; -1 for none).
    std::array<int, 3> vertex = {-1, -1, -1};
    Vec3 weight = Vec3::Zero();
    Vec3 vertex_direction = Vec3::Zero();  // direction the row's force pushes the point
    bool yielding = false;  // the obstacle has compliance of its own
  };

  void CollectRows();
  // The rows of the tool's features over the buffers' triangles (CollectRows).
  void CollectFaceRows(const Transform& pose);
  // `row` (its buffer point and gap set) as the normal row along n that pushes the tool at
  // lever r, with its tangent pair after it when the buffer has friction: their gaps are
  // the offset of `anchor` (where the tool holds the point, at lever `anchor_lever`) from
  // `unpressed` (the point without the tool's press).
  void AddBufferRows(Row row, const Vec3& n, const Vec3& r, const Vec3& anchor,
                     const Vec3& anchor_lever, const Vec3& unpressed);
  // How far a unit force on row j's buffer point moves row i's, along i (0 apart).
  double BufferCoupling(const Row& i, const Row& j) const;
  // Block Gauss-Seidel on W f + delta_free: normal rows delta >= 0, f >= 0, f delta = 0;
  // tangent pairs (when `friction`) zero displacement inside the cone |f_t| <= mu f_n, on
  // its border otherwise. Without `friction` the tangent rows carry no force.
  void SolveLcp(const Eigen::VectorXd& delta_free, bool friction, Eigen::VectorXd* f) const;

  CouplingParams coupling_;
  std::shared_ptr<const ToolLocalModel> model_;
  ToolState state_;
  // Per plane, the contact point's offset from the tool's centre (world axes). It moves
  // with the tool but does not turn with it: the obstacle touches the tool on its own
  // side, so a rolling tool keeps touching the floor below its centre.
  std::vector<Vec3> plane_lever_;
  // Per buffer and vertex, its anchor in the tool's frame (from the model's tool pose).
  std::vector<std::vector<Vec3>> anchor_local_;

  // Per-step scratch.
  std::vector<Row> rows_;
  std::vector<ShapeFeature> features_;
  // A feature over a buffer's triangle, as pressed.
  struct FaceHit {
    int buffer = 0;
    int face = 0;
    TriangleFeatureHit hit;
  };
  std::vector<FaceHit> sunk_;  // the hits below kFaceDepth of one feature
  Eigen::MatrixXd w_;
};

// The rotation vector (axis * angle, rad) that turns `from` into `to` the short way.
Vec3 RotationBetween(const Quat& from, const Quat& to);

}  // namespace ligature::haptics
