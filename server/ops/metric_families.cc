#include "server/ops/metric_families.h"

#include <utility>

#include "prometheus/client_metric.h"

namespace ligature {

prometheus::MetricFamily Family(std::string name, std::string help, prometheus::MetricType type) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  return family;
}

void AddSample(prometheus::MetricFamily* family, const std::string& label, const std::string& value,
               double sample) {
  prometheus::ClientMetric metric;
  if (!label.empty()) metric.label.push_back({label, value});
  if (family->type == prometheus::MetricType::Counter) {
    metric.counter.value = sample;
  } else {
    metric.gauge.value = sample;
  }
  family->metric.push_back(std::move(metric));
}

void AddStreamFamilies(const std::vector<std::pair<const char*, const StreamCounters*>>& kinds,
                       std::vector<prometheus::MetricFamily>* out) {
  using prometheus::MetricFamily;
  using prometheus::MetricType;
  MetricFamily open =
      Family("ligature_sessions", "Open frame streams: Watch (watchers) and Interact (devices).",
             MetricType::Gauge);
  MetricFamily sent =
      Family("ligature_frames_sent_total", "Frames sent on streams.", MetricType::Counter);
  MetricFamily conflated =
      Family("ligature_frames_conflated_total",
             "Frames a stream skipped because a newer one was out when it could send (slow client "
             "or rate limit).",
             MetricType::Counter);
  MetricFamily encoded = Family(
      "ligature_frames_encoded_total",
      "Frames serialized for streams: once per frame and view however many streams share it.",
      MetricType::Counter);
  for (const auto& [kind, counters] : kinds) {
    AddSample(&open, "kind", kind, static_cast<double>(counters->open.load()));
    AddSample(&sent, "kind", kind, static_cast<double>(counters->frames_sent.load()));
    AddSample(&conflated, "kind", kind, static_cast<double>(counters->frames_conflated.load()));
    AddSample(&encoded, "kind", kind, static_cast<double>(counters->frames_encoded.load()));
  }
  for (MetricFamily* f : {&open, &sent, &conflated, &encoded}) out->push_back(std::move(*f));
}

}  // namespace ligature
