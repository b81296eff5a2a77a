#pragma once
// Building blocks of the metric families a collector returns at each scrape.

#include <string>
#include <utility>
#include <vector>

#include "prometheus/metric_family.h"
#include "prometheus/metric_type.h"
#include "server/rpc/session_counters.h"

namespace ligature {

prometheus::MetricFamily Family(std::string name, std::string help, prometheus::MetricType type);

// One sample, with a label unless `label` is empty, of a gauge or a counter.
void AddSample(prometheus::MetricFamily* family, const std::string& label, const std::string& value,
               double sample);

// The frame streams' families (open streams, frames sent, conflated and encoded), one
// sample per kind of stream (label "kind").
void AddStreamFamilies(const std::vector<std::pair<const char*, const StreamCounters*>>& kinds,
                       std::vector<prometheus::MetricFamily>* out);

}  // namespace ligature
