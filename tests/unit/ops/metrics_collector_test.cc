#include "server/ops/metrics_collector.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace ligature {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

std::map<std::string, MetricFamily> ByName(const std::vector<MetricFamily>& families) {
  std::map<std::string, MetricFamily> out;
  for (const MetricFamily& f : families) out[f.name] = f;
  return out;
}

// The sample of `family` whose label `name` is `value`; fails the test when absent.
const ClientMetric* Sample(const MetricFamily& family, const std::string& name,
                           const std::string& value) {
  for (const ClientMetric& m : family.metric) {
    for (const auto& l : m.label) {
      if (l.name == name && l.value == value) return &m;
    }
  }
  ADD_FAILURE() << family.name << " has no sample with " << name << "=" << value;
  return nullptr;
}

SceneDesc PausedScene(int balls) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.settings.paused = true;
  for (int i = 0; i < balls; ++i) {
    BodyDesc b;
    b.id = "ball" + std::to_string(i);
    b.rigid()->shape = Shape::Sphere(0.1);
    b.rigid()->pose.position = Vec3(i, 5, 0);
    scene.bodies.push_back(b);
  }
  return scene;
}

// Steps `world` `ticks` times on its own thread, as StepWorld does.
// The call returns once the steps ran; their publication (what Info() reports) follows
// on the world's thread, so wait for it too.
void StepOnHost(WorldHost& host, int ticks) {
  const uint64_t target = host.Info().tick + ticks;
  auto done = host.Call<int>(
      [ticks](World& w) -> absl::StatusOr<int> {
        for (int i = 0; i < ticks; ++i) w.Step();
        return ticks;
      },
      absl::Seconds(10));
  ASSERT_TRUE(done.ok()) << done.status();
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (host.Info().tick < target && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(1));
}

TEST(MetricsCollectorTest, ReportsWorldsStepsAndHistograms) {
  WorldManagerOptions options;
  options.worker_threads = 1;
  WorldManager manager(options);
  SessionCounters sessions;
  auto a = manager.Create("a", PausedScene(3));
  auto b = manager.Create("b", PausedScene(1));
  ASSERT_TRUE(a.ok() && b.ok());
  StepOnHost(**a, 12);
  StepOnHost(**a, 3);
  // A call returns before its tick's publication: wait for the totals to be published.
  for (int i = 0; i < 500 && (*a)->Info().counters.steps < 15; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }

  MetricsCollector collector(&manager, &sessions);
  auto families = ByName(collector.Collect());
  EXPECT_EQ(families["ligature_worlds"].metric.at(0).gauge.value, 2.0);
  EXPECT_EQ(Sample(families["ligature_world_bodies"], "world", "a")->gauge.value, 3.0);
  EXPECT_EQ(Sample(families["ligature_world_bodies"], "world", "b")->gauge.value, 1.0);
  EXPECT_EQ(Sample(families["ligature_world_paused"], "world", "a")->gauge.value, 1.0);
  EXPECT_EQ(Sample(families["ligature_world_ticks_total"], "world", "a")->counter.value, 15.0);
  EXPECT_EQ(Sample(families["ligature_world_ticks_total"], "world", "b")->counter.value, 0.0);
  EXPECT_EQ(families["ligature_world_ticks_total"].type, MetricType::Counter);

  // The histogram: 15 steps, cumulative buckets ending at +Inf with every step.
  const MetricFamily& hist = families["ligature_world_tick_duration_seconds"];
  EXPECT_EQ(hist.type, MetricType::Histogram);
  const ClientMetric* h = Sample(hist, "world", "a");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->histogram.sample_count, 15u);
  EXPECT_GT(h->histogram.sample_sum, 0.0);
  ASSERT_EQ(h->histogram.bucket.size(), StepCounters::kBucketBoundsMs.size() + 1);
  for (size_t i = 1; i < h->histogram.bucket.size(); ++i) {
    EXPECT_GE(h->histogram.bucket[i].cumulative_count, h->histogram.bucket[i - 1].cumulative_count);
    EXPECT_GT(h->histogram.bucket[i].upper_bound, h->histogram.bucket[i - 1].upper_bound);
  }
  EXPECT_DOUBLE_EQ(h->histogram.bucket[0].upper_bound, 1e-5);  // seconds
  EXPECT_TRUE(std::isinf(h->histogram.bucket.back().upper_bound));
  EXPECT_EQ(h->histogram.bucket.back().cumulative_count, 15u);

  // A deleted world disappears from the next scrape.
  ASSERT_TRUE(manager.Delete("b").ok());
  families = ByName(collector.Collect());
  EXPECT_EQ(families["ligature_worlds"].metric.at(0).gauge.value, 1.0);
  EXPECT_EQ(families["ligature_world_bodies"].metric.size(), 1u);
  manager.Shutdown();
}

TEST(MetricsCollectorTest, ReportsStreamCountersByKind) {
  WorldManager manager(WorldManagerOptions{});
  SessionCounters sessions;
  sessions.watch.open = 2;
  sessions.watch.frames_sent = 40;
  sessions.watch.frames_conflated = 7;
  sessions.interact.open = 1;
  sessions.device_poses = 9;
  MetricsCollector collector(&manager, &sessions);
  auto families = ByName(collector.Collect());
  EXPECT_EQ(Sample(families["ligature_sessions"], "kind", "watch")->gauge.value, 2.0);
  EXPECT_EQ(Sample(families["ligature_sessions"], "kind", "interact")->gauge.value, 1.0);
  EXPECT_EQ(Sample(families["ligature_frames_sent_total"], "kind", "watch")->counter.value,
            40.0);
  EXPECT_EQ(
      Sample(families["ligature_frames_conflated_total"], "kind", "watch")->counter.value, 7.0);
  EXPECT_EQ(families["ligature_device_poses_total"].metric.at(0).counter.value, 9.0);
  EXPECT_EQ(families["ligature_worlds"].metric.at(0).gauge.value, 0.0);
  manager.Shutdown();
}

// Haptic timing is reported per session kind as histograms in seconds, with cumulative
// buckets that end in the total count.
TEST(MetricsCollectorTest, ReportsHapticRoundTripAndJitterByKind) {
  WorldManager manager(WorldManagerOptions{});
  SessionCounters sessions;
  HapticCounters haptics;
  haptics.open = 1;
  haptics.poses = 5;
  haptics.server_mode.round_trip.Record(40'000);    // 40 us: the 50 us bucket
  haptics.server_mode.round_trip.Record(300'000);   // 300 us: the 500 us bucket
  haptics.server_mode.round_trip.Record(2'000'000'000);  // beyond the last bound
  haptics.remote_mode.jitter.Record(8'000);         // 8 us: the first bucket
  MetricsCollector collector(&manager, &sessions, &haptics);
  auto families = ByName(collector.Collect());

  const MetricFamily& rtt = families["ligature_haptic_round_trip_seconds"];
  EXPECT_EQ(rtt.type, MetricType::Histogram);
  const ClientMetric* server = Sample(rtt, "kind", "server");
  ASSERT_NE(server, nullptr);
  EXPECT_EQ(server->histogram.sample_count, 3u);
  EXPECT_NEAR(server->histogram.sample_sum, 40e-6 + 300e-6 + 2.0, 1e-12);
  std::map<double, uint64_t> cumulative;
  for (const auto& b : server->histogram.bucket) cumulative[b.upper_bound] = b.cumulative_count;
  EXPECT_EQ(cumulative.at(25e-6), 0u);
  EXPECT_EQ(cumulative.at(50e-6), 1u);
  EXPECT_EQ(cumulative.at(250e-6), 1u);
  EXPECT_EQ(cumulative.at(500e-6), 2u);
  EXPECT_EQ(cumulative.at(0.25), 2u);
  EXPECT_EQ(cumulative.at(std::numeric_limits<double>::infinity()), 3u);
  EXPECT_EQ(Sample(rtt, "kind", "remote")->histogram.sample_count, 0u);

  const MetricFamily& jitter = families["ligature_haptic_jitter_seconds"];
  EXPECT_EQ(Sample(jitter, "kind", "server")->histogram.sample_count, 0u);
  const ClientMetric* remote = Sample(jitter, "kind", "remote");
  ASSERT_NE(remote, nullptr);
  EXPECT_EQ(remote->histogram.sample_count, 1u);
  EXPECT_EQ(remote->histogram.bucket.front().cumulative_count, 1u);
  EXPECT_EQ(families["ligature_haptic_sessions"].metric.at(0).gauge.value, 1.0);
  EXPECT_EQ(families["ligature_haptic_poses_total"].metric.at(0).counter.value, 5.0);
  manager.Shutdown();
}

// The datagram port's counts: one sample per result, each its own counter.
TEST(MetricsCollectorTest, ReportsHapticDatagramsByResult) {
  WorldManager manager(WorldManagerOptions{});
  SessionCounters sessions;
  HapticCounters haptics;
  haptics.datagram_poses = 7;
  haptics.datagrams.taken = 9;
  haptics.datagrams.forged = 2;
  haptics.datagrams.stale = 1;
  haptics.datagrams.send_failures = 3;
  MetricsCollector collector(&manager, &sessions, &haptics);
  auto families = ByName(collector.Collect());
  const MetricFamily& datagrams = families["ligature_haptic_datagrams_total"];
  EXPECT_EQ(datagrams.type, MetricType::Counter);
  EXPECT_EQ(datagrams.metric.size(), 7u);
  EXPECT_EQ(Sample(datagrams, "result", "taken")->counter.value, 9.0);
  EXPECT_EQ(Sample(datagrams, "result", "forged")->counter.value, 2.0);
  EXPECT_EQ(Sample(datagrams, "result", "stale")->counter.value, 1.0);
  EXPECT_EQ(Sample(datagrams, "result", "replayed")->counter.value, 0.0);
  EXPECT_EQ(families["ligature_haptic_datagram_poses_total"].metric.at(0).counter.value, 7.0);
  EXPECT_EQ(families["ligature_haptic_datagram_send_failures_total"].metric.at(0).counter.value,
            3.0);
  manager.Shutdown();
}

// Without haptic counters the collector reports no haptic families.
TEST(MetricsCollectorTest, OmitsHapticFamiliesWithoutCounters) {
  WorldManager manager(WorldManagerOptions{});
  SessionCounters sessions;
  MetricsCollector collector(&manager, &sessions);
  auto families = ByName(collector.Collect());
  EXPECT_EQ(families.count("ligature_haptic_round_trip_seconds"), 0u);
  manager.Shutdown();
}

}  // namespace
}  // namespace ligature

namespace ligature {
namespace {

// A world whose step diverges (free fall past a 0.5 m/s bound) is rolled back, and the
// rollbacks are exported per world.
TEST(MetricsCollectorTest, ReportsDivergences) {
  WorldManagerOptions options;
  options.worker_threads = 1;
  options.guard.bounds.max_speed = 0.5;  // m/s, passed between ticks 5 and 6 of free fall
  WorldManager manager(options);
  SessionCounters sessions;
  auto a = manager.Create("a", PausedScene(1));
  ASSERT_TRUE(a.ok());
  WorldHost* host = a->get();
  auto stepped = (*a)->Call<int>(
      [host](World& w) -> absl::StatusOr<int> {
        int divergences = 0;
        for (int i = 0; i < 7; ++i) divergences += host->GuardedStep(w).has_value() ? 1 : 0;
        return divergences;
      },
      absl::Seconds(10));
  ASSERT_TRUE(stepped.ok()) << stepped.status();
  EXPECT_EQ(*stepped, 2);  // steps 6 and 7 both diverged from tick 5
  for (int i = 0; i < 500 && (*a)->Info().counters.divergences < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  MetricsCollector collector(&manager, &sessions);
  auto families = ByName(collector.Collect());
  const ClientMetric* d = Sample(families["ligature_world_divergences_total"], "world", "a");
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->counter.value, 2.0);
  EXPECT_EQ(families["ligature_world_divergences_total"].type, MetricType::Counter);
}

}  // namespace
}  // namespace ligature
