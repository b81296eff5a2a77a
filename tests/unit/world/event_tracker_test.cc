#include "server/world/event_tracker.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

namespace ligature {
namespace {

EventTracker::Touch MakeTouch(uint64_t a, uint64_t b, const std::string& ida,
                              const std::string& idb, double impulse) {
  EventTracker::Touch t;
  t.key_a = a;
  t.key_b = b;
  t.event.body_a = ida;
  t.event.body_b = idb;
  t.event.normal_impulse = impulse;
  return t;
}

EventTracker::Overlap MakeOverlap(uint64_t sensor, int shape, uint64_t body,
                                  const std::string& sensor_id, const std::string& body_id) {
  EventTracker::Overlap o;
  o.sensor_key = sensor;
  o.body_key = body;
  o.event.sensor = sensor_id;
  o.event.sensor_shape = shape;
  o.event.body = body_id;
  return o;
}

// The bodies that rest: those with the given keys.
EventTracker::Rests Among(std::vector<uint64_t> keys) {
  return [keys](uint64_t key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
}

std::vector<EventKind> Kinds(const TickEvents& e) {
  std::vector<EventKind> out;
  for (const ContactEvent& c : e.contacts) out.push_back(c.kind);
  return out;
}

TEST(EventTrackerTest, PairsBeginPersistAndEndWithTheirPeak) {
  EventTracker tracker;
  TickEvents t1;
  tracker.Update({MakeTouch(1, 2, "a", "b", 3.0)}, {}, /*persist=*/true, {}, &t1);
  ASSERT_EQ(Kinds(t1), std::vector<EventKind>{EventKind::kContactBegin});
  EXPECT_EQ(t1.contacts[0].peak_normal_impulse, 3.0);

  TickEvents t2;
  tracker.Update({MakeTouch(1, 2, "a", "b", 5.0)}, {}, true, {}, &t2);
  ASSERT_EQ(Kinds(t2), std::vector<EventKind>{EventKind::kContactPersist});
  EXPECT_EQ(t2.contacts[0].normal_impulse, 5.0);
  EXPECT_EQ(t2.contacts[0].peak_normal_impulse, 5.0);

  TickEvents t3;
  tracker.Update({MakeTouch(1, 2, "a", "b", 1.0)}, {}, true, {}, &t3);
  EXPECT_EQ(t3.contacts[0].peak_normal_impulse, 5.0);  // the peak so far stays

  TickEvents t4;
  tracker.Update({}, {}, true, {}, &t4);
  ASSERT_EQ(Kinds(t4), std::vector<EventKind>{EventKind::kContactEnd});
  EXPECT_EQ(t4.contacts[0].body_a, "a");
  EXPECT_EQ(t4.contacts[0].body_b, "b");
  EXPECT_EQ(t4.contacts[0].normal_impulse, 0.0);
  EXPECT_EQ(t4.contacts[0].peak_normal_impulse, 5.0);
  EXPECT_EQ(tracker.live_contacts(), 0u);

  // A pair that touches again begins anew, its peak counted afresh.
  TickEvents t5;
  tracker.Update({MakeTouch(1, 2, "a", "b", 0.5)}, {}, true, {}, &t5);
  ASSERT_EQ(Kinds(t5), std::vector<EventKind>{EventKind::kContactBegin});
  EXPECT_EQ(t5.contacts[0].peak_normal_impulse, 0.5);
}

// A pair of resting bodies (neither moved) is not seen touching, yet neither ends nor
// persists; seen again, it persists. A pair with one body resting and the other gone from
// it ends, as does an overlap of a moving body.
TEST(EventTrackerTest, RestingBodiesKeepTheirPairsQuietly) {
  EventTracker tracker;
  TickEvents t1, t2, t3, t4;
  tracker.Update({MakeTouch(1, 2, "a", "b", 1.0)}, {MakeOverlap(7, 0, 2, "zone", "b")}, true, {},
                 &t1);
  tracker.Update({}, {}, true, Among({1, 2, 7}), &t2);
  EXPECT_TRUE(t2.contacts.empty());
  EXPECT_TRUE(t2.triggers.empty());
  EXPECT_EQ(tracker.live_contacts(), 1u);
  EXPECT_EQ(tracker.live_overlaps(), 1u);
  tracker.Update({MakeTouch(1, 2, "a", "b", 2.0)}, {}, true, Among({2, 7}), &t3);
  EXPECT_EQ(Kinds(t3), std::vector<EventKind>{EventKind::kContactPersist});
  EXPECT_TRUE(t3.triggers.empty());
  tracker.Update({}, {}, true, Among({2}), &t4);
  EXPECT_EQ(Kinds(t4), std::vector<EventKind>{EventKind::kContactEnd});
  ASSERT_EQ(t4.triggers.size(), 1u);
  EXPECT_EQ(t4.triggers[0].kind, EventKind::kTriggerExit);
}

TEST(EventTrackerTest, PersistEventsOnlyWhenAskedButPairsStayKnown) {
  EventTracker tracker;
  TickEvents t1, t2, t3;
  tracker.Update({MakeTouch(1, 2, "a", "b", 1.0)}, {}, false, {}, &t1);
  tracker.Update({MakeTouch(1, 2, "a", "b", 1.0)}, {}, false, {}, &t2);
  tracker.Update({}, {}, false, {}, &t3);
  EXPECT_EQ(Kinds(t1), std::vector<EventKind>{EventKind::kContactBegin});
  EXPECT_TRUE(t2.contacts.empty());
  EXPECT_EQ(Kinds(t3), std::vector<EventKind>{EventKind::kContactEnd});
}

TEST(EventTrackerTest, EndsAreSortedByIdsAndBeginsKeepTheWorldsOrder) {
  EventTracker tracker;
  TickEvents t1, t2;
  std::vector<EventTracker::Touch> touches;
  for (int i = 0; i < 20; ++i) {
    touches.push_back(MakeTouch(100 - i, 1000, "b" + std::to_string(100 - i), "ground", 1.0));
  }
  tracker.Update(touches, {}, false, {}, &t1);
  ASSERT_EQ(t1.contacts.size(), 20u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(t1.contacts[i].body_a, touches[i].event.body_a);
  tracker.Update({}, {}, false, {}, &t2);
  ASSERT_EQ(t2.contacts.size(), 20u);
  for (int i = 1; i < 20; ++i) EXPECT_LT(t2.contacts[i - 1].body_a, t2.contacts[i].body_a);
}

TEST(EventTrackerTest, OverlapsEnterOnceAndExitPerSensorShape) {
  EventTracker tracker;
  TickEvents t1, t2, t3;
  // The body meets two shapes of one sensor body; the same shape listed twice counts once.
  tracker.Update({},
                 {MakeOverlap(7, 0, 9, "zone", "ball"), MakeOverlap(7, 1, 9, "zone", "ball"),
                  MakeOverlap(7, 1, 9, "zone", "ball")},
                 false, {}, &t1);
  ASSERT_EQ(t1.triggers.size(), 2u);
  EXPECT_EQ(t1.triggers[0].kind, EventKind::kTriggerEnter);
  EXPECT_EQ(t1.triggers[1].sensor_shape, 1);
  tracker.Update({}, {MakeOverlap(7, 1, 9, "zone", "ball")}, false, {}, &t2);
  ASSERT_EQ(t2.triggers.size(), 1u);
  EXPECT_EQ(t2.triggers[0].kind, EventKind::kTriggerExit);
  EXPECT_EQ(t2.triggers[0].sensor_shape, 0);
  tracker.Update({}, {}, false, {}, &t3);
  ASSERT_EQ(t3.triggers.size(), 1u);
  EXPECT_EQ(t3.triggers[0].kind, EventKind::kTriggerExit);
  EXPECT_EQ(t3.triggers[0].sensor_shape, 1);
  EXPECT_EQ(tracker.live_overlaps(), 0u);
}

TEST(EventTrackerTest, ClearForgetsPairsSoTheyBeginAgain) {
  EventTracker tracker;
  TickEvents t1, t2;
  tracker.Update({MakeTouch(1, 2, "a", "b", 1.0)}, {MakeOverlap(3, 0, 1, "s", "a")}, false, {},
                 &t1);
  tracker.Clear();
  tracker.Update({MakeTouch(1, 2, "a", "b", 1.0)}, {MakeOverlap(3, 0, 1, "s", "a")}, false, {},
                 &t2);
  EXPECT_EQ(Kinds(t2), std::vector<EventKind>{EventKind::kContactBegin});
  ASSERT_EQ(t2.triggers.size(), 1u);
  EXPECT_EQ(t2.triggers[0].kind, EventKind::kTriggerEnter);
}

}  // namespace
}  // namespace ligature
