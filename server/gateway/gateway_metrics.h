#pragma once
// Prometheus view of a running gateway, read from its counters at each scrape: its Watch
// streams (the server's own stream families, kind "watch"), the broker's connection, and the
// frames and worlds the broker brought.

#include <vector>

#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"
#include "server/gateway/gateway.h"

namespace ligature {

class GatewayMetrics : public prometheus::Collectable {
 public:
  // `gateway` must outlive the collector.
  explicit GatewayMetrics(const Gateway* gateway) : gateway_(gateway) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const Gateway* gateway_;
};

}  // namespace ligature
