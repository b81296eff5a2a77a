#pragma once
// Serves the server's metrics over HTTP for Prometheus (GET /metrics), on its own port and
// threads, apart from gRPC.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "prometheus/exposer.h"
#include "server/ops/metrics_collector.h"

namespace ligature {

class MetricsExporter {
 public:
  // Listens on `address` (host:port; port 0 picks a free one). The counters must outlive
  // the exporter. UNAVAILABLE when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<MetricsExporter>> Start(
      const std::string& address, const WorldManager* worlds, const SessionCounters* sessions,
      const HapticCounters* haptics = nullptr);
  // The same with any collectable (a viewer gateway's, for one).
  static absl::StatusOr<std::unique_ptr<MetricsExporter>> Start(
      const std::string& address, std::shared_ptr<prometheus::Collectable> collector);

  // The bound port.
  int port() const { return port_; }

 private:
  MetricsExporter() = default;

  std::shared_ptr<prometheus::Collectable> collector_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int port_ = 0;
};

}  // namespace ligature
