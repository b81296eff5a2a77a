#pragma once
// The measured windows of the world/viewers benchmarks: an editor making 20 edits a second
// with their latencies, and a window over which a crowd's frames, the server's CPU (in
// slices) and other processes' CPU, and the world's overruns are taken.

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "ligature/v1/scene_service.grpc.pb.h"
#include "ligature/v1/world_service.grpc.pb.h"
#include "tests/bench/world/viewer_crowd.h"

namespace ligature::bench {

struct WorldCounts {
  uint64_t overruns = 0;
  uint64_t missed_ticks = 0;
};

// The overruns and missed ticks of world "crowd" so far.
WorldCounts Counts(v1::WorldService::Stub& worlds);

// Edits at 20 a second until stopped: a sphere created, then deleted; each edit waits for
// the tick that applies it. Latencies (ms) are kept while `recording`.
class Editor {
 public:
  explicit Editor(std::shared_ptr<grpc::Channel> channel)
      : scenes_(v1::SceneService::NewStub(channel)), thread_([this] { Run(); }) {}
  ~Editor() {
    stop_.Notify();
    thread_.join();
  }
  void Record(bool on) ABSL_LOCKS_EXCLUDED(mu_);
  std::vector<double> latency_ms() ABSL_LOCKS_EXCLUDED(mu_);
  int errors() const { return errors_.load(); }

 private:
  void Run() ABSL_LOCKS_EXCLUDED(mu_);

  std::unique_ptr<v1::SceneService::Stub> scenes_;
  absl::Notification stop_;
  std::atomic<int> errors_{0};
  absl::Mutex mu_;
  bool recording_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<double> latency_ms_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

// The window is measured in slices; each slice's server CPU per frame received is a sample.
inline constexpr double kSliceS = 0.5;

struct Slice {
  double s = 0;      // wall time
  double cpu_s = 0;  // the server's CPU time
  uint64_t frames = 0;
};

struct Phase {
  double window_s = 0;
  double server_cpu_s = 0;
  double others_cpu_s = 0;  // the other processes measured, together
  std::vector<Slice> slices;
  CrowdFigures crowd;
  WorldCounts counts;
  std::vector<double> edit_ms;
  bool ok = true;
  // Server CPU per frame received (us) above `idle_cpu_per_s`, per slice.
  std::vector<double> CpuPerFrameUs(double idle_cpu_per_s) const;
};

using CrowdFactory = std::function<std::unique_ptr<Crowd>()>;

// One measured window of `window_s` with the crowd `make` opens (none when null) and
// `viewers` of them receiving: CPU of `server` (in slices) and of `others` (in total).
// `name` prefixes what it reports on stderr.
Phase Measure(const char* name, pid_t server, const std::vector<pid_t>& others, int viewers,
              const CrowdFactory& make, double window_s, v1::WorldService::Stub& worlds,
              Editor& editor);

}  // namespace ligature::bench
