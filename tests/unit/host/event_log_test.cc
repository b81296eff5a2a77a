#include "server/host/event_log.h"

#include <gtest/gtest.h>

#include <thread>

namespace ligature {
namespace {

// A tick with `contacts` begin events between body "b<i>" and "ground", and one trigger.
TickEvents Events(uint64_t tick, int contacts) {
  TickEvents events;
  TickEvents* e = &events;
  e->tick = tick;
  for (int i = 0; i < contacts; ++i) {
    ContactEvent& c = e->contacts.emplace_back();
    c.body_a = "b" + std::to_string(i);
    c.body_b = "ground";
    c.normal_impulse = 1.0;
  }
  TriggerEvent& t = e->triggers.emplace_back();
  t.sensor = "zone";
  t.body = "b0";
  return events;
}

// The world's step: its tick and its events.
void Step(EventLog& log, uint64_t tick, int contacts) { log.Append(tick, Events(tick, contacts)); }

TEST(EventFilterTest, KindsBodiesLayersAndImpulse) {
  ContactEvent c;
  c.body_a = "ball";
  c.body_b = "ground";
  c.normal_impulse = 2.0;
  c.layers_a = 1u << 3;
  c.layers_b = 1u << 0;
  EventFilter f;
  EXPECT_TRUE(f.Passes(c));
  c.kind = EventKind::kContactPersist;
  EXPECT_FALSE(f.Passes(c));  // persist only when asked for
  f.kinds |= 1u << static_cast<int>(EventKind::kContactPersist);
  EXPECT_TRUE(f.Passes(c));
  f.min_impulse = 2.5;
  EXPECT_FALSE(f.Passes(c));
  c.kind = EventKind::kContactEnd;
  c.normal_impulse = 0.0;
  c.peak_normal_impulse = 3.0;
  EXPECT_TRUE(f.Passes(c));  // an end is held to its contact's peak
  f.layer_mask = 1u << 5;
  EXPECT_FALSE(f.Passes(c));
  f.layer_mask = 1u << 3;
  EXPECT_TRUE(f.Passes(c));
  f.bodies = {"box"};
  EXPECT_FALSE(f.Passes(c));
  f.bodies = {"ground"};
  EXPECT_TRUE(f.Passes(c));
}

TEST(EventLogTest, ReadersSeeOnlyWhatCameAfterThemInOrder) {
  EventLog log;
  Step(log, 1, 2);  // no reader yet: not kept
  uint64_t after = 0;
  const uint64_t r = log.Subscribe({}, &after);
  EXPECT_EQ(after, 1u);
  EXPECT_TRUE(log.Reporting().enabled);
  EXPECT_FALSE(log.Reporting().persist);
  Step(log, 2, 1);
  log.Append(3, TickEvents{});  // a quiet tick is not kept
  Step(log, 4, 1);
  EventLog::Read read = log.Next(r, absl::ZeroDuration());
  ASSERT_EQ(read.ticks.size(), 2u);
  EXPECT_EQ(read.ticks[0]->tick, 2u);
  EXPECT_EQ(read.ticks[1]->tick, 4u);
  EXPECT_EQ(read.dropped, 0u);
  EXPECT_TRUE(log.Next(r, absl::ZeroDuration()).ticks.empty());
  log.Unsubscribe(r);
  EXPECT_FALSE(log.Reporting().enabled);
}

TEST(EventLogTest, ASlowReaderCountsExactlyTheEventsItLost) {
  EventLog log(EventLog::Limits{.max_ticks = 1000, .max_events = 10});
  EventFilter only_b1;
  only_b1.bodies = {"b1"};
  const uint64_t slow = log.Subscribe(only_b1);
  const uint64_t all = log.Subscribe({});
  // Ticks of 4 events (3 contacts, 1 trigger): the log keeps two of them (8 events).
  uint64_t all_received = 0, all_dropped = 0;
  for (uint64_t t = 1; t <= 6; ++t) {
    Step(log, t, 3);
    // The prompt reader keeps up.
    const EventLog::Read read = log.Next(all, absl::ZeroDuration());
    for (const auto& tick : read.ticks) all_received += tick->size();
    all_dropped += read.dropped;
  }
  EXPECT_EQ(all_received, 24u);
  EXPECT_EQ(all_dropped, 0u);
  // The slow one lost ticks 1-4, each with one contact of b1; it reads ticks 5 and 6.
  const EventLog::Read read = log.Next(slow, absl::ZeroDuration());
  EXPECT_EQ(read.dropped, 4u);
  ASSERT_EQ(read.ticks.size(), 2u);
  EXPECT_EQ(read.ticks[0]->tick, 5u);
  EXPECT_EQ(log.Next(slow, absl::ZeroDuration()).dropped, 0u);  // counted once
}

TEST(EventLogTest, TheNewestTickIsKeptWhateverItsSize) {
  EventLog log(EventLog::Limits{.max_ticks = 1000, .max_events = 10});
  const uint64_t r = log.Subscribe({});
  Step(log, 1, 50);
  const EventLog::Read read = log.Next(r, absl::ZeroDuration());
  ASSERT_EQ(read.ticks.size(), 1u);
  EXPECT_EQ(read.ticks[0]->contacts.size(), 50u);
}

TEST(EventLogTest, PersistIsReportedWhenAReaderWantsIt) {
  EventLog log;
  EventFilter f;
  f.kinds = 1u << static_cast<int>(EventKind::kContactPersist);
  const uint64_t r = log.Subscribe(f);
  EXPECT_TRUE(log.Reporting().persist);
  log.Unsubscribe(r);
  EXPECT_FALSE(log.Reporting().persist);
}

TEST(EventLogTest, AWaitingReaderWakesOnEventsAndOnClose) {
  EventLog log;
  const uint64_t r = log.Subscribe({});
  std::thread writer([&] { Step(log, 1, 1); });
  const EventLog::Read read = log.Next(r, absl::Seconds(30));
  writer.join();
  ASSERT_EQ(read.ticks.size(), 1u);
  EXPECT_TRUE(read.open);
  std::thread closer([&] { log.Close(); });
  EXPECT_FALSE(log.Next(r, absl::Seconds(30)).open);
  closer.join();
}

}  // namespace
}  // namespace ligature
