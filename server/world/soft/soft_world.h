#pragma once
// The soft bodies of a world: tetrahedral meshes simulated either as mass-point models
// (distance and volume preservation) under one of six integrators, with Gissler's exact
// local constraints, as corotational linear FEM with implicit Euler, or as explicit St
// Venant-Kirchhoff FEM in substeps, both with held vertices; scalpels cut the bodies that
// allow it, whatever their model.
// One step advances every body by h; a body whose step fails or turns non-finite keeps its
// previous state, at rest, and is counted.

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "server/constraint/soft/local_constraints.h"
#include "server/constraint/soft/soft_constraint_desc.h"
#include "server/geometry/obstacle.h"
#include "server/math/transform.h"
#include "server/model/soft/fem_corotational.h"
#include "server/model/soft/fem_stvk.h"
#include "server/model/soft/integrators.h"
#include "server/model/soft/mass_point_model.h"
#include "server/model/soft/scalpel_desc.h"
#include "server/model/soft/soft_body_desc.h"
#include "server/model/soft/tet_mesh.h"
#include "server/world/frame.h"
#include "server/world/soft/rest_refresh.h"

namespace ligature {

using SoftPoseLookup = std::function<std::optional<Transform>(const std::string&)>;

// A scalpel where it is at the end of the tick.
struct SoftTool {
  std::string id;  // its rigid body
  Transform pose;
  ScalpelDesc scalpel;
  CollisionFilter filter;  // its body's: it cuts only bodies whose filters meet it
};

class SoftWorld {
 public:
  struct Body {
    SoftBodyDesc desc;
    SurfaceMesh surface;
    std::vector<int> surface_vertices;  // SurfaceVertices(surface), set with it
    std::optional<MassPointModel> mass_point;
    MassPointState mass_point_state;
    LocalConstraintSet constraints{0};
    std::optional<CorotationalModel> fem;
    std::optional<StVKModel> stvk;
    FemState fem_state;  // either FEM model's state
    // Per-step scratch of the FEM solve (assembled from the state each step), shared by
    // copies of the world (a batch edit keeps one to roll back to).
    std::shared_ptr<CorotationalSystem> system = std::make_shared<CorotationalSystem>();
    // After a cut, the new mesh's rest system factorized on another thread.
    RestRefresh refresh;
    // Vertices in a constraint (held vertices included): constraints must not share one.
    absl::flat_hash_map<int, std::string> vertex_owner;
    // How many times cuts changed the mesh's topology.
    uint32_t topology_version = 0;
    // Per tet, the damage zeta of the cutting criterion (empty until a cut: the body's).
    std::vector<double> damage;
    // This tick's free motion was taken for the world's constraint solver (StepFreeMotion):
    // its contacts with rigid shapes are rows there, and Step() leaves it be. `start` holds
    // its positions before that motion; `factorized` says its implicit system is this
    // step's (a corotational body whose step succeeded).
    bool stepped = false;
    bool factorized = false;
    // Its contacts did not go to the solve this tick (ProjectContacts): Step() projects it
    // out of the obstacles instead.
    bool project = false;
    std::vector<Vec3> start;

    const std::vector<Vec3>& positions() const {
      return mass_point ? mass_point_state.x : fem_state.x;
    }
    std::vector<Vec3>& mutable_positions() {
      return mass_point ? mass_point_state.x : fem_state.x;
    }
    std::vector<Vec3>& mutable_velocities() {
      return mass_point ? mass_point_state.v : fem_state.v;
    }
    const std::vector<Vec3>& velocities() const {
      return mass_point ? mass_point_state.v : fem_state.v;
    }
    const std::vector<double>& masses() const {
      return mass_point ? mass_point->masses() : fem_rest()->mass;
    }
    // A vertex something else places: an FEM body's held vertex, or a mass-point body's
    // vertex in a local constraint (held vertices are nails).
    bool held(int v) const {
      return mass_point ? vertex_owner.contains(v) : fem_rest()->fixed[v] != 0;
    }
    // The FEM model's rest data (masses, held vertices); null for a mass-point body.
    const FemRest* fem_rest() const {
      return fem ? &fem->rest() : stvk ? &stvk->rest() : nullptr;
    }
  };

  // INVALID_ARGUMENT naming the field for a bad mesh, material or held vertex.
  absl::Status AddBody(const SoftBodyDesc& desc);

  // Snapshots: the bodies' changing state (their meshes, as cut, are in the scene), the
  // strokes' anchors and the constraints' switches.
  struct SavedBody {
    std::vector<Vec3> x;       // m, vertex positions
    std::vector<Vec3> v;       // m/s
    std::vector<Vec3> x_prev;  // m, mass-point bodies only (may be empty)
    std::vector<Vec3> dv;      // m/s, corotational bodies only (may be empty): FemState::dv
    uint32_t topology_version = 0;
    std::vector<double> damage;  // per tet; empty before the first cut
    RestRefresh::Saved refresh;  // corotational bodies: see RestRefresh
  };
  struct SavedAnchor {
    std::string soft_body;
    std::string tool;
    Vec3 point = Vec3::Zero();  // m
  };
  struct SavedState {
    std::vector<SavedBody> bodies;    // bodies() order
    std::vector<SavedAnchor> anchors;  // sorted by (soft body, tool)
    std::vector<LocalConstraintSet::Switches> constraints;  // the order they were added in
  };
  SavedState Save() const;
  // Takes `state`, checked by the caller against bodies() and the constraints (only a mass-point
  // body has x_prev and only a corotational one dv; damage, when given, is one per tet of a body
  // that can be cut).
  void Restore(SavedState state);
  // The kind of the k-th constraint in the order they were added (k < constraint_count()).
  LocalConstraintType ConstraintType(int k) const;
  // Removes a body and its constraints; returns the constraints' ids.
  std::vector<std::string> RemoveBody(const std::string& id);
  // NOT_FOUND for an unknown body; FAILED_PRECONDITION on an FEM body (the local
  // constraints are integrator-aware: they need the mass-point model); INVALID_ARGUMENT
  // for bad vertices or a vertex already in another constraint of the body.
  absl::Status AddConstraint(const SoftConstraintDesc& desc);
  absl::Status RemoveConstraint(const std::string& id);
  // Switches a constraint off (it applies no force, keeps its vertices) or on again
  // (restarting its self-assembly ramp). NOT_FOUND for an unknown constraint.
  absl::Status SetConstraintEnabled(const std::string& id, bool enabled);
  // Whether a constraint is on (false for an unknown one).
  bool ConstraintEnabled(const std::string& id) const;
  // Removes the constraints that follow body `body_id`; returns their ids.
  std::vector<std::string> RemoveFollowing(const std::string& body_id);

  bool HasBody(const std::string& id) const { return index_.contains(id); }
  // A new filter (layers and mask) for body `id`, which exists.
  void SetCollision(const std::string& id, const CollisionFilter& filter) {
    bodies_[index_.at(id)].desc.collision = filter;
  }
  bool HasConstraint(const std::string& id) const { return constraint_ids_.contains(id); }
  const Body* FindBody(const std::string& id) const;
  const std::vector<Body>& bodies() const { return bodies_; }
  const std::vector<SoftConstraintDesc>& constraints() const { return constraints_; }
  int constraint_count() const { return static_cast<int>(constraints_.size()); }
  bool empty() const { return bodies_.empty(); }

  // One step of h seconds at simulated time `time`. Vertices then meet the `obstacles`
  // (held in place for the step): a vertex inside one is moved out along the contact
  // normal and loses its velocity into it and, by Coulomb friction (coefficient 0.5),
  // some of its sliding; a dynamic obstacle takes that momentum (pushes()).
  // Then each scalpel in `tools` strokes the bodies that allow cutting (see CutWithTools).
  void Step(double time, double h, const Vec3& gravity, const SoftPoseLookup& poses,
            std::span<const Obstacle> obstacles = {}, std::span<const SoftTool> tools = {});
  // Contacts through the world's constraint solver (its Gauss-Seidel pipeline): every
  // body's free motion over h from simulated time `time`, before the world's solve, with
  // nails following a body aimed at its pose from `poses` (where the body's own free motion
  // takes it). Step() then neither moves the bodies nor projects them out of obstacles.
  void StepFreeMotion(double time, double h, const Vec3& gravity, const SoftPoseLookup& poses);
  // A body that stepped this tick whose contacts the world's solve does not take (a
  // corotational body with more contacted vertices than kMaxCoupledPoints): Step()
  // projects it out of the obstacles, as bodies that did not step are.
  void ProjectContacts(int body) { bodies_[body].project = true; }
  // A point of a body that a contact acts on: a vertex ({v, v, v}, weights {1, 0, 0}), or a
  // point of a surface triangle (its vertices and barycentric weights). A force f on it is
  // w_i f on each vertex; it moves by sum w_i dx_i. Held vertices take weight 0: they do
  // not move, their holder takes the force.
  struct WeightedPoint {
    std::array<int, 3> vertex = {0, 0, 0};
    Vec3 weight = Vec3::UnitX();
    static WeightedPoint Vertex(int v) { return {{v, v, v}, Vec3::UnitX()}; }
  };
  // The compliance h^2 A^-1 of this step's implicit system (through its response
  // operator: see CorotationalSolve) between `points` of a body that StepFreeMotion solved
  // (3 rows and columns per point, in their order): how they move under constant forces on
  // them over the step. Nothing for a body without that system (StVK, or a failed step),
  // or with more than kMaxCoupledPoints points.
  // StVK and mass-point bodies and failed steps take the lumped compliance h^2 / m_i of
  // each vertex alone; a corotational body with more vertices in contact is projected
  // (ProjectContacts).
  std::optional<Eigen::MatrixXd> CoupledCompliance(int body,
                                                   std::span<const WeightedPoint> points) const;
  // How many points a body's coupled compliance takes (its dense matrix grows with their
  // square).
  static constexpr int kMaxCoupledPoints = 512;
  double LumpedCompliance(int body, const WeightedPoint& point, double h) const;
  // How far a point of a body that stepped has moved since the start of the step.
  Vec3 PointMotion(int body, const WeightedPoint& point) const;
  // The solved contact forces (N, constant over the step h) on `points` of a body:
  // through its implicit system when `coupled` (x += h^2 A^-1 F, v += h A^-1 F), else on
  // each vertex alone (x += h^2 F / m, v += h F / m).
  void ApplyContactForces(int body, std::span<const WeightedPoint> points,
                          std::span<const Vec3> forces, double h, bool coupled);
  // The last step's impulses on dynamic obstacles, at their contact points.
  struct Push {
    uint32_t body = 0;
    Vec3 point = Vec3::Zero();
    Vec3 impulse = Vec3::Zero();  // N s
    int soft_body = -1;  // index in bodies() of the soft body whose vertex pushed
    int vertex = -1;     // that vertex
  };
  const std::vector<Push>& pushes() const { return pushes_; }
  int last_recovered() const { return recovered_; }
  // The cuts of the last step.
  const std::vector<CutEvent>& cuts() const { return cuts_; }

 private:
  std::vector<Body> bodies_;
  absl::flat_hash_map<std::string, int> index_;
  std::vector<SoftConstraintDesc> constraints_;
  // Constraint id -> (body id, id in that body's LocalConstraintSet).
  absl::flat_hash_map<std::string, std::pair<std::string, int>> constraint_ids_;
  int recovered_ = 0;
  int free_recovered_ = 0;  // bodies StepFreeMotion held this tick
  std::vector<Push> pushes_;
  std::vector<CutEvent> cuts_;
  // Where each (body, tool) stroke last made a cutting attempt: the tip's contact point on
  // the surface then. Absent while the tool does not touch the body.
  absl::flat_hash_map<std::pair<std::string, std::string>, Vec3> stroke_anchor_;

  // `start`: the vertices' positions at the start of the step.
  void ResolveContacts(Body& body, double h, std::span<const Obstacle> obstacles,
                       const std::vector<Vec3>& start);
  // One tick of an FEM body (either model); false when the step failed.
  static bool StepFem(Body& body, double h, const Vec3& gravity);
  // One tick of a body of any model; false (the body held at rest) when it failed.
  static bool StepBody(Body& body, double time, double h, const Vec3& gravity);
  void SetFollowingGoals(const SoftPoseLookup& poses);
  void CutWithTools(std::span<const SoftTool> tools);
};

// Cuts `body` where a scalpel's stroke reached `to` (its contact point on the surface), as
// a step does once both criteria hold; `attempt` is the geometric criterion's result for
// the stroke (the cutting line v0 -> v1 and the surface normal). The blade sweeps v0 -> v1
// down to the scalpel's cut depth; its tets are separated, the model rebuilt on the new
// topology, the surface re-extracted and the cut tets damaged. Nothing changes (and nothing
// is returned) when the blade separates no vertex or a step fails. The body must allow
// cutting; its model (mass-point, corotational or StVK) is rebuilt on the cut mesh, a
// mass-point body's local constraints kept (held vertices' duplicates nailed too). `to` is
// taken by value: it may be one of the body's own positions, which the cut replaces.
std::optional<CutEvent> CutSoftBody(const SoftTool& tool, Vec3 to,
                                    const CuttingAttempt& attempt, SoftWorld::Body* body);

}  // namespace ligature
