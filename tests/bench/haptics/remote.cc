// haptics/remote: how far remote mode's forces stray from server mode's along the same
// device trajectory when the network delays each way by 20 or 50 ms (the scripted stroke
// of tests/support/haptic_remote_stroke.h, in simulated time: the quick run is the full
// run). One line per delay: median and p99 of |F_remote - F_server| (N), notes with RMS,
// max and the reference force's RMS.

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"
#include "tests/support/haptic_remote_stroke.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "haptics/remote";

RunResult Run(const RunOptions& options) {
  (void)options;
  RunResult result;
  const std::vector<Vec3> reference = testing::StrokeForces(0.0);
  const double ref_rms = testing::StrokeRms(reference);
  for (const double delay : {0.020, 0.050}) {
    const std::vector<Vec3> remote = testing::StrokeForces(delay);
    std::vector<double> err;
    double sq = 0.0, max = 0.0;
    for (size_t i = 0; i < remote.size(); ++i) {
      const double e = (remote[i] - reference[i]).norm();
      err.push_back(e);
      sq += e * e;
      max = std::max(max, e);
    }
    JsonLine line;
    line.String("bench", absl::StrCat(kName, "/delay", static_cast<int>(delay * 1000), "ms"))
        .String("metric", "force_error_n")
        .Number("median", Median(err))
        .Number("p99", Percentile(err, 99.0))
        .Integer("n", static_cast<long long>(err.size()))
        .Number("paper", std::nullopt)
        .String("peer", "server-mode")
        .Number("peer_median", std::nullopt)
        .Number("ratio", std::nullopt)
        .String("notes",
                absl::StrCat("one-way delay ", delay * 1000,
                             " ms (simulated, in process), rms error=", std::sqrt(sq / err.size()),
                             " N, max=", max, " N, reference force rms=", ref_rms,
                             " N; device 2 cm below the resting probe, stroke +-5 cm twice, "
                             "lift; world 100 Hz, device 1 kHz, k=400 N/m"));
    result.json_lines.push_back(line.Finish());
  }
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
