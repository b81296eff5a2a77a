#include "server/gateway/frame_subscriber.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "server/rpc/frame_publisher.h"
#include "server/rpc/nats_connection.h"
#include "server/scene/scene_proto.h"

namespace ligature {

absl::StatusOr<std::unique_ptr<FrameSubscriber>> FrameSubscriber::Start(
    const FrameSubscriberOptions& options, SubscriberCounters* counters) {
  if (absl::Status s = ValidateNatsOptions(options.url, options.subject_prefix); !s.ok()) {
    return s;
  }
  if (options.max_worlds < 1) return absl::InvalidArgumentError("max_worlds: must be positive");
  std::unique_ptr<FrameSubscriber> subscriber(new FrameSubscriber(options, counters));
  // The client subscribes again after each reconnect.
  absl::StatusOr<natsConnection*> connection = ConnectNats(options.url);
  if (!connection.ok()) return connection.status();
  subscriber->connection_ = *connection;
  // Every world under the prefix (one token each). A subscriber that falls behind has its
  // oldest messages dropped by the client: only the newest frame of a world matters.
  const std::string subject = absl::StrCat(options.subject_prefix, ".*");
  natsStatus status =
      natsConnection_Subscribe(&subscriber->subscription_, subscriber->connection_, subject.c_str(),
                               &FrameSubscriber::OnMessage, subscriber.get());
  if (status == NATS_OK) {
    status = natsSubscription_SetPendingLimits(subscriber->subscription_, 4096, 256 << 20);
  }
  if (status == NATS_OK) {
    status = natsSubscription_SetOnCompleteCB(subscriber->subscription_,
                                              &FrameSubscriber::OnComplete, subscriber.get());
  }
  if (status != NATS_OK) {
    return absl::InternalError(
        absl::StrCat("nats: cannot subscribe to ", subject, ": ", natsStatus_GetText(status)));
  }
  return subscriber;
}

FrameSubscriber::~FrameSubscriber() {
  // Closing the connection closes the subscription; its handler is done (a delivery in
  // progress finished) once OnComplete has run, and only then does this go.
  if (connection_ != nullptr) natsConnection_Close(connection_);
  if (subscription_ != nullptr) {
    handler_done_.WaitForNotificationWithTimeout(absl::Seconds(10));
    natsSubscription_Destroy(subscription_);
  }
  if (connection_ != nullptr) natsConnection_Destroy(connection_);
}

bool FrameSubscriber::connected() const {
  return natsConnection_Status(connection_) == NATS_CONN_STATUS_CONNECTED;
}

absl::StatusOr<std::shared_ptr<SubscribedWorld>> FrameSubscriber::Find(
    const std::string& id) const {
  absl::MutexLock lock(&mu_);
  auto it = worlds_.find(id);
  if (it == worlds_.end()) {
    return absl::NotFoundError(
        absl::StrCat("world: no frames of worlds/", id, " reach this gateway"));
  }
  return it->second;
}

FrameSubscriber::Worlds FrameSubscriber::worlds() const {
  absl::MutexLock lock(&mu_);
  Worlds out;
  out.count = worlds_.size();
  for (const auto& [id, world] : worlds_) out.malformed += world->malformed();
  return out;
}

void FrameSubscriber::EndAll(const absl::Status& why) {
  absl::flat_hash_map<std::string, std::shared_ptr<SubscribedWorld>> worlds;
  {
    absl::MutexLock lock(&mu_);
    worlds.swap(worlds_);
  }
  for (const auto& [id, world] : worlds) world->End(why);
}

void FrameSubscriber::OnMessage(natsConnection*, natsSubscription*, natsMsg* msg, void* closure) {
  static_cast<FrameSubscriber*>(closure)->Receive(msg);
  natsMsg_Destroy(msg);
}

void FrameSubscriber::OnComplete(void* closure) {
  static_cast<FrameSubscriber*>(closure)->handler_done_.Notify();
}

void FrameSubscriber::Receive(natsMsg* msg) {
  // The world's id is the subject's last token.
  const std::string subject = natsMsg_GetSubject(msg);
  const std::string id =
      subject.substr(std::min(subject.size(), options_.subject_prefix.size() + 1));
  if (!ValidateId(id, "subject").ok()) {
    counters_->messages_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // A deleted world: its streams end, and frames under its id later are a new world's.
  const char* end = nullptr;
  if (natsMsgHeader_Get(msg, kFrameEndHeader, &end) == NATS_OK) {
    std::shared_ptr<SubscribedWorld> world;
    {
      absl::MutexLock lock(&mu_);
      if (auto it = worlds_.find(id); it != worlds_.end()) {
        world = std::move(it->second);
        worlds_.erase(it);
      }
    }
    if (world != nullptr) {
      world->End(absl::NotFoundError(absl::StrCat(world->name(), " was deleted")));
      counters_->worlds_ended.fetch_add(1, std::memory_order_relaxed);
    }
    return;
  }
  const char* rate_text = nullptr;
  double rate_hz = 0.0;
  if (natsMsgHeader_Get(msg, kFrameRateHeader, &rate_text) != NATS_OK ||
      !absl::SimpleAtod(rate_text, &rate_hz) || !std::isfinite(rate_hz) || rate_hz <= 0.0) {
    counters_->messages_dropped.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  std::shared_ptr<SubscribedWorld> world;
  {
    absl::MutexLock lock(&mu_);
    auto it = worlds_.find(id);
    if (it == worlds_.end()) {
      if (static_cast<int>(worlds_.size()) >= options_.max_worlds) {
        counters_->messages_dropped.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      it = worlds_.emplace(id, std::make_shared<SubscribedWorld>("worlds/" + id)).first;
    }
    world = it->second;
  }
  world->Receive(natsMsg_GetData(msg), static_cast<size_t>(natsMsg_GetDataLength(msg)), rate_hz);
  counters_->frames_received.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace ligature
