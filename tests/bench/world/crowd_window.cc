#include "tests/bench/world/crowd_window.h"

#include <cstdio>

#include "tests/bench/child_process.h"

namespace ligature::bench {

using Clock = std::chrono::steady_clock;

WorldCounts Counts(v1::WorldService::Stub& worlds) {
  grpc::ClientContext ctx;
  v1::GetWorldRequest req;
  req.set_name("worlds/crowd");
  v1::World out;
  WorldCounts c;
  if (worlds.GetWorld(&ctx, req, &out).ok()) {
    c.overruns = out.overruns();
    c.missed_ticks = out.missed_ticks();
  }
  return c;
}

void Editor::Record(bool on) {
  absl::MutexLock lock(&mu_);
  recording_ = on;
  if (on) latency_ms_.clear();
}

std::vector<double> Editor::latency_ms() {
  absl::MutexLock lock(&mu_);
  return latency_ms_;
}

void Editor::Run() {
  for (int i = 0; !stop_.WaitForNotificationWithTimeout(absl::Milliseconds(50)); ++i) {
    grpc::ClientContext ctx;
    const auto t0 = Clock::now();
    grpc::Status s;
    if (i % 2 == 0) {
      v1::CreateBodyRequest req;
      req.set_parent("worlds/crowd");
      req.mutable_body()->set_id("edited");
      req.mutable_body()->mutable_shape()->mutable_sphere()->set_radius(0.05);
      req.mutable_body()->mutable_pose()->mutable_position()->set_y(3.0);
      v1::Body out;
      s = scenes_->CreateBody(&ctx, req, &out);
    } else {
      v1::DeleteBodyRequest req;
      req.set_name("worlds/crowd/bodies/edited");
      v1::DeleteBodyResponse out;
      s = scenes_->DeleteBody(&ctx, req, &out);
    }
    const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    if (!s.ok()) errors_.fetch_add(1);
    absl::MutexLock lock(&mu_);
    if (recording_) latency_ms_.push_back(ms);
  }
}

std::vector<double> Phase::CpuPerFrameUs(double idle_cpu_per_s) const {
  std::vector<double> us;
  for (const Slice& s : slices) {
    us.push_back(1e6 * (s.cpu_s - idle_cpu_per_s * s.s) / static_cast<double>(s.frames));
  }
  return us;
}

namespace {

double CpuSeconds(const std::vector<pid_t>& pids) {
  double sum = 0.0;
  for (const pid_t pid : pids) sum += ProcessCpuSeconds(pid);
  return sum;
}

}  // namespace

Phase Measure(const char* name, pid_t server, const std::vector<pid_t>& others, int viewers,
              const CrowdFactory& make, double window_s, v1::WorldService::Stub& worlds,
              Editor& editor) {
  Phase phase;
  std::unique_ptr<Crowd> crowd;
  if (make) {
    crowd = make();
    const auto deadline = Clock::now() + std::chrono::seconds(30);
    while (crowd->receiving() < viewers && Clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (crowd->receiving() < viewers) {
      std::fprintf(stderr, "[%s] %d of %d viewers receiving\n", name, crowd->receiving(),
                   viewers);
      phase.ok = false;
    }
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));  // streams settle
  const WorldCounts before = Counts(worlds);
  const double cpu0 = ProcessCpuSeconds(server);
  const double others0 = CpuSeconds(others);
  const auto t0 = Clock::now();
  if (crowd) crowd->StartWindow();
  editor.Record(true);
  Slice last{0.0, cpu0, crowd ? crowd->frames() : 0};
  for (double at = kSliceS; at < window_s + 1e-9; at += kSliceS) {
    std::this_thread::sleep_until(
        t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(at)));
    const Slice now{std::chrono::duration<double>(Clock::now() - t0).count(),
                    ProcessCpuSeconds(server), crowd ? crowd->frames() : 0};
    phase.slices.push_back({now.s - last.s, now.cpu_s - last.cpu_s, now.frames - last.frames});
    last = now;
  }
  editor.Record(false);
  if (crowd) phase.crowd = crowd->EndWindow();
  phase.window_s = std::chrono::duration<double>(Clock::now() - t0).count();
  phase.server_cpu_s = ProcessCpuSeconds(server) - cpu0;
  phase.others_cpu_s = CpuSeconds(others) - others0;
  const WorldCounts after = Counts(worlds);
  phase.counts = {after.overruns - before.overruns, after.missed_ticks - before.missed_ticks};
  phase.edit_ms = editor.latency_ms();
  if (phase.crowd.ended > 0) phase.ok = false;
  return phase;
}

}  // namespace ligature::bench
