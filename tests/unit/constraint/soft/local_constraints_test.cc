// Local constraints on soft boxes falling under gravity, for every integrator: each
// constraint holds to 1e-9 after every step (from the step the integrator can first act
// on: the first, or the second for explicit Euler), points-to-point leaves the momentum
// unchanged, switching off frees the point, self-assembly ramps its force as j / n and
// meets the constraint after n steps; a box nailed under implicit Euler hangs in static
// equilibrium. Also the paper's explicit Verlet and midpoint nail formulas (eqs. 15 and
// 18), closest points and input errors.

#include "server/constraint/soft/local_constraints.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "server/math/types.h"
#include "server/model/soft/integrators.h"
#include "server/model/soft/mass_point_model.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

const Vec3 kGravity(0.0, 0.0, -9.81);
constexpr double kH = 1e-3;
constexpr double kTol = 1e-9;

std::string Name(const testing::TestParamInfo<Integrator>& info) {
  return std::string(IntegratorName(info.param));
}

const Vec3 kHalf(0.5, 0.5, 0.5);

// Box A at the origin, then boxes at the given offsets, all in one model; box b's points
// start at b * 27.
struct Scene {
  MassPointModel model;
  MassPointState state;
  TetMesh mesh;
};

Scene MakeScene(const std::vector<Vec3>& offsets) {
  TetMesh mesh;
  std::vector<Vec3> all = {Vec3::Zero()};
  all.insert(all.end(), offsets.begin(), offsets.end());
  for (const Vec3& offset : all) {
    const TetMesh box = MakeBoxMesh(kHalf, 2, 2, 2);
    const int base = static_cast<int>(mesh.vertices.size());
    for (const Vec3& p : box.vertices) mesh.vertices.push_back(p + offset);
    for (auto t : box.tets) {
      for (int& v : t) v += base;
      mesh.tets.push_back(t);
    }
  }
  MassPointMaterial material;
  material.density = 1000.0;
  material.distance_stiffness = 200.0;
  material.volume_stiffness = 200.0;
  material.damping = 1.0;
  absl::StatusOr<MassPointModel> model = MassPointModel::FromTetMesh(mesh, material);
  EXPECT_TRUE(model.ok()) << model.status();
  Scene scene{*std::move(model), {}, mesh};
  scene.state = RestState(scene.model);
  return scene;
}

// The index of box b's vertex at rest position offset + p (p a grid point of the box).
int Vertex(const Scene& scene, int box, const Vec3& p) {
  const int base = 27 * box;
  for (int i = base; i < base + 27; ++i) {
    if ((scene.mesh.vertices[i] - scene.mesh.vertices[base] - (p + kHalf)).norm() < 1e-12) {
      return i;
    }
  }
  ADD_FAILURE() << "no vertex at " << p.transpose();
  return base;
}

// Steps with the constraints; after each step k (1-based) calls check(k) once the
// integrator can have met the constraint (k >= lead).
template <typename Check>
void RunConstrained(Integrator integrator, Scene& scene, LocalConstraintSet& constraints, int steps,
         Check check) {
  const int lead = ConstraintLeadSteps(integrator);
  for (int k = 1; k <= steps; ++k) {
    ASSERT_TRUE(StepWithConstraints(integrator, scene.model, kGravity, kH, (k - 1) * kH,
                                    constraints, &scene.state).ok());
    if (k >= lead) check(k);
  }
}

class LocalConstraintTest : public testing::TestWithParam<Integrator> {};

TEST_P(LocalConstraintTest, NailHoldsEveryStep) {
  Scene scene = MakeScene({});
  LocalConstraintSet constraints(scene.model.points());
  const int top = Vertex(scene, 0, Vec3(0.5, 0.5, 0.5));
  const int other = Vertex(scene, 0, Vec3(-0.5, -0.5, 0.5));
  const Vec3 goal = scene.state.x[top];
  const Vec3 goal2 = scene.state.x[other] + Vec3(0.01, 0.0, 0.02);  // displaced at start
  ASSERT_TRUE(constraints.AddNail(top, goal).ok());
  ASSERT_TRUE(constraints.AddNail(other, goal2).ok());
  RunConstrained(GetParam(), scene, constraints, 150, [&](int k) {
    EXPECT_LT((scene.state.x[top] - goal).norm(), kTol) << k;
    EXPECT_LT((scene.state.x[other] - goal2).norm(), kTol) << k;
  });
  // The rest of the box hangs and moves.
  EXPECT_GT((scene.state.x[0] - scene.model.rest_positions()[0]).norm(), 1e-3);
}

TEST_P(LocalConstraintTest, MovingNailFollowsPath) {
  Scene scene = MakeScene({});
  LocalConstraintSet constraints(scene.model.points());
  const int top = Vertex(scene, 0, Vec3(0.0, 0.5, 0.5));
  const Vec3 start = scene.state.x[top];
  const auto path = [start](double t) {
    return Vec3(start + Vec3(0.1 * std::sin(2.0 * std::numbers::pi * t), 0.0, 0.3 * t));
  };
  ASSERT_TRUE(constraints.AddMovingNail(top, path).ok());
  RunConstrained(GetParam(), scene, constraints, 150, [&](int k) {
    EXPECT_LT((scene.state.x[top] - path(k * kH)).norm(), kTol) << k;
  });
}

TEST_P(LocalConstraintTest, PointsToPointJoinAndKeepMomentum) {
  // Three boxes with corners 5 cm apart.
  Scene scene = MakeScene({Vec3(1.05, 0.0, 0.0), Vec3(0.0, 1.05, 0.0)});
  LocalConstraintSet constraints(scene.model.points());
  const std::vector<int> points = {Vertex(scene, 0, Vec3(0.5, 0.5, 0.5)),
                                   Vertex(scene, 1, Vec3(-0.5, 0.5, 0.5)),
                                   Vertex(scene, 2, Vec3(0.5, -0.5, 0.5))};
  ASSERT_TRUE(constraints.AddPointsToPoint(points).ok());
  const Integrator integrator = GetParam();
  const int lead = ConstraintLeadSteps(integrator);
  for (int k = 1; k <= 120; ++k) {
    // Momentum after a step with and without the constraint forces.
    const absl::StatusOr<std::vector<Vec3>> forces = constraints.ComputeForces(
        integrator, scene.model, kGravity, kH, (k - 1) * kH, scene.state);
    ASSERT_TRUE(forces.ok());
    MassPointState free = scene.state;
    ASSERT_TRUE(Step(integrator, scene.model, kGravity, kH, {}, &free).ok());
    ASSERT_TRUE(Step(integrator, scene.model, kGravity, kH, *forces, &scene.state).ok());
    Vec3 sum = Vec3::Zero(), p_free = Vec3::Zero(), p_con = Vec3::Zero();
    double largest = 0.0;
    for (const Vec3& f : *forces) {
      sum += f;
      largest = std::max(largest, f.norm());
    }
    for (int i = 0; i < scene.model.points(); ++i) {
      p_free += scene.model.masses()[i] * free.v[i];
      p_con += scene.model.masses()[i] * scene.state.v[i];
    }
    EXPECT_LT(sum.norm(), 1e-10 * std::max(largest, 1.0)) << k;
    EXPECT_LT((p_free - p_con).norm(), 1e-9 * (1.0 + p_free.norm())) << k;
    if (k == 1) {
      EXPECT_GT(largest, 1.0);  // the constraint really acts
    }
    if (k >= lead) {
      for (int p : points) EXPECT_LT((scene.state.x[p] - scene.state.x[points[0]]).norm(), kTol) << k;
    }
  }
}

// Point-to-line, -triangle, -tetrahedron and -surface: the point stays at sum alpha x
// with the alphas of the evaluation that aimed at this step.
enum class Target { kLine, kTriangle, kTetrahedron, kSurface };

void CheckPointToTarget(Integrator integrator, Target target) {
  Vec3 offset = target == Target::kLine ? Vec3(1.02, 1.02, 0.1) : Vec3(1.02, 0.1, 0.1);
  if (target == Target::kTetrahedron) {
    // Box 1 placed with its corner near the centroid of box 0's tet 0 (the boxes overlap;
    // there is no contact).
    const TetMesh box = MakeBoxMesh(kHalf, 2, 2, 2);
    Vec3 centroid = Vec3::Zero();
    for (int v : box.tets[0]) centroid += 0.25 * box.vertices[v];
    offset = centroid + Vec3(0.01, -0.005, 0.0) + kHalf;
  }
  Scene scene = MakeScene({offset});
  // Box 1 moves sideways, so the constraint has to act on both boxes.
  for (int i = 27; i < 54; ++i) scene.state.v[i] = Vec3(0.3, 0.2, 0.1);
  LocalConstraintSet constraints(scene.model.points());
  int point = Vertex(scene, 1, Vec3(-0.5, -0.5, -0.5));
  absl::StatusOr<int> id;
  SurfaceMesh surface;
  switch (target) {
    case Target::kLine:
      id = constraints.AddPointToLine(point, Vertex(scene, 0, Vec3(0.5, 0.5, -0.5)),
                                      Vertex(scene, 0, Vec3(0.5, 0.5, 0.5)));
      break;
    case Target::kTriangle:
      id = constraints.AddPointToTriangle(point, Vertex(scene, 0, Vec3(0.5, -0.5, -0.5)),
                                          Vertex(scene, 0, Vec3(0.5, 0.5, -0.5)),
                                          Vertex(scene, 0, Vec3(0.5, -0.5, 0.5)));
      break;
    case Target::kTetrahedron: {
      const auto& tet = scene.mesh.tets[0];
      id = constraints.AddPointToTetrahedron(point, tet[0], tet[1], tet[2], tet[3]);
      break;
    }
    case Target::kSurface: {
      TetMesh box = MakeBoxMesh(kHalf, 2, 2, 2);  // box 0's points are the first 27
      surface = ExtractBoundary(box);
      id = constraints.AddPointToSurface(point, surface);
      break;
    }
  }
  ASSERT_TRUE(id.ok()) << id.status();
  const int lead = ConstraintLeadSteps(integrator);
  std::vector<LocalConstraintReport> reports;
  for (int k = 1; k <= 120; ++k) {
    ASSERT_TRUE(StepWithConstraints(integrator, scene.model, kGravity, kH, (k - 1) * kH,
                                    constraints, &scene.state).ok());
    reports.push_back(constraints.report(*id));
    ASSERT_TRUE(reports.back().evaluated);
    if (k < lead) continue;
    const LocalConstraintReport& r = reports[k - lead];
    Vec3 y = Vec3::Zero();
    double alpha_sum = 0.0;
    for (size_t i = 0; i < r.alphas.size(); ++i) {
      y += r.alphas[i] * scene.state.x[r.points[i + 1]];
      alpha_sum += r.alphas[i];
    }
    EXPECT_NEAR(alpha_sum, 1.0, 1e-12);
    EXPECT_LT((scene.state.x[point] - y).norm(), kTol) << k;
    const Vec3& x = scene.state.x[point];
    const auto& p = r.points;
    switch (target) {
      case Target::kLine: {
        const Vec3 a = scene.state.x[p[1]], b = scene.state.x[p[2]];
        EXPECT_LT((x - a).cross(b - a).norm() / (b - a).norm(), kTol) << k;
        EXPECT_GT(r.alphas[1], 0.0);
        EXPECT_LT(r.alphas[1], 1.0);
        break;
      }
      case Target::kTriangle: {
        const Vec3 a = scene.state.x[p[1]], b = scene.state.x[p[2]], c = scene.state.x[p[3]];
        const Vec3 bary = ClosestPointBarycentric(x, a, b, c);
        EXPECT_LT((bary[0] * a + bary[1] * b + bary[2] * c - x).norm(), kTol) << k;
        for (double alpha : r.alphas) EXPECT_GT(alpha, 0.0);
        break;
      }
      case Target::kTetrahedron:
        for (double alpha : r.alphas) EXPECT_GT(alpha, 0.0);
        break;
      case Target::kSurface:
        EXPECT_LT(ClosestSurfacePoint(surface, scene.state.x, x, point).distance, kTol) << k;
        break;
    }
  }
  // Two-way: the constrained point's box and the target's box both moved off free fall
  // (the forces on the target points are -alpha F~).
  const LocalConstraintReport& last = reports.back();
  EXPECT_GT(last.full_forces[0].norm(), 1e-3);
  Vec3 sum = Vec3::Zero();
  for (const Vec3& f : last.full_forces) sum += f;
  EXPECT_LT(sum.norm(), 1e-12 * last.full_forces[0].norm());
}

TEST_P(LocalConstraintTest, PointToLine) { CheckPointToTarget(GetParam(), Target::kLine); }
TEST_P(LocalConstraintTest, PointToTriangle) {
  CheckPointToTarget(GetParam(), Target::kTriangle);
}
TEST_P(LocalConstraintTest, PointToTetrahedron) {
  CheckPointToTarget(GetParam(), Target::kTetrahedron);
}
TEST_P(LocalConstraintTest, PointToSurface) {
  CheckPointToTarget(GetParam(), Target::kSurface);
}

TEST_P(LocalConstraintTest, SwitchingOffFreesThePoint) {
  const Integrator integrator = GetParam();
  Scene scene = MakeScene({});
  LocalConstraintSet constraints(scene.model.points());
  const int top = Vertex(scene, 0, Vec3(0.5, 0.5, 0.5));
  const Vec3 goal = scene.state.x[top];
  const absl::StatusOr<int> id = constraints.AddNail(top, goal);
  ASSERT_TRUE(id.ok());
  RunConstrained(integrator, scene, constraints, 30,
      [&](int k) { EXPECT_LT((scene.state.x[top] - goal).norm(), kTol) << k; });
  ASSERT_TRUE(constraints.SetEnabled(*id, false).ok());
  for (int k = 0; k < 100; ++k) {
    const absl::StatusOr<std::vector<Vec3>> forces =
        constraints.ComputeForces(integrator, scene.model, kGravity, kH, 0.0, scene.state);
    ASSERT_TRUE(forces.ok());
    for (const Vec3& f : *forces) ASSERT_EQ(f, Vec3::Zero());
    ASSERT_TRUE(Step(integrator, scene.model, kGravity, kH, *forces, &scene.state).ok());
  }
  // Falling: about g t^2 / 2 = 5 cm in 0.1 s.
  EXPECT_GT((scene.state.x[top] - goal).norm(), 0.02);
  // On again: pulled back to the goal and held.
  ASSERT_TRUE(constraints.SetEnabled(*id, true).ok());
  RunConstrained(integrator, scene, constraints, 10,
      [&](int k) { EXPECT_LT((scene.state.x[top] - goal).norm(), kTol) << k; });
}

TEST_P(LocalConstraintTest, SelfAssemblyRampsAndArrives) {
  const Integrator integrator = GetParam();
  Scene scene = MakeScene({Vec3(1.05, 0.0, 0.0)});
  LocalConstraintSet constraints(scene.model.points());
  const int a = Vertex(scene, 0, Vec3(0.5, 0.5, 0.5));
  const int b = Vertex(scene, 1, Vec3(-0.5, 0.5, 0.5));
  const absl::StatusOr<int> id = constraints.AddPointsToPoint({a, b});
  ASSERT_TRUE(id.ok());
  const int n = 10;
  ASSERT_TRUE(constraints.SetSelfAssembly(*id, n).ok());
  const int lead = ConstraintLeadSteps(integrator);
  for (int j = 1; j <= n + 20; ++j) {
    const absl::StatusOr<std::vector<Vec3>> forces =
        constraints.ComputeForces(integrator, scene.model, kGravity, kH, (j - 1) * kH, scene.state);
    ASSERT_TRUE(forces.ok());
    const LocalConstraintReport& r = constraints.report(*id);
    const double expected_scale = std::min(j, n) / static_cast<double>(n);
    EXPECT_DOUBLE_EQ(r.scale, expected_scale) << j;
    EXPECT_GT(r.full_forces[0].norm(), 0.0);
    for (size_t k = 0; k < r.points.size(); ++k) {
      EXPECT_LT(((*forces)[r.points[k]] - expected_scale * r.full_forces[k]).norm(),
                1e-12 * r.full_forces[k].norm()) << j;
    }
    ASSERT_TRUE(Step(integrator, scene.model, kGravity, kH, *forces, &scene.state).ok());
    const double gap = (scene.state.x[a] - scene.state.x[b]).norm();
    if (j + 1 - lead < n) {
      EXPECT_GT(gap, 1e-7) << j;  // not there yet
    } else {
      EXPECT_LT(gap, kTol) << j;  // arrived after n steps, and stays
    }
  }
}

// A 10 cm box (k_d = 50 N, k_v = 20 J) nailed at its top centre under implicit Euler at
// 100 Hz hangs in static equilibrium: the elastic forces carry every other point's weight,
// and it hangs as the same box whose top centre the model holds.
TEST(LocalConstraintImplicitTest, NailedBoxHangsInStaticEquilibrium) {
  const TetMesh mesh = MakeBoxMesh(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  const int top = 22;  // grid point (1, 1, 2): x + 3 (y + 3 z)
  ASSERT_LT((mesh.vertices[top] - Vec3(0.0, 0.0, 0.05)).norm(), 1e-12);
  MassPointMaterial material;
  material.density = 500.0;
  material.distance_stiffness = 50.0;
  material.volume_stiffness = 20.0;
  material.damping = 0.5;
  const std::vector<int> held = {top};
  absl::StatusOr<MassPointModel> nailed = MassPointModel::FromTetMesh(mesh, material);
  absl::StatusOr<MassPointModel> pinned = MassPointModel::FromTetMesh(mesh, material, held);
  ASSERT_TRUE(nailed.ok() && pinned.ok());
  LocalConstraintSet nail(nailed->points()), none(pinned->points());
  ASSERT_TRUE(nail.AddNail(top, mesh.vertices[top]).ok());
  MassPointState a = RestState(*nailed), b = RestState(*pinned);
  const double h = 0.01;
  for (int k = 0; k < 3000; ++k) {
    ASSERT_TRUE(
        StepWithConstraints(Integrator::kImplicitEuler, *nailed, kGravity, h, k * h, nail, &a)
            .ok());
    ASSERT_TRUE(
        StepWithConstraints(Integrator::kImplicitEuler, *pinned, kGravity, h, k * h, none, &b)
            .ok());
  }
  std::vector<Vec3> f;
  ComputeForces(*nailed, a.x, a.v, kGravity, &f);
  for (int i = 0; i < nailed->points(); ++i) {
    EXPECT_LT((a.x[i] - b.x[i]).norm(), 1e-9) << i;
    if (i == top) continue;
    EXPECT_LT(f[i].norm(), 1e-9 * nailed->masses()[i] * 9.81) << i;
  }
  EXPECT_LT(a.x[0].z(), mesh.vertices[0].z() - 1e-4);  // it does hang
}

// Eq. 15 (Verlet) and eq. 18 (midpoint): the nail force in the paper's explicit forms.
TEST(LocalConstraintFormulaTest, NailForceMatchesPaper) {
  Scene scene = MakeScene({});
  const int p = 5;
  const Vec3 goal = scene.state.x[p] + Vec3(0.01, 0.02, -0.03);
  for (Integrator integrator : {Integrator::kVerlet, Integrator::kMidpoint}) {
    MassPointState s = scene.state;
    for (Vec3& v : s.v) v = Vec3(0.1, 0.0, -0.2);
    ASSERT_TRUE(Step(integrator, scene.model, kGravity, kH, {}, &s).ok());  // sets x_prev
    LocalConstraintSet constraints(scene.model.points());
    ASSERT_TRUE(constraints.AddNail(p, goal).ok());
    const absl::StatusOr<std::vector<Vec3>> forces =
        constraints.ComputeForces(integrator, scene.model, kGravity, kH, 0.0, s);
    ASSERT_TRUE(forces.ok());
    std::vector<Vec3> f;
    ComputeForces(scene.model, s.x, s.v, kGravity, &f);
    const double m = scene.model.masses()[p], h = kH;
    Vec3 expected;
    if (integrator == Integrator::kVerlet) {
      expected = m / (h * h) * (goal - 2.0 * s.x[p] + s.x_prev[p] - h * h / m * f[p]);
    } else {
      expected = 2.0 * m / (h * h) * (goal - s.x[p] - h * s.v[p] - h * h / (2.0 * m) * f[p]);
    }
    EXPECT_LT(((*forces)[p] - expected).norm(), 1e-6 * expected.norm());
  }
}

TEST(LocalConstraintErrorTest, RejectsBadAndConflictingConstraints) {
  Scene scene = MakeScene({});
  LocalConstraintSet constraints(scene.model.points());
  EXPECT_FALSE(constraints.AddNail(-1, Vec3::Zero()).ok());
  EXPECT_FALSE(constraints.AddNail(27, Vec3::Zero()).ok());
  EXPECT_FALSE(constraints.AddPointsToPoint({1}).ok());
  EXPECT_FALSE(constraints.AddPointsToPoint({1, 2, 1}).ok());
  EXPECT_FALSE(constraints.AddPointToLine(1, 1, 2).ok());
  EXPECT_FALSE(constraints.AddMovingNail(1, nullptr).ok());
  EXPECT_FALSE(constraints.SetEnabled(5, true).ok());
  ASSERT_TRUE(constraints.AddNail(3, Vec3::Zero()).ok());
  ASSERT_TRUE(constraints.AddPointToTriangle(4, 3, 5, 6).ok());  // shares point 3
  EXPECT_EQ(constraints.ComputeForces(Integrator::kVerlet, scene.model, kGravity, kH, 0.0,
                                      scene.state).status().code(),
            absl::StatusCode::kFailedPrecondition);
  ASSERT_TRUE(constraints.SetEnabled(0, false).ok());
  EXPECT_TRUE(constraints.ComputeForces(Integrator::kVerlet, scene.model, kGravity, kH, 0.0,
                                        scene.state).ok());
  LocalConstraintSet other(5);
  EXPECT_FALSE(other.ComputeForces(Integrator::kVerlet, scene.model, kGravity, kH, 0.0,
                                   scene.state).ok());
}

INSTANTIATE_TEST_SUITE_P(All, LocalConstraintTest, testing::ValuesIn(kAllIntegrators), Name);

}  // namespace
}  // namespace ligature
