#pragma once
// Ticks every world at its own rate on a small pool of worker threads.
//
// Each host has a due time. A worker takes the host with the earliest due time that no
// other worker holds (so one thread steps a given world at a time, and different worlds run
// in parallel), waits until it is due, ticks it, and sets the next due time one period
// later. A world that fell more than a period behind does not catch up: the ticks it missed
// are counted and it is rescheduled from now. Paused worlds are due only while they have
// queued commands.

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "server/host/world_host.h"

namespace ligature {

class Scheduler {
 public:
  explicit Scheduler(int threads);
  ~Scheduler();  // stops the workers

  void Add(std::shared_ptr<WorldHost> host);
  void Remove(const WorldHost* host);
  // Re-evaluates due times (a command was queued, a setting changed).
  void Wake();
  void Stop();

 private:
  using Clock = std::chrono::steady_clock;
  struct Entry {
    std::shared_ptr<WorldHost> host;
    Clock::time_point due;
    bool busy = false;
  };

  void WorkerLoop();
  // The earliest-due runnable entry, or nullptr; `due` receives its due time.
  Entry* NextEntry(Clock::time_point* due);

  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Entry>> entries_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
};

}  // namespace ligature
