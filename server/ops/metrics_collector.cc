#include "server/ops/metrics_collector.h"

#include <algorithm>
#include <limits>
#include <string>
#include <utility>

#include "prometheus/client_metric.h"
#include "prometheus/metric_type.h"
#include "server/ops/metric_families.h"

namespace ligature {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

// The step-time histogram of a world, in seconds, with cumulative buckets.
ClientMetric TickHistogram(const std::string& world, const StepCounters& counters) {
  ClientMetric metric;
  metric.label.push_back({"world", world});
  metric.histogram.sample_count = counters.steps;
  metric.histogram.sample_sum = counters.step_ms_sum / 1000.0;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < StepCounters::kBucketBoundsMs.size(); ++i) {
    cumulative += counters.bucket_steps[i];
    metric.histogram.bucket.push_back({cumulative, StepCounters::kBucketBoundsMs[i] / 1000.0});
  }
  metric.histogram.bucket.push_back(
      {counters.steps, std::numeric_limits<double>::infinity()});
  return metric;
}

// A haptic timing histogram of one session kind, in seconds, with cumulative buckets.
ClientMetric LatencyMetric(const std::string& kind, const haptics::LatencyHistogram& h) {
  ClientMetric metric;
  metric.label.push_back({"kind", kind});
  // Read the buckets first: a sample recorded meanwhile then shows in the count only, so
  // the cumulative buckets never exceed it.
  uint64_t cumulative = 0;
  for (size_t i = 0; i < haptics::LatencyHistogram::kBoundsUs.size(); ++i) {
    cumulative += h.bucket(i);
    metric.histogram.bucket.push_back({cumulative, haptics::LatencyHistogram::kBoundsUs[i] / 1e6});
  }
  metric.histogram.sample_count = std::max(h.count(), cumulative);
  metric.histogram.sample_sum = h.sum_seconds();
  metric.histogram.bucket.push_back(
      {metric.histogram.sample_count, std::numeric_limits<double>::infinity()});
  return metric;
}

}  // namespace

std::vector<MetricFamily> MetricsCollector::Collect() const {
  std::vector<MetricFamily> out;
  CollectWorlds(&out);
  CollectSessions(&out);
  if (haptics_ != nullptr) CollectHaptics(&out);
  return out;
}

// Per-world gauges, counters and the tick-time histogram, from one pass over the worlds.
void MetricsCollector::CollectWorlds(std::vector<MetricFamily>* out) const {
  MetricFamily worlds = Family("ligature_worlds", "Worlds hosted.", MetricType::Gauge);
  MetricFamily bodies =
      Family("ligature_world_bodies", "Bodies in the world (rigid, rod, soft).",
             MetricType::Gauge);
  MetricFamily constraints = Family("ligature_world_constraints",
                                    "User constraints in the world.", MetricType::Gauge);
  MetricFamily paused =
      Family("ligature_world_paused", "1 when the world is paused.", MetricType::Gauge);
  MetricFamily rate =
      Family("ligature_world_rate_hz", "Ticks per second the world runs at.", MetricType::Gauge);
  MetricFamily ticks = Family("ligature_world_ticks_total",
                              "Physics steps taken (scheduled ticks and StepWorld).",
                              MetricType::Counter);
  MetricFamily durations =
      Family("ligature_world_tick_duration_seconds", "Wall time of each physics step.",
             MetricType::Histogram);
  MetricFamily overruns = Family("ligature_world_tick_overruns_total",
                                 "Scheduled ticks whose step took longer than the period.",
                                 MetricType::Counter);
  MetricFamily missed = Family("ligature_world_missed_ticks_total",
                               "Ticks skipped because the world fell behind wall time.",
                               MetricType::Counter);
  MetricFamily recovered = Family(
      "ligature_world_recovered_bodies_total",
      "Bodies held in place after a step gave them a non-finite state (summed over steps).",
      MetricType::Counter);
  MetricFamily budget = Family("ligature_world_budget_exhausted_ticks_total",
                               "Steps whose solver stopped on the time budget.",
                               MetricType::Counter);

  MetricFamily divergences = Family(
      "ligature_world_divergences_total",
      "Steps that turned the state non-finite or absurd and were rolled back.",
      MetricType::Counter);
  MetricFamily withheld = Family("ligature_world_withheld_frames_total",
                                 "Frames not published because they held a non-finite number.",
                                 MetricType::Counter);
  int count = 0;
  std::string token;
  do {
    const WorldPage page = worlds_->List(1000, token);
    for (const WorldInfo& info : page.worlds) {
      ++count;
      const std::string id = WorldIdFromName(info.name);
      AddSample(&bodies, "world", id, info.body_count);
      AddSample(&constraints, "world", id, info.constraint_count);
      AddSample(&paused, "world", id, info.settings.paused ? 1.0 : 0.0);
      AddSample(&rate, "world", id, info.settings.rate_hz);
      AddSample(&ticks, "world", id, static_cast<double>(info.counters.steps));
      durations.metric.push_back(TickHistogram(id, info.counters));
      AddSample(&overruns, "world", id, static_cast<double>(info.overruns));
      AddSample(&missed, "world", id, static_cast<double>(info.missed_ticks));
      AddSample(&recovered, "world", id, static_cast<double>(info.counters.recovered_bodies));
      AddSample(&budget, "world", id,
                static_cast<double>(info.counters.budget_exhausted_steps));
      AddSample(&divergences, "world", id, static_cast<double>(info.counters.divergences));
      AddSample(&withheld, "world", id, static_cast<double>(info.counters.withheld_frames));
    }
    token = page.next_page_token;
  } while (!token.empty());
  AddSample(&worlds, "", "", count);

  for (MetricFamily* f : {&worlds, &bodies, &constraints, &paused, &rate, &ticks, &durations,
                          &overruns, &missed, &recovered, &budget, &divergences, &withheld}) {
    out->push_back(std::move(*f));
  }
}

// Open streams and their frames, by kind (watch, interact).
void MetricsCollector::CollectSessions(std::vector<MetricFamily>* out) const {
  AddStreamFamilies({{"watch", &sessions_->watch}, {"interact", &sessions_->interact}}, out);
  MetricFamily poses = Family("ligature_device_poses_total",
                              "Device poses received on Interact streams.",
                              MetricType::Counter);
  AddSample(&poses, "", "", static_cast<double>(sessions_->device_poses.load()));
  MetricFamily event_streams = Family("ligature_event_streams",
                                      "Open event streams (WatchEvents).", MetricType::Gauge);
  AddSample(&event_streams, "", "", static_cast<double>(sessions_->events.open.load()));
  MetricFamily events_sent = Family("ligature_events_sent_total",
                                    "Contact and trigger events sent on event streams.",
                                    MetricType::Counter);
  AddSample(&events_sent, "", "", static_cast<double>(sessions_->events.events_sent.load()));
  MetricFamily events_dropped = Family(
      "ligature_events_dropped_total",
      "Events an event stream lost because it fell too far behind its world.",
      MetricType::Counter);
  AddSample(&events_dropped, "", "",
            static_cast<double>(sessions_->events.events_dropped.load()));
  const PublishCounters& publish = sessions_->publish;
  MetricFamily connected =
      Family("ligature_nats_connected",
             "1 while connected to the NATS server frames are published to.", MetricType::Gauge);
  AddSample(&connected, "", "", static_cast<double>(publish.connected.load()));
  MetricFamily published =
      Family("ligature_frames_published_total", "Frames published to NATS for viewer gateways.",
             MetricType::Counter);
  AddSample(&published, "", "", static_cast<double>(publish.frames_published.load()));
  MetricFamily publish_failures =
      Family("ligature_frame_publish_failures_total",
             "Frames not published: the broker was away, or the client could not take them.",
             MetricType::Counter);
  AddSample(&publish_failures, "", "", static_cast<double>(publish.publish_failures.load()));
  for (MetricFamily* f : {&poses, &event_streams, &events_sent, &events_dropped, &connected,
                          &published, &publish_failures}) {
    out->push_back(std::move(*f));
  }
}

// Haptic streams: open sessions and pose counts, and per session kind (server, remote)
// the round trip from a pose's arrival to its reply's send and the poses' jitter.
void MetricsCollector::CollectHaptics(std::vector<MetricFamily>* out) const {
  MetricFamily open =
      Family("ligature_haptic_sessions", "Open haptic streams.", MetricType::Gauge);
  AddSample(&open, "", "", static_cast<double>(haptics_->open.load()));
  MetricFamily poses = Family("ligature_haptic_poses_total",
                              "Device poses received on haptic streams.", MetricType::Counter);
  AddSample(&poses, "", "", static_cast<double>(haptics_->poses.load()));
  MetricFamily rejected = Family("ligature_haptic_rejected_poses_total",
                                 "Poses refused (non-finite, out of range, out of order).",
                                 MetricType::Counter);
  AddSample(&rejected, "", "", static_cast<double>(haptics_->rejected.load()));
  MetricFamily trips = Family("ligature_haptic_watchdog_trips_total",
                              "Times a stream's poses stopped for the watchdog timeout.",
                              MetricType::Counter);
  AddSample(&trips, "", "", static_cast<double>(haptics_->watchdog_trips.load()));
  MetricFamily round_trip = Family(
      "ligature_haptic_round_trip_seconds",
      "Server time from a pose's arrival to the send of its force reply.", MetricType::Histogram);
  MetricFamily jitter = Family(
      "ligature_haptic_jitter_seconds",
      "Inter-arrival jitter of poses: change of the gap between successive poses.",
      MetricType::Histogram);
  for (const auto& [kind, timing] :
       {std::pair<const char*, const HapticTiming*>{"server", &haptics_->server_mode},
        std::pair<const char*, const HapticTiming*>{"remote", &haptics_->remote_mode}}) {
    round_trip.metric.push_back(LatencyMetric(kind, timing->round_trip));
    jitter.metric.push_back(LatencyMetric(kind, timing->jitter));
  }
  // The datagram channel: poses that came that way, datagrams by what became of them.
  MetricFamily datagram_poses =
      Family("ligature_haptic_datagram_poses_total",
             "Of the haptic poses, those that came by datagram.", MetricType::Counter);
  AddSample(&datagram_poses, "", "", static_cast<double>(haptics_->datagram_poses.load()));
  MetricFamily datagrams =
      Family("ligature_haptic_datagrams_total",
             "Datagrams received on the haptic datagram port: taken, or dropped and why.",
             MetricType::Counter);
  const DatagramCounters& d = haptics_->datagrams;
  for (const auto& [result, count] :
       {std::pair<const char*, const std::atomic<uint64_t>*>{"taken", &d.taken},
        {"malformed", &d.malformed},
        {"unknown_session", &d.unknown_session},
        {"forged", &d.forged},
        {"replayed", &d.replayed},
        {"stale", &d.stale},
        {"bad_payload", &d.bad_payload}}) {
    AddSample(&datagrams, "result", result, static_cast<double>(count->load()));
  }
  MetricFamily send_failures =
      Family("ligature_haptic_datagram_send_failures_total",
             "Haptic datagrams the server's socket refused to send.", MetricType::Counter);
  AddSample(&send_failures, "", "", static_cast<double>(d.send_failures.load()));
  for (MetricFamily* f : {&open, &poses, &rejected, &trips, &round_trip, &jitter, &datagram_poses,
                          &datagrams, &send_failures}) {
    out->push_back(std::move(*f));
  }
}

}  // namespace ligature
