// StrandRowSystem: K from unit test forces equals J (M + H)^-1 J^T assembled densely, the
// free accelerations a^0 match the joint accelerations, and applying the LCP's forces meets
// bilateral targets exactly.

#include "server/constraint/strand/strand_rows.h"

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include "server/model/strand/inverse_dynamics.h"
#include "server/solver/sor_lcp.h"
#include "tests/unit/model/strand/test_strands.h"

namespace ligature {
namespace {

TEST(StrandRowSystemTest, UnitForceJacobianMatchesDenseAndMeetsTargets) {
  absl::StatusOr<StrandModel> model = StrandModel::Make(testing::RandomBranchedStrand(8, 3));
  ASSERT_TRUE(model.ok());
  const int n = model->segments();
  StrandState state = RestState(*model);
  for (int i = 0; i < n; ++i) {
    state.q[i] = ComposeLocal(state.q[i], Vec3(0.1 * i, -0.2, 0.05));
    state.w[i] = Vec3(0.5, -0.3 * i, 0.2);
  }
  StrandKinematics kin;
  ComputeKinematics(*model, Transform{}, Vec6::Zero(), state.q, state.w, &kin);
  const std::vector<Vec3> tau(n, Vec3(0.001, 0.0, -0.002));
  ArticulatedSolver solver;
  ArticulatedInputs in;
  in.w = &state.w;
  in.tau = &tau;
  solver.Solve(*model, kin, in);

  std::vector<StrandRow> rows(4);
  rows[0].segment = 5;
  rows[0].point = Vec3(0, 0.02, 0);
  rows[0].direction = Vec3(1, 0, 0);
  rows[1].segment = 5;
  rows[1].point = Vec3(0, 0.02, 0);
  rows[1].direction = Vec3(0, 1, 0);
  rows[2].kind = StrandRow::Kind::kJoint;
  rows[2].segment = 2;
  rows[2].direction = Vec3(0, 0, 1);
  rows[3].segment = 7;
  rows[3].point = Vec3(0, 0.01, 0);
  rows[3].direction = Vec3(0, 0.6, 0.8);
  for (StrandRow& r : rows) r.bound.kind = LcpBound::Kind::kBilateral;
  rows[0].desired = 0.5;
  rows[1].desired = -1.0;
  rows[2].desired = 2.0;
  rows[3].desired = 0.0;

  StrandRowSystem system;
  system.Build(*model, kin, solver, rows);

  // Dense reference: M from unit accelerations, J from the rows' measures of unit joint
  // accelerations at zero velocity.
  StrandKinematics still;
  const std::vector<Vec3> zero(n, Vec3::Zero());
  ComputeKinematics(*model, Transform{}, Vec6::Zero(), state.q, zero, &still);
  Eigen::MatrixXd m(3 * n, 3 * n), j(4, 3 * n);
  StrandRowSystem measure;
  measure.Build(*model, still, solver, rows);
  for (int c = 0; c < 3 * n; ++c) {
    std::vector<Vec3> alpha = zero;
    alpha[c / 3][c % 3] = 1.0;
    const std::vector<Vec3> col = InverseDynamics(*model, still, zero, Vec6::Zero(), alpha, {});
    for (int i = 0; i < n; ++i) m.block<3, 1>(3 * i, c) = col[i];
    j.col(c) = measure.Measure(*model, still, zero, Vec6::Zero(), alpha);
  }
  const Eigen::MatrixXd k = j * m.ldlt().solve(j.transpose());
  EXPECT_LT((system.K() - k).norm(), 1e-9 * k.norm());

  // Meeting the targets: after the forces, the rows' accelerations are the desired ones.
  std::vector<Vec3> alpha = solver.alpha();
  const Eigen::VectorXd a0 = system.Measure(*model, kin, state.w, Vec6::Zero(), alpha);
  SorLcpOptions options;
  options.iterations = 500;
  options.epsilon = 0.0;
  SolveStrandRows(system, a0, options, &alpha);
  const Eigen::VectorXd a = system.Measure(*model, kin, state.w, Vec6::Zero(), alpha);
  for (int r = 0; r < 4; ++r) EXPECT_NEAR(a[r], rows[r].desired, 1e-6) << r;
}

}  // namespace
}  // namespace ligature
