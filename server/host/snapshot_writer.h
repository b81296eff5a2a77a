#pragma once
// Periodic snapshots of every world to a data directory (see snapshot_files.h).
//
// Every interval the writer's own thread asks each world for a copy of itself: the copy is
// taken on the world's thread between two ticks (a World is a value; the divergence guard
// takes the same copy every few ticks), so the tick waits only for the copy. Serializing
// and the file I/O (write, fsync, rename, fsync of the directory) happen on the writer's
// thread, outside every world. The files of a world the writer wrote before and that is no
// longer hosted (deleted) are removed.
//
// Threading: `round_mu_` makes rounds one at a time (the periodic thread's and WriteAll
// called elsewhere) and guards the ids written; `mu_` guards the stop flag, which the
// periodic thread awaits between rounds. Start and Stop are called by the owner's thread.

#include <cstdint>
#include <set>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/host/world_manager.h"

namespace ligature {

struct SnapshotWriterOptions {
  std::string dir;
  absl::Duration interval = absl::Seconds(60);
  int keep = 2;  // files per world: the newest and the one before
};

struct SnapshotRound {
  int written = 0;
  uint64_t bytes = 0;
  int failed = 0;
};

class SnapshotWriter {
 public:
  SnapshotWriter(WorldManager* manager, const SnapshotWriterOptions& options);
  ~SnapshotWriter();

  // Starts the periodic thread.
  void Start() ABSL_LOCKS_EXCLUDED(mu_);
  // Stops it (a round under way finishes first).
  void Stop() ABSL_LOCKS_EXCLUDED(mu_);
  // One round now, on the caller's thread: every hosted world's snapshot is written.
  // Failures are reported on stderr and counted.
  SnapshotRound WriteAll() ABSL_LOCKS_EXCLUDED(round_mu_);
  // Counts world `id` as written by this process (restored from its files at start), so
  // that its files go when it is deleted.
  void Track(const std::string& id) ABSL_LOCKS_EXCLUDED(round_mu_) {
    absl::MutexLock round(&round_mu_);
    written_.insert(id);
  }

 private:
  void Loop() ABSL_LOCKS_EXCLUDED(mu_);

  WorldManager* const manager_;
  const SnapshotWriterOptions options_;
  absl::Mutex round_mu_;  // one round at a time
  // World ids written by this process.
  std::set<std::string> written_ ABSL_GUARDED_BY(round_mu_);
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  // Started under mu_ by Start, joined by Stop; only the owner's thread calls either.
  std::thread thread_;
};

}  // namespace ligature
