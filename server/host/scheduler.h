#pragma once
// Ticks every world at its own rate on a small pool of worker threads.
//
// Each host has a due time. A worker takes the host with the earliest due time that no
// other worker holds (so one thread steps a given world at a time, and different worlds run
// in parallel), waits until it is due, ticks it, and sets the next due time one period
// later. A world that fell more than a period behind does not catch up: the ticks it missed
// are counted and it is rescheduled from now. Paused worlds are due only while they have
// queued commands.
//
// Threading: `mu_` guards the entries (each entry's fields included) and the stop flag; the
// workers wait on `cv_` with it. A worker releases mu_ while it ticks a host. Lock order:
// mu_ before a host's own lock (NextEntry asks hosts about themselves under mu_), so a host
// calls Wake only after releasing its lock.

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "server/host/world_host.h"

namespace ligature {

class Scheduler {
 public:
  explicit Scheduler(int threads);
  ~Scheduler();  // stops the workers

  void Add(std::shared_ptr<WorldHost> host) ABSL_LOCKS_EXCLUDED(mu_);
  void Remove(const WorldHost* host) ABSL_LOCKS_EXCLUDED(mu_);
  // Re-evaluates due times (a command was queued, a setting changed).
  void Wake() ABSL_LOCKS_EXCLUDED(mu_);
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::shared_ptr<WorldHost> host;
    Clock::time_point due;
    bool busy = false;
  };

  void WorkerLoop() ABSL_LOCKS_EXCLUDED(mu_);
  // The earliest-due runnable entry, or nullptr; `due` receives its due time.
  Entry* NextEntry(Clock::time_point* due) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  absl::CondVar cv_;  // signalled under or right after mu_ when there is new work or a stop
  std::vector<std::unique_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
  // Started by the constructor, joined by the first Stop (only the owner calls either).
  std::vector<std::thread> workers_;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ligature
