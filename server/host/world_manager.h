#pragma once
// The worlds a server hosts, by id, and the scheduler that ticks them.
//
// Threading: `mu_` guards the id -> host map and the next generated id. It is never held
// while a world is built or while a host is closed; List holds it while asking each host for
// its summary (so mu_ comes before a host's own lock).

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "server/host/asset_store.h"
#include "server/host/scheduler.h"
#include "server/host/world_host.h"

namespace ligature {

struct WorldManagerOptions {
  int max_worlds = 64;
  WorldLimits world_limits;
  int worker_threads = 2;
  DivergenceGuardOptions guard;  // each world's divergence check and rollback
  AssetStoreOptions assets;      // the mesh assets the worlds' shapes are made from
  EventLog::Limits events;       // each world's log of contact and trigger events
};

struct WorldPage {
  std::vector<WorldInfo> worlds;
  std::string next_page_token;  // empty on the last page
};

class WorldManager {
 public:
  explicit WorldManager(const WorldManagerOptions& options);
  ~WorldManager();

  // `id` empty: the manager picks one. Fails with ALREADY_EXISTS or RESOURCE_EXHAUSTED, or
  // with the scene's own error (a reference to a missing body, too many bodies).
  absl::StatusOr<std::shared_ptr<WorldHost>> Create(const std::string& id,
                                                    const SceneDesc& scene)
      ABSL_LOCKS_EXCLUDED(mu_);
  // Hosts a world built elsewhere (a restored snapshot) under `id`; its name must be
  // WorldName(id). ALREADY_EXISTS or RESOURCE_EXHAUSTED as Create.
  absl::StatusOr<std::shared_ptr<WorldHost>> Adopt(const std::string& id,
                                                   std::unique_ptr<World> world)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::StatusOr<std::shared_ptr<WorldHost>> Get(const std::string& id) const
      ABSL_LOCKS_EXCLUDED(mu_);
  // Every hosted world, in id order.
  std::vector<std::shared_ptr<WorldHost>> Hosts() const ABSL_LOCKS_EXCLUDED(mu_);
  // Worlds in id order, starting after the id in `page_token`.
  WorldPage List(int page_size, const std::string& page_token) const ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Delete(const std::string& id) ABSL_LOCKS_EXCLUDED(mu_);
  // Closes every world (their streams end) and stops the scheduler.
  void Shutdown() ABSL_LOCKS_EXCLUDED(mu_);

  const WorldManagerOptions& options() const { return options_; }
  // The mesh assets shared by every world.
  AssetStore& assets() { return assets_; }

 private:
  const WorldManagerOptions options_;
  AssetStore assets_;
  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<WorldHost>> worlds_ ABSL_GUARDED_BY(mu_);
  uint64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  Scheduler scheduler_;
};

// "worlds/{id}" or "{id}" -> id.
std::string WorldIdFromName(const std::string& name);
std::string WorldName(const std::string& id);

}  // namespace ligature
