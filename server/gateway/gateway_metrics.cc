#include "server/gateway/gateway_metrics.h"

#include <utility>

#include "server/ops/metric_families.h"

namespace ligature {

std::vector<prometheus::MetricFamily> GatewayMetrics::Collect() const {
  using prometheus::MetricFamily;
  using prometheus::MetricType;
  std::vector<MetricFamily> out;
  AddStreamFamilies({{"watch", &gateway_->watch()}}, &out);
  const SubscriberCounters& counters = gateway_->subscriber();
  const FrameSubscriber::Worlds worlds = gateway_->worlds();
  MetricFamily connected =
      Family("ligature_nats_connected", "1 while connected to the NATS server frames come from.",
             MetricType::Gauge);
  AddSample(&connected, "", "", gateway_->broker_connected() ? 1.0 : 0.0);
  MetricFamily known = Family("ligature_gateway_worlds", "Worlds whose frames reach this gateway.",
                              MetricType::Gauge);
  AddSample(&known, "", "", static_cast<double>(worlds.count));
  MetricFamily received = Family("ligature_gateway_frames_received_total",
                                 "Frame messages taken from the broker.", MetricType::Counter);
  AddSample(&received, "", "", static_cast<double>(counters.frames_received.load()));
  MetricFamily malformed =
      Family("ligature_gateway_frames_malformed_total",
             "Frame messages of a world that did not decode as its frame (worlds known now).",
             MetricType::Counter);
  AddSample(&malformed, "", "", static_cast<double>(worlds.malformed));
  MetricFamily dropped = Family(
      "ligature_gateway_messages_dropped_total",
      "Broker messages that were not a world's frame (bad subject or header, too many worlds).",
      MetricType::Counter);
  AddSample(&dropped, "", "", static_cast<double>(counters.messages_dropped.load()));
  MetricFamily ended = Family("ligature_gateway_worlds_ended_total",
                              "Worlds whose server said they were deleted.", MetricType::Counter);
  AddSample(&ended, "", "", static_cast<double>(counters.worlds_ended.load()));
  for (MetricFamily* f : {&connected, &known, &received, &malformed, &dropped, &ended}) {
    out.push_back(std::move(*f));
  }
  return out;
}

}  // namespace ligature
