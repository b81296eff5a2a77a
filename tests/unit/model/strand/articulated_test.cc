// ArticulatedSolver against a dense reference: the mass matrix assembled column by column
// from unit accelerations through the recursive residual (InverseDynamics), the bias from
// zero accelerations, and a dense solve, on a random branched strand in motion on a moving
// base. Also the implicit joint blocks (M + H) and the unit-force responses.

#include "server/model/strand/articulated.h"

#include <gtest/gtest.h>

#include <random>

#include <Eigen/Dense>

#include "server/model/strand/inverse_dynamics.h"
#include "server/model/strand/kinematics.h"
#include "tests/unit/model/strand/test_strands.h"

namespace ligature {
namespace {

struct Scene {
  StrandModel model;
  StrandState state;
  StrandBase base;
  StrandKinematics kin;
  std::vector<Vec3> tau;
  std::vector<Vec6> f_ext;
};

Scene MakeScene(unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto rv = [&] { return Vec3(u(rng), u(rng), u(rng)); };
  absl::StatusOr<StrandModel> model = StrandModel::Make(testing::RandomBranchedStrand(10, seed));
  EXPECT_TRUE(model.ok());
  Scene s{*model, RestState(*model), {}, {}, {}, {}};
  const int n = s.model.segments();
  for (int i = 0; i < n; ++i) {
    s.state.q[i] = ComposeLocal(s.state.q[i], 0.5 * rv());
    s.state.w[i] = 3.0 * rv();
    s.tau.push_back(0.01 * rv());
    s.f_ext.push_back(spatial::Join(0.01 * rv(), 0.1 * rv()));
  }
  s.base.pose.position = rv();
  s.base.pose.orientation = Quat(Eigen::AngleAxisd(0.7, rv().normalized()));
  s.base.angular_velocity = rv();
  s.base.linear_velocity = rv();
  s.base.angular_acceleration = 2.0 * rv();
  s.base.linear_acceleration = 5.0 * rv();
  ComputeKinematics(s.model, s.base.pose, s.base.SpatialVelocity(), s.state.q, s.state.w, &s.kin);
  return s;
}

// Dense mass matrix and bias from the recursive residual.
void DenseSystem(const Scene& s, Eigen::MatrixXd* m, Eigen::VectorXd* bias) {
  const int n = s.model.segments();
  const std::vector<Vec3> zero3(n, Vec3::Zero());
  StrandKinematics still;
  ComputeKinematics(s.model, s.base.pose, Vec6::Zero(), s.state.q, zero3, &still);
  m->setZero(3 * n, 3 * n);
  for (int c = 0; c < 3 * n; ++c) {
    std::vector<Vec3> alpha = zero3;
    alpha[c / 3][c % 3] = 1.0;
    const std::vector<Vec3> col = InverseDynamics(s.model, still, zero3, Vec6::Zero(), alpha, {});
    for (int i = 0; i < n; ++i) m->block<3, 1>(3 * i, c) = col[i];
  }
  const std::vector<Vec3> b = InverseDynamics(s.model, s.kin, s.state.w,
                                              s.base.SpatialAcceleration(), zero3, s.f_ext);
  bias->resize(3 * n);
  for (int i = 0; i < n; ++i) bias->segment<3>(3 * i) = b[i];
}

TEST(ArticulatedSolverTest, MatchesDenseSolveOnRandomBranchedStrand) {
  for (unsigned seed : {1u, 2u, 3u}) {
    const Scene s = MakeScene(seed);
    const int n = s.model.segments();
    Eigen::MatrixXd m;
    Eigen::VectorXd bias;
    DenseSystem(s, &m, &bias);
    EXPECT_LT((m - m.transpose()).norm(), 1e-12 * m.norm());
    Eigen::VectorXd tau(3 * n);
    for (int i = 0; i < n; ++i) tau.segment<3>(3 * i) = s.tau[i];
    const Eigen::VectorXd dense = m.ldlt().solve(tau - bias);

    ArticulatedSolver solver;
    ArticulatedInputs in;
    in.w = &s.state.w;
    in.base_acceleration = s.base.SpatialAcceleration();
    in.tau = &s.tau;
    in.f_ext = &s.f_ext;
    solver.Solve(s.model, s.kin, in);
    for (int i = 0; i < n; ++i) {
      EXPECT_LT((solver.alpha()[i] - dense.segment<3>(3 * i)).norm(), 1e-9 * (1.0 + dense.norm()))
          << "seed " << seed << " joint " << i;
    }
    // The residual of the solution vanishes.
    const std::vector<Vec3> res = InverseDynamics(s.model, s.kin, s.state.w,
                                                  s.base.SpatialAcceleration(), solver.alpha(),
                                                  s.f_ext);
    for (int i = 0; i < n; ++i) EXPECT_LT((res[i] - s.tau[i]).norm(), 1e-10);
  }
}

TEST(ArticulatedSolverTest, ImplicitBlocksAndResponsesMatchDense) {
  const Scene s = MakeScene(11);
  const int n = s.model.segments();
  Eigen::MatrixXd m;
  Eigen::VectorXd bias;
  DenseSystem(s, &m, &bias);
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<Mat3> blocks(n);
  Eigen::MatrixXd mh = m;
  for (int i = 0; i < n; ++i) {
    Mat3 a = Mat3::NullaryExpr([&] { return u(rng); });
    blocks[i] = 1e-4 * a * a.transpose();
    mh.block<3, 3>(3 * i, 3 * i) += blocks[i];
  }
  Eigen::VectorXd tau(3 * n);
  for (int i = 0; i < n; ++i) tau.segment<3>(3 * i) = s.tau[i];
  const Eigen::VectorXd dense = mh.ldlt().solve(tau - bias);
  ArticulatedSolver solver;
  ArticulatedInputs in;
  in.w = &s.state.w;
  in.base_acceleration = s.base.SpatialAcceleration();
  in.tau = &s.tau;
  in.f_ext = &s.f_ext;
  in.joint_implicit = &blocks;
  solver.Solve(s.model, s.kin, in);
  for (int i = 0; i < n; ++i) {
    EXPECT_LT((solver.alpha()[i] - dense.segment<3>(3 * i)).norm(), 1e-9 * (1.0 + dense.norm()));
  }

  // Response to a unit force at a point of segment 7: (M + H)^-1 J^T e.
  const int link = 7;
  const Vec3 point(0.0, 0.03, 0.0);
  std::vector<Vec6> f(n, Vec6::Zero());
  f[link] = spatial::ForceAt(point, Vec3(0.3, -0.5, 0.8));
  std::vector<Vec3> alpha;
  std::vector<Vec6> a;
  solver.Response(s.model, s.kin, f, {}, &alpha, &a);
  // Dense: the generalized force of f is the residual of zero motion with f as the only
  // force, negated.
  StrandKinematics still;
  const std::vector<Vec3> zero3(n, Vec3::Zero());
  ComputeKinematics(s.model, s.base.pose, Vec6::Zero(), s.state.q, zero3, &still);
  const std::vector<Vec3> gen = InverseDynamics(s.model, still, zero3, Vec6::Zero(), zero3, f);
  Eigen::VectorXd g(3 * n);
  for (int i = 0; i < n; ++i) g.segment<3>(3 * i) = -gen[i];
  const Eigen::VectorXd ref = mh.ldlt().solve(g);
  for (int i = 0; i < n; ++i) EXPECT_LT((alpha[i] - ref.segment<3>(3 * i)).norm(), 1e-9 * (1.0 + ref.norm()));
}

}  // namespace
}  // namespace ligature
