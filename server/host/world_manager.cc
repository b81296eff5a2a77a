#include "server/host/world_manager.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ligature {

std::string WorldIdFromName(const std::string& name) {
  return absl::StartsWith(name, "worlds/") ? name.substr(7) : name;
}

std::string WorldName(const std::string& id) { return absl::StrCat("worlds/", id); }

WorldManager::WorldManager(const WorldManagerOptions& options)
    : options_(options), assets_(options.assets), scheduler_(options.worker_threads) {}

WorldManager::~WorldManager() { Shutdown(); }

absl::StatusOr<std::shared_ptr<WorldHost>> WorldManager::Create(const std::string& id,
                                                                const SceneDesc& scene) {
  std::string chosen = id;
  {
    absl::MutexLock lock(&mu_);
    if (static_cast<int>(worlds_.size()) >= options_.max_worlds) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the server hosts the maximum of ", options_.max_worlds,
                       " worlds (--max_worlds)"));
    }
    if (chosen.empty()) {
      do {
        chosen = absl::StrCat("world-", next_id_++);
      } while (worlds_.contains(chosen));
    } else if (worlds_.contains(chosen)) {
      return absl::AlreadyExistsError(absl::StrCat("world ", chosen, " already exists"));
    }
  }
  // Build outside the lock: a large scene must not stall the other worlds' RPCs.
  auto world = World::FromScene(WorldName(chosen), scene, options_.world_limits);
  if (!world.ok()) return world.status();
  return Adopt(chosen, std::move(*world));
}

absl::StatusOr<std::shared_ptr<WorldHost>> WorldManager::Adopt(const std::string& chosen,
                                                               std::unique_ptr<World> world) {
  auto host = std::make_shared<WorldHost>(std::move(world), options_.guard, options_.events);
  {
    absl::MutexLock lock(&mu_);
    if (static_cast<int>(worlds_.size()) >= options_.max_worlds) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the server hosts the maximum of ", options_.max_worlds,
                       " worlds (--max_worlds)"));
    }
    if (!worlds_.emplace(chosen, host).second) {
      return absl::AlreadyExistsError(absl::StrCat("world ", chosen, " already exists"));
    }
  }
  scheduler_.Add(host);
  return host;
}

absl::StatusOr<std::shared_ptr<WorldHost>> WorldManager::Get(const std::string& id) const {
  absl::MutexLock lock(&mu_);
  auto it = worlds_.find(id);
  if (it == worlds_.end()) return absl::NotFoundError(absl::StrCat("world ", id, " not found"));
  return it->second;
}

std::vector<std::shared_ptr<WorldHost>> WorldManager::Hosts() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<WorldHost>> hosts;
  for (const auto& [id, host] : worlds_) hosts.push_back(host);
  return hosts;
}

WorldPage WorldManager::List(int page_size, const std::string& page_token) const {
  WorldPage page;
  absl::MutexLock lock(&mu_);
  auto it = page_token.empty() ? worlds_.begin() : worlds_.upper_bound(page_token);
  for (; it != worlds_.end() && static_cast<int>(page.worlds.size()) < page_size; ++it) {
    page.worlds.push_back(it->second->Info());
  }
  if (it != worlds_.end() && !page.worlds.empty()) {
    page.next_page_token = WorldIdFromName(page.worlds.back().name);
  }
  return page;
}

absl::Status WorldManager::Delete(const std::string& id) {
  std::shared_ptr<WorldHost> host;
  {
    absl::MutexLock lock(&mu_);
    auto it = worlds_.find(id);
    if (it == worlds_.end()) return absl::NotFoundError(absl::StrCat("world ", id, " not found"));
    host = std::move(it->second);
    worlds_.erase(it);
  }
  host->Close();
  scheduler_.Remove(host.get());
  return absl::OkStatus();
}

void WorldManager::Shutdown() {
  std::map<std::string, std::shared_ptr<WorldHost>> worlds;
  {
    absl::MutexLock lock(&mu_);
    worlds.swap(worlds_);
  }
  for (auto& [id, host] : worlds) host->Close();
  scheduler_.Stop();
}

}  // namespace ligature
