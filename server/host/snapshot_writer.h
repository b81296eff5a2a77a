#pragma once
// Periodic snapshots of every world to a data directory (see snapshot_files.h).
//
// Every interval the writer's own thread asks each world for a copy of itself: the copy is
// taken on the world's thread between two ticks (a World is a value; the divergence guard
// takes the same copy every few ticks), so the tick waits only for the copy. Serializing
// and the file I/O (write, fsync, rename, fsync of the directory) happen on the writer's
// thread, outside every world. The files of a world the writer wrote before and that is no
// longer hosted (deleted) are removed.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>

#include "absl/status/status.h"
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
  void Start();
  // Stops it (a round under way finishes first).
  void Stop();
  // One round now, on the caller's thread: every hosted world's snapshot is written.
  // Failures are reported on stderr and counted.
  SnapshotRound WriteAll();
  // Counts world `id` as written by this process (restored from its files at start), so
  // that its files go when it is deleted.
  void Track(const std::string& id) {
    std::lock_guard<std::mutex> round(round_mu_);
    written_.insert(id);
  }

 private:
  void Loop();

  WorldManager* const manager_;
  const SnapshotWriterOptions options_;
  std::mutex round_mu_;              // one round at a time
  std::set<std::string> written_;    // world ids written by this process (under round_mu_)
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ligature
