#pragma once
// Prometheus view of a running server: reads the worlds' summaries (WorldInfo, with their
// StepCounters) and the stream counters at each scrape and turns them into metric
// families. Nothing is copied ahead of time, so a deleted world simply disappears from the
// next scrape.

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "server/rpc/session_counters.h"
#include "server/host/world_manager.h"

namespace ligature {

class MetricsCollector : public prometheus::Collectable {
 public:
  // All must outlive the collector. Without `haptics` no haptic families are reported.
  MetricsCollector(const WorldManager* worlds, const SessionCounters* sessions,
                   const HapticCounters* haptics = nullptr)
      : worlds_(worlds), sessions_(sessions), haptics_(haptics) {}

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  void CollectWorlds(std::vector<prometheus::MetricFamily>* out) const;
  void CollectSessions(std::vector<prometheus::MetricFamily>* out) const;
  void CollectHaptics(std::vector<prometheus::MetricFamily>* out) const;

  const WorldManager* worlds_;
  const SessionCounters* sessions_;
  const HapticCounters* haptics_;
};

}  // namespace ligature
