#include "server/rpc/watch_hub.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/time/time.h"

namespace ligature {

WatchHub::WatchHub(std::shared_ptr<FrameSource> source, const std::atomic<bool>* server_stopping)
    : source_(std::move(source)), server_stopping_(server_stopping) {
  thread_ = std::thread([this] { Run(); });
}

WatchHub::~WatchHub() {
  quit_.store(true);
  // The last owner may be a stream ending on this hub's own thread.
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();
  } else {
    thread_.join();
  }
}

bool WatchHub::Add(std::shared_ptr<WatchSink> sink) {
  std::shared_ptr<const PublishedFrame> current;
  {
    absl::MutexLock lock(&mu_);
    if (ended_) return false;
    sinks_[sink.get()] = sink;
    current = current_;
  }
  // A new stream starts with the newest frame, even in a paused world. (Before the first
  // publication the thread offers it to every stream.)
  if (current != nullptr) sink->Offer(std::move(current));
  return true;
}

void WatchHub::Remove(const WatchSink* sink) {
  absl::MutexLock lock(&mu_);
  sinks_.erase(sink);
}

bool WatchHub::ended() const {
  absl::MutexLock lock(&mu_);
  return ended_;
}

void WatchHub::OfferToAll(const std::shared_ptr<const PublishedFrame>& frame) {
  // Offered outside the lock: streams may come and go meanwhile.
  std::vector<std::shared_ptr<WatchSink>> sinks;
  {
    absl::MutexLock lock(&mu_);
    sinks.reserve(sinks_.size());
    for (const auto& [key, sink] : sinks_) sinks.push_back(sink);
  }
  for (const std::shared_ptr<WatchSink>& sink : sinks) sink->Offer(frame);
}

void WatchHub::Run() {
  // How long a hub waits for a publication before it offers the newest frame again, to the
  // streams that held it back for their rate limit or had a write in flight when it came,
  // and checks whether it should stop.
  constexpr absl::Duration kPoll = absl::Milliseconds(100);
  std::shared_ptr<const PublishedFrame> current;
  std::optional<absl::Status> ended;
  while (!quit_.load()) {
    std::shared_ptr<const PublishedFrame> frame =
        source_->WaitForFrame(current != nullptr ? current->version() : 0, kPoll, &ended);
    if (ended) break;
    if (frame != nullptr && frame != current) {
      current = std::move(frame);
      absl::MutexLock lock(&mu_);
      current_ = current;
    }
    if (current != nullptr) OfferToAll(current);
  }
  // The source ended (or the server is stopping): every stream ends.
  absl::flat_hash_map<const WatchSink*, std::shared_ptr<WatchSink>> sinks;
  {
    absl::MutexLock lock(&mu_);
    ended_ = true;
    sinks.swap(sinks_);
  }
  const absl::Status why = server_stopping_->load() || !ended
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
