#pragma once
// The contact and trigger events of a world's recent ticks, kept for the streams that read
// them. The world's thread appends each tick's events; each reader has its filter and its
// place in the log, and reads what came after it. The log is bounded: when it is full the
// oldest tick goes, and every reader that had not read it yet counts the events of it that
// pass its filter as dropped. So a slow reader never holds the world up nor loses events
// silently.
//
// Threading: every member function may be called from any thread; `mu_` guards the state.

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/world/events.h"

namespace ligature {

// Which events a reader wants.
struct EventFilter {
  absl::flat_hash_set<std::string> bodies;  // either side among these; empty: any body
  uint32_t layer_mask = 0xFFFFFFFFu;        // a side on one of these layers
  double min_impulse = 0.0;                 // N s, contact events (an end: its peak)
  // The kinds wanted, bit (1 << kind).
  uint32_t kinds = (1u << static_cast<int>(EventKind::kContactBegin)) |
                   (1u << static_cast<int>(EventKind::kContactEnd)) |
                   (1u << static_cast<int>(EventKind::kTriggerEnter)) |
                   (1u << static_cast<int>(EventKind::kTriggerExit));

  bool Wants(EventKind kind) const { return (kinds >> static_cast<int>(kind)) & 1u; }
  bool Passes(const ContactEvent& e) const;
  bool Passes(const TriggerEvent& e) const;
  size_t Count(const TickEvents& events) const;
};

class EventLog {
 public:
  struct Limits {
    size_t max_ticks = 1024;    // ticks with events kept
    size_t max_events = 65536;  // events kept over those ticks (the newest tick always)
  };
  EventLog() : EventLog(Limits{}) {}
  explicit EventLog(Limits limits) : limits_(limits) {}

  // The world's thread, after each step: the world's tick now and the step's events (kept
  // when there are some and a reader to read them).
  void Append(uint64_t tick, TickEvents events) ABSL_LOCKS_EXCLUDED(mu_);
  // What the world should report for the readers there are now.
  EventReporting Reporting() const ABSL_LOCKS_EXCLUDED(mu_);

  // A new reader, placed after everything appended so far; returns its id. `after_tick`
  // (may be null) takes the world's tick at the last append: the reader sees the events
  // of the steps after it.
  uint64_t Subscribe(EventFilter filter, uint64_t* after_tick = nullptr) ABSL_LOCKS_EXCLUDED(mu_);
  void Unsubscribe(uint64_t reader) ABSL_LOCKS_EXCLUDED(mu_);

  // What a reader has not read yet (whole ticks, unfiltered) and how many events passing
  // its filter it lost since it last read; moves it past them. Waits up to `timeout` for
  // something to read. `open` turns false once the log is closed.
  struct Read {
    std::vector<std::shared_ptr<const TickEvents>> ticks;
    uint64_t dropped = 0;
    bool open = true;
  };
  Read Next(uint64_t reader, absl::Duration timeout) ABSL_LOCKS_EXCLUDED(mu_);
  // Wakes the readers for good.
  void Close() ABSL_LOCKS_EXCLUDED(mu_);

 private:
  struct Entry {
    uint64_t sequence = 0;
    std::shared_ptr<const TickEvents> events;
  };
  struct Reader {
    EventFilter filter;
    uint64_t next = 0;     // the first sequence it has not read
    uint64_t dropped = 0;  // lost since it last read
  };
  void EvictOldest() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void DropRead() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const Limits limits_;
  mutable absl::Mutex mu_;
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mu_);
  size_t events_kept_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_sequence_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t tick_ ABSL_GUARDED_BY(mu_) = 0;  // the world's, at the last append
  std::map<uint64_t, Reader> readers_ ABSL_GUARDED_BY(mu_);
  uint64_t next_reader_ ABSL_GUARDED_BY(mu_) = 1;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace ligature
