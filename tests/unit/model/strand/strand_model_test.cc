// StrandModel: validation naming the offending field, derived segment data (lengths,
// masses, attachment points, parallel-transported rest joints), materials along the length.

#include "server/model/strand/strand_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_state.h"
#include "tests/unit/model/strand/test_strands.h"

namespace ligature {
namespace {

void ExpectInvalid(const StrandDesc& desc, const std::string& field) {
  const absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_FALSE(model.ok()) << field;
  EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument) << field;
  EXPECT_NE(model.status().message().find(field), std::string::npos)
      << model.status().message() << " should name " << field;
}

TEST(StrandModelTest, RejectsBadInputNamingTheField) {
  StrandDesc good = testing::StraightStrand(3, 0.3, Vec3(0, -1, 0), StrandMaterial{});
  ASSERT_TRUE(StrandModel::Make(good).ok());

  StrandDesc empty;
  ExpectInvalid(empty, "points");
  StrandDesc one = good;
  one.points.resize(1);
  ExpectInvalid(one, "points");

  StrandDesc zero = good;
  zero.points[2] = zero.points[1];
  ExpectInvalid(zero, "points[2]");

  StrandDesc nan = good;
  nan.points[1].x() = std::numeric_limits<double>::quiet_NaN();
  ExpectInvalid(nan, "points[1]");

  StrandDesc parents = good;
  parents.parents = {-1, 1, 0};
  ExpectInvalid(parents, "parents[1]");
  parents.parents = {-1, 0};
  ExpectInvalid(parents, "parents");

  StrandDesc materials = good;
  materials.materials.resize(2);
  ExpectInvalid(materials, "materials");

  const struct {
    double StrandMaterial::*field;
    double value;
    const char* name;
  } bad[] = {
      {&StrandMaterial::bend_rigidity_x, -1.0, "materials[0].bend_rigidity_x"},
      {&StrandMaterial::twist_rigidity, -1.0, "materials[0].twist_rigidity"},
      {&StrandMaterial::mass_per_length, 0.0, "materials[0].mass_per_length"},
      {&StrandMaterial::radius, std::numeric_limits<double>::quiet_NaN(), "materials[0].radius"},
      {&StrandMaterial::drag, std::numeric_limits<double>::infinity(), "materials[0].drag"},
      {&StrandMaterial::bend_damping_z, -1e-9, "materials[0].bend_damping_z"},
  };
  for (const auto& b : bad) {
    StrandDesc d = good;
    d.materials[0].*b.field = b.value;
    ExpectInvalid(d, b.name);
  }
}

TEST(StrandModelTest, DerivedSegmentsReproduceTheRestCurve) {
  const StrandDesc desc = testing::RandomBranchedStrand(12, 7);
  const absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_TRUE(model.ok()) << model.status();
  const StrandState rest = RestState(*model);
  StrandKinematics kin;
  ComputeKinematics(*model, Transform{}, Vec6::Zero(), rest.q, rest.w, &kin);
  const std::vector<Vec3> tips = TipPositions(*model, kin);
  double mass = 0.0;
  for (int i = 0; i < model->segments(); ++i) {
    EXPECT_LT((tips[i] - desc.points[i + 1]).norm(), 1e-12) << i;
    const int p = desc.parents[i];
    const Vec3 start = p < 0 ? desc.points[0] : desc.points[p + 1];
    EXPECT_NEAR(model->segment(i).length, (desc.points[i + 1] - start).norm(), 1e-15);
    mass += desc.materials[i].mass_per_length * model->segment(i).length;
    // Parallel transport: the rest joint is a pure bend (no component about the axis).
    EXPECT_NEAR(model->segment(i).rest.y(), 0.0, 1e-12) << i;
  }
  EXPECT_NEAR(model->total_mass(), mass, 1e-15);
}

TEST(StrandModelTest, MaterialsAlongLengthSampleSegmentMidpoints) {
  StrandDesc desc = testing::StraightStrand(4, 0.4, Vec3(1, 0, 0), StrandMaterial{});
  const absl::StatusOr<std::vector<StrandMaterial>> mats =
      MaterialsAlongLength(desc, [](double s) {
        StrandMaterial m;
        m.mass_per_length = 1.0 + s;
        return m;
      });
  ASSERT_TRUE(mats.ok());
  ASSERT_EQ(mats->size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_NEAR((*mats)[i].mass_per_length, 1.0 + 0.1 * i + 0.05, 1e-12);
  StrandDesc bad;
  EXPECT_EQ(MaterialsAlongLength(bad, [](double) { return StrandMaterial{}; }).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ligature
