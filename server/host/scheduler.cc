#include "server/host/scheduler.h"

#include <algorithm>

#include "absl/time/time.h"

namespace ligature {

Scheduler::Scheduler(int threads) {
  for (int i = 0; i < std::max(1, threads); ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

Scheduler::~Scheduler() { Stop(); }

void Scheduler::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stopping_) return;
    stopping_ = true;
  }
  cv_.SignalAll();
  for (std::thread& t : workers_) t.join();
}

void Scheduler::Add(std::shared_ptr<WorldHost> host) {
  host->SetWakeCallback([this] { Wake(); });
  {
    absl::MutexLock lock(&mu_);
    auto e = std::make_unique<Entry>();
    e->host = std::move(host);
    e->due = Clock::now();
    entries_.push_back(std::move(e));
  }
  cv_.SignalAll();
}

void Scheduler::Remove(const WorldHost* host) {
  absl::MutexLock lock(&mu_);
  // A busy entry is dropped by its worker when the tick ends (the host is closed by then).
  std::erase_if(entries_, [&](const std::unique_ptr<Entry>& e) {
    return e->host.get() == host && !e->busy;
  });
}

// Taking the lock first orders the wake after a worker that has just found nothing to do
// has started waiting: notifying without it could land between that worker's check and its
// wait, and be lost (a paused world's edit would then wait for the next unrelated wake).
void Scheduler::Wake() {
  { absl::MutexLock lock(&mu_); }
  cv_.SignalAll();
}

Scheduler::Entry* Scheduler::NextEntry(Clock::time_point* due) {
  Entry* best = nullptr;
  for (auto& e : entries_) {
    if (e->busy || e->host->closed()) continue;
    Clock::time_point d = e->due;
    if (e->host->paused()) {
      if (!e->host->HasPendingCommands()) continue;
      d = Clock::time_point::min();  // edits to a paused world apply at once
    } else if (e->host->HasPendingCommands()) {
      d = std::min(d, e->due);
    }
    if (best == nullptr || d < *due) {
      best = e.get();
      *due = d;
    }
  }
  return best;
}

// mu_ is held throughout except while waiting and while ticking.
void Scheduler::WorkerLoop() {
  mu_.Lock();
  while (!stopping_) {
    Clock::time_point due;
    Entry* entry = NextEntry(&due);
    if (entry == nullptr) {
      cv_.Wait(&mu_);
      continue;
    }
    if (const Clock::time_point now = Clock::now(); due > now) {
      // Sleep until due, but wake for new work (a command, a new world, a stop).
      cv_.WaitWithTimeout(&mu_, absl::FromChrono(due - now));
      continue;
    }
    entry->busy = true;
    std::shared_ptr<WorldHost> host = entry->host;
    mu_.Unlock();
    host->RunTick();
    mu_.Lock();
    entry->busy = false;
    if (host->closed()) {
      std::erase_if(entries_, [&](const std::unique_ptr<Entry>& e) { return e.get() == entry; });
      continue;
    }
    // Next due time one period on. A world more than a period late skips the ticks it
    // missed (counted) instead of catching up; a paused world restarts from now.
    const auto period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / host->rate_hz()));
    const auto now = Clock::now();
    if (host->paused()) {
      entry->due = now;
    } else {
      entry->due += period;
      if (now - entry->due >= period) {
        host->AddMissedTicks(static_cast<uint64_t>((now - entry->due) / period));
        entry->due = now;
      }
    }
    cv_.SignalAll();
  }
  mu_.Unlock();
}

}  // namespace ligature
