#include "server/collision/pairs/contact_reduction.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace ligature {
namespace {

ContactPoint At(double x, double z, double distance) {
  ContactPoint p;
  p.position = Vec3(x, 0, z);
  p.normal = Vec3::UnitY();
  p.distance = distance;
  return p;
}

bool Contains(const ContactManifold& m, const ContactPoint& p) {
  for (int i = 0; i < m.count; ++i) {
    if ((m.points[i].position - p.position).norm() < 1e-12) return true;
  }
  return false;
}

TEST(ContactReductionTest, FourOrFewerAreKeptAsIs) {
  const std::vector<ContactPoint> in = {At(0, 0, -0.1), At(1, 0, -0.2), At(1, 1, 0.0)};
  ContactManifold m;
  ReduceContacts(in, Vec3::UnitY(), &m);
  ASSERT_EQ(m.count, 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(m.points[i].position, in[i].position);
}

// Octagon with one vertex deeper: the deepest, the opposite vertex and the two vertices
// farthest from that diagonal on either side are kept (the largest inscribed square).
TEST(ContactReductionTest, OctagonKeepsDeepestAndSpread) {
  std::vector<ContactPoint> in;
  for (int k = 0; k < 8; ++k) {
    const double angle = k * std::numbers::pi / 4.0;
    in.push_back(At(std::cos(angle), std::sin(angle), k == 2 ? -0.3 : -0.1));
  }
  ContactManifold m;
  ReduceContacts(in, Vec3::UnitY(), &m);
  ASSERT_EQ(m.count, 4);
  EXPECT_DOUBLE_EQ(m.points[0].distance, -0.3);
  EXPECT_TRUE(Contains(m, in[2]));
  EXPECT_TRUE(Contains(m, in[6]));
  EXPECT_TRUE(Contains(m, in[0]));
  EXPECT_TRUE(Contains(m, in[4]));
}

TEST(ContactReductionTest, CollinearPointsKeepTheTwoEnds) {
  std::vector<ContactPoint> in;
  for (int k = 0; k < 6; ++k) in.push_back(At(k, 0, k == 3 ? -0.5 : -0.1));
  ContactManifold m;
  ReduceContacts(in, Vec3::UnitY(), &m);
  ASSERT_EQ(m.count, 2);
  EXPECT_TRUE(Contains(m, in[3]));
  EXPECT_TRUE(Contains(m, in[0]));
}

TEST(ContactReductionTest, CoincidentPointsKeepOne) {
  const std::vector<ContactPoint> in(6, At(1, 1, -0.1));
  ContactManifold m;
  ReduceContacts(in, Vec3::UnitY(), &m);
  EXPECT_EQ(m.count, 1);
}

}  // namespace
}  // namespace ligature
