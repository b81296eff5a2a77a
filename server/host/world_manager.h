#pragma once
// The worlds a server hosts, by id, and the scheduler that ticks them.

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "server/host/scheduler.h"
#include "server/host/world_host.h"

namespace ligature {

struct WorldManagerOptions {
  int max_worlds = 64;
  WorldLimits world_limits;
  int worker_threads = 2;
  DivergenceGuardOptions guard;  // each world's divergence check and rollback
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
                                                    const SceneDesc& scene);
  // Hosts a world built elsewhere (a restored snapshot) under `id`; its name must be
  // WorldName(id). ALREADY_EXISTS or RESOURCE_EXHAUSTED as Create.
  absl::StatusOr<std::shared_ptr<WorldHost>> Adopt(const std::string& id,
                                                   std::unique_ptr<World> world);
  absl::StatusOr<std::shared_ptr<WorldHost>> Get(const std::string& id) const;
  // Every hosted world, in id order.
  std::vector<std::shared_ptr<WorldHost>> Hosts() const;
  // Worlds in id order, starting after the id in `page_token`.
  WorldPage List(int page_size, const std::string& page_token) const;
  absl::Status Delete(const std::string& id);
  // Closes every world (their streams end) and stops the scheduler.
  void Shutdown();

  const WorldManagerOptions& options() const { return options_; }

 private:
  const WorldManagerOptions options_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<WorldHost>> worlds_;
  uint64_t next_id_ = 1;
  Scheduler scheduler_;
};

// "worlds/{id}" or "{id}" -> id.
std::string WorldIdFromName(const std::string& name);
std::string WorldName(const std::string& id);

}  // namespace ligature
