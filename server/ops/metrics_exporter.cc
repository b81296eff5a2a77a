#include "server/ops/metrics_exporter.h"

#include <exception>

#include "absl/strings/str_cat.h"

namespace ligature {

absl::StatusOr<std::unique_ptr<MetricsExporter>> MetricsExporter::Start(
    const std::string& address, const WorldManager* worlds, const SessionCounters* sessions,
    const HapticCounters* haptics) {
  return Start(address, std::make_shared<MetricsCollector>(worlds, sessions, haptics));
}

absl::StatusOr<std::unique_ptr<MetricsExporter>> MetricsExporter::Start(
    const std::string& address, std::shared_ptr<prometheus::Collectable> collector) {
  std::unique_ptr<MetricsExporter> exporter(new MetricsExporter());
  exporter->collector_ = std::move(collector);
  // The HTTP server reports a bind failure by throwing; keep exceptions inside.
  try {
    exporter->exposer_ = std::make_unique<prometheus::Exposer>(address, /*num_threads=*/1);
  } catch (const std::exception& e) {
    return absl::UnavailableError(
        absl::StrCat("metrics: cannot listen on ", address, ": ", e.what()));
  }
  exporter->exposer_->RegisterCollectable(exporter->collector_);
  const std::vector<int> ports = exporter->exposer_->GetListeningPorts();
  if (ports.empty()) {
    return absl::UnavailableError(absl::StrCat("metrics: cannot listen on ", address));
  }
  exporter->port_ = ports.front();
  return exporter;
}

}  // namespace ligature
