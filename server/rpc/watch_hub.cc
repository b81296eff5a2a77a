#include "server/rpc/watch_hub.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/time/time.h"

namespace ligature {

WatchHub::WatchHub(std::shared_ptr<FrameSource> source, const std::atomic<bool>* server_stopping)
    : core_(std::make_shared<Core>(std::move(source), server_stopping)) {
  thread_ = std::thread([core = core_] { Run(core); });
}

WatchHub::~WatchHub() {
  core_->quit.store(true);
  // The last owner may be a stream ending on this hub's own thread, which holds the core.
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

bool WatchHub::Add(std::shared_ptr<WatchSink> sink) {
  std::shared_ptr<const PublishedFrame> current;
  {
    absl::MutexLock lock(&core_->mu);
    if (core_->ended) return false;
    core_->sinks[sink.get()] = sink;
    current = core_->current;
  }
  // A new stream starts with the newest frame, even in a paused world. (Before the first
  // publication the thread offers it to every stream.)
  if (current != nullptr) sink->Offer(std::move(current));
  return true;
}

void WatchHub::Remove(const WatchSink* sink) {
  absl::MutexLock lock(&core_->mu);
  core_->sinks.erase(sink);
}

bool WatchHub::ended() const {
  absl::MutexLock lock(&core_->mu);
  return core_->ended;
}

void WatchHub::Core::OfferToAll(const std::shared_ptr<const PublishedFrame>& frame) {
  // Offered outside the lock: streams may come and go meanwhile.
  std::vector<std::shared_ptr<WatchSink>> copies;
  {
    absl::MutexLock lock(&mu);
    copies.reserve(sinks.size());
    for (const auto& [key, sink] : sinks) copies.push_back(sink);
  }
  for (const std::shared_ptr<WatchSink>& sink : copies) sink->Offer(frame);
}

void WatchHub::Run(const std::shared_ptr<Core>& core) {
  // How long a hub waits for a publication before it offers the newest frame again, to the
  // streams that held it back for their rate limit or had a write in flight when it came,
  // and checks whether it should stop.
  constexpr absl::Duration kPoll = absl::Milliseconds(100);
  std::shared_ptr<const PublishedFrame> current;
  std::optional<absl::Status> ended;
  while (!core->quit.load()) {
    std::shared_ptr<const PublishedFrame> frame =
        core->source->WaitForFrame(current != nullptr ? current->version() : 0, kPoll, &ended);
    if (ended) break;
    if (frame != nullptr && frame != current) {
      current = std::move(frame);
      absl::MutexLock lock(&core->mu);
      core->current = current;
    }
    if (current != nullptr) core->OfferToAll(current);
  }
  // The source ended (or the hub or the server is stopping): every stream ends. A hub that
  // quit may have outlived its server, whose flag is then not read.
  absl::flat_hash_map<const WatchSink*, std::shared_ptr<WatchSink>> sinks;
  {
    absl::MutexLock lock(&core->mu);
    core->ended = true;
    sinks.swap(core->sinks);
  }
  const absl::Status why = !ended || core->server_stopping->load()
                               ? absl::UnavailableError("the server is shutting down")
                               : *ended;
  for (const auto& [key, sink] : sinks) sink->End(why);
}

std::shared_ptr<WatchHub> WatchHubs::Add(const std::shared_ptr<WorldHost>& host,
                                         std::shared_ptr<WatchSink> sink) {
  return AddKeyed(
      host.get(), [&host] { return std::make_shared<HostFrameSource>(host); }, std::move(sink));
}

std::shared_ptr<WatchHub> WatchHubs::Add(const std::shared_ptr<FrameSource>& source,
                                         std::shared_ptr<WatchSink> sink) {
  return AddKeyed(
      source.get(), [&source] { return source; }, std::move(sink));
}

std::shared_ptr<WatchHub> WatchHubs::AddKeyed(
    const void* key, const std::function<std::shared_ptr<FrameSource>()>& make_source,
    std::shared_ptr<WatchSink> sink) {
  absl::MutexLock lock(&mu_);
  // Hubs of closed worlds go; a world closed under a new stream's feet gets a fresh hub,
  // which ends that stream at once.
  absl::erase_if(hubs_, [](const auto& entry) { return entry.second->ended(); });
  std::shared_ptr<WatchHub>& hub = hubs_[key];
  if (hub == nullptr || !hub->Add(sink)) {
    hub = std::make_shared<WatchHub>(make_source(), server_stopping_);
    hub->Add(sink);
  }
  return hub;
}

}  // namespace ligature
