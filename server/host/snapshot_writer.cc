#include "server/host/snapshot_writer.h"

#include <cstdio>
#include <memory>
#include <vector>

#include "server/host/snapshot_files.h"
#include "server/snapshot/world_snapshot.h"

namespace ligature {

SnapshotWriter::SnapshotWriter(WorldManager* manager, const SnapshotWriterOptions& options)
    : manager_(manager), options_(options) {}

SnapshotWriter::~SnapshotWriter() { Stop(); }

void SnapshotWriter::Start() {
  absl::MutexLock lock(&mu_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void SnapshotWriter::Stop() {
  // Setting the flag wakes the thread's Await when mu_ is released.
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

// mu_ is held throughout except while a round is written; a round starts each time an
// interval passes without a stop.
void SnapshotWriter::Loop() {
  mu_.Lock();
  while (!stop_) {
    if (mu_.AwaitWithTimeout(absl::Condition(&stop_), options_.interval)) break;
    mu_.Unlock();
    WriteAll();
    mu_.Lock();
  }
  mu_.Unlock();
}

SnapshotRound SnapshotWriter::WriteAll() {
  absl::MutexLock round(&round_mu_);
  SnapshotRound result;
  std::set<std::string> hosted;
  for (const std::shared_ptr<WorldHost>& host : manager_->Hosts()) {
    const std::string id = WorldIdFromName(host->name());
    hosted.insert(id);
    // The copy is taken on the world's thread between ticks; the rest happens here.
    absl::StatusOr<std::shared_ptr<const World>> copy = host->Call<std::shared_ptr<const World>>(
        [](World& w) -> absl::StatusOr<std::shared_ptr<const World>> {
          return std::make_shared<const World>(w);
        },
        absl::Seconds(10));
    if (!copy.ok()) continue;  // deleted meanwhile, or stuck: the next round tries again
    const std::string bytes = SerializeSnapshot(**copy);
    absl::StatusOr<std::string> path =
        WriteSnapshotFile(options_.dir, id, (*copy)->tick(), bytes, options_.keep);
    if (!path.ok()) {
      ++result.failed;
      std::fprintf(stderr, "ligatured: snapshot of world %s: %s\n", id.c_str(),
                   std::string(path.status().message()).c_str());
      continue;
    }
    written_.insert(id);
    ++result.written;
    result.bytes += bytes.size();
  }
  // Worlds deleted since this process wrote them.
  for (auto it = written_.begin(); it != written_.end();) {
    if (hosted.contains(*it)) {
      ++it;
      continue;
    }
    (void)RemoveSnapshotFiles(options_.dir, *it);
    it = written_.erase(it);
  }
  return result;
}

}  // namespace ligature
