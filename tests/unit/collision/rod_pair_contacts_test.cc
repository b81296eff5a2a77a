// FindRodPairContacts: two crossing rods give one contact at the crossing with the right
// points, gap and normal; rods far apart, rods without rod_contact and excluded stretches
// give none; a rod's own neighbouring stretches never touch, its far-apart ones do.

#include "server/collision/rod_pair_contacts.h"

#include <gtest/gtest.h>

#include <vector>

namespace ligature {
namespace {

struct Rod {
  RodModel model;
  RodState state;
};

Rod MakeRod(const std::vector<Vec3>& points, int control_points) {
  RodDesc d;
  d.id = "r";
  d.points = points;
  d.control_points = control_points;
  d.material.radius = 0.001;
  absl::StatusOr<RodModel> model = RodModel::Make(d);
  EXPECT_TRUE(model.ok());
  Rod rod{*std::move(model), {}};
  rod.state = InitialRodState(rod.model, points);
  return rod;
}

std::vector<RodPairContact> Find(const std::vector<const Rod*>& rods, bool collide = true,
                                 const std::vector<RodContactExclusion>& exclusions = {}) {
  std::vector<RodShapeView> views;
  for (const Rod* r : rods) views.push_back({&r->model, &r->state, collide});
  std::vector<RodPairContact> out;
  FindRodPairContacts(views, 0.001, 0.005, exclusions, &out);
  return out;
}

TEST(RodPairContactsTest, CrossingRodsTouchOnceAtTheCrossing) {
  const Rod a = MakeRod({Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0)}, 20);
  const Rod b = MakeRod({Vec3(0.1, 0.003, -0.5), Vec3(0.1, 0.003, 0.5)}, 20);
  const std::vector<RodPairContact> c = Find({&a, &b});
  ASSERT_EQ(c.size(), 1u);
  EXPECT_EQ(c[0].rod_a, 0);
  EXPECT_EQ(c[0].rod_b, 1);
  EXPECT_NEAR(c[0].u_a, 0.6, 1e-9);
  EXPECT_NEAR(c[0].u_b, 0.5, 1e-9);
  EXPECT_NEAR(c[0].distance, 0.003 - 0.002, 1e-12);
  EXPECT_NEAR((c[0].normal - Vec3::UnitY()).norm(), 0.0, 1e-9);
  EXPECT_FALSE(c[0].active);  // a gap, not an overlap
}

TEST(RodPairContactsTest, FarApartOrNotCollidingOrExcludedGiveNone) {
  const Rod a = MakeRod({Vec3(-0.5, 0, 0), Vec3(0.5, 0, 0)}, 20);
  const Rod far = MakeRod({Vec3(0.1, 0.05, -0.5), Vec3(0.1, 0.05, 0.5)}, 20);
  EXPECT_TRUE(Find({&a, &far}).empty());
  const Rod near = MakeRod({Vec3(0.1, 0.001, -0.5), Vec3(0.1, 0.001, 0.5)}, 20);
  EXPECT_EQ(Find({&a, &near}).size(), 1u);
  EXPECT_TRUE(Find({&a, &near}, false).empty());
  EXPECT_TRUE(Find({&a, &near}, true, {{0, 1, 0.5, 0.7, 0.4, 0.6}}).empty());
  EXPECT_TRUE(Find({&a, &near}, true, {{1, 0, 0.4, 0.6, 0.5, 0.7}}).empty());
}

TEST(RodPairContactsTest, ARodTouchesItselfOnlyFarAlongIt) {
  // A hairpin: two legs 3 mm apart, joined by a 3 mm bend.
  const Rod pin = MakeRod({Vec3(0, 0, 0), Vec3(0.3, 0, 0), Vec3(0.3, 0.003, 0),
                           Vec3(0, 0.003, 0)}, 80);
  const std::vector<RodPairContact> c = Find({&pin});
  ASSERT_FALSE(c.empty());
  for (const RodPairContact& k : c) {
    EXPECT_EQ(k.rod_a, 0);
    EXPECT_EQ(k.rod_b, 0);
    EXPECT_GE(std::abs(k.u_a - k.u_b), SelfContactReach(pin.model));
    EXPECT_LT(k.distance, 0.005);
  }
  // A straight rod never touches itself.
  const Rod line = MakeRod({Vec3(0, 0, 0), Vec3(1, 0, 0)}, 60);
  EXPECT_TRUE(Find({&line}).empty());
}

}  // namespace
}  // namespace ligature
