#include "server/rpc/frame_publisher.h"

#include <nats/nats.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "server/rpc/names.h"
#include "server/rpc/nats_connection.h"
#include "server/scene/scene_proto.h"

namespace ligature {

namespace {

// One chosen world's changing state: whether it is attached, its newest frame not yet
// published, and whether its deletion is still to be told.
struct Slot {
  std::string id;
  std::string subject;
  bool attached = false;  // a sink is in the world's hub
  std::shared_ptr<const PublishedFrame> newest;
  uint64_t taken = 0;  // the newest version offered
  // The last frame published and when: a quiet world's is published again now and then.
  std::shared_ptr<const PublishedFrame> last;
  absl::Time last_at = absl::InfinitePast();
  bool deleted = false;
};

// How often the newest frame of a quiet world (paused, or stepped on demand) goes out again,
// for gateways that started since: they serve a world once they have a frame of it.
constexpr absl::Duration kRepeatQuiet = absl::Seconds(1);

// Publishes `data` on `subject` with one header; NATS_OK or the client's error.
natsStatus PublishWithHeader(natsConnection* connection, const std::string& subject,
                             const char* header, const std::string& value, const char* data,
                             int size) {
  natsMsg* msg = nullptr;
  natsStatus status = natsMsg_Create(&msg, subject.c_str(), nullptr, data, size);
  if (status == NATS_OK) status = natsMsgHeader_Set(msg, header, value.c_str());
  if (status == NATS_OK) status = natsConnection_PublishMsg(connection, msg);
  natsMsg_Destroy(msg);
  return status;
}

}  // namespace

struct FramePublisher::Shared {
  WorldManager* worlds = nullptr;
  WatchHubs* hubs = nullptr;
  PublishCounters* counters = nullptr;
  natsConnection* connection = nullptr;
  std::string subject_prefix;
  bool every_world = false;  // "*": every world the server has, as they come
  absl::Mutex mu;
  bool stop ABSL_GUARDED_BY(mu) = false;
  std::vector<Slot> slots ABSL_GUARDED_BY(mu);  // only ever appended to

  // Adds a slot for world `id`.
  void AddSlot(const std::string& id) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
    Slot& slot = slots.emplace_back();
    slot.id = id;
    slot.subject = absl::StrCat(subject_prefix, ".", id);
  }
};

namespace {

// What a world's hub offers frames to: the publisher's slot for that world.
class PublishSink final : public WatchSink {
 public:
  PublishSink(std::shared_ptr<FramePublisher::Shared> shared, size_t slot)
      : shared_(std::move(shared)), slot_(slot) {}
  void Offer(std::shared_ptr<const PublishedFrame> frame) override {
    absl::MutexLock lock(&shared_->mu);
    // The hub offers its newest frame again while the world is quiet: each goes once.
    Slot& s = shared_->slots[slot_];
    if (frame->version() > s.taken) {
      s.taken = frame->version();
      s.newest = std::move(frame);
    }
  }
  void End(const absl::Status& why) override {
    // The world closed: attach again when a world of this id is there. A deleted world's
    // gateways are told (a server shutting down tells them nothing: its worlds may come back).
    absl::MutexLock lock(&shared_->mu);
    Slot& s = shared_->slots[slot_];
    s.attached = false;
    s.newest.reset();
    s.last.reset();
    s.taken = 0;  // a new world's versions start again
    s.deleted = absl::IsNotFound(why);
  }

 private:
  std::shared_ptr<FramePublisher::Shared> shared_;
  size_t slot_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FramePublisher>> FramePublisher::Start(
    const FramePublisherOptions& options, WorldManager* worlds, WatchHubs* hubs,
    PublishCounters* counters) {
  if (absl::Status s = ValidateNatsOptions(options.url, options.subject_prefix); !s.ok()) {
    return s;
  }
  if (options.worlds.empty()) {
    return absl::InvalidArgumentError("nats_worlds: name at least one world to publish, or *");
  }
  auto shared = std::make_shared<Shared>();
  shared->worlds = worlds;
  shared->hubs = hubs;
  shared->counters = counters;
  shared->subject_prefix = options.subject_prefix;
  shared->every_world = options.worlds == std::vector<std::string>{"*"};
  if (!shared->every_world) {
    absl::MutexLock lock(&shared->mu);
    for (size_t i = 0; i < options.worlds.size(); ++i) {
      const std::string& id = options.worlds[i];
      if (absl::Status s = ValidateId(id, absl::StrCat("nats_worlds[", i, "]")); !s.ok()) {
        return s;
      }
      shared->AddSlot(id);
    }
  }
  // Frames are not kept for the broker while it is away (see Run); the client's reconnect
  // buffer only bounds what a publish racing a disconnect holds.
  absl::StatusOr<natsConnection*> connection = ConnectNats(options.url, 1 << 16);
  if (!connection.ok()) return connection.status();
  shared->connection = *connection;
  std::unique_ptr<FramePublisher> publisher(new FramePublisher());
  publisher->shared_ = std::move(shared);
  publisher->thread_ = std::thread([p = publisher.get()] { p->Run(); });
  return publisher;
}

FramePublisher::~FramePublisher() {
  {
    absl::MutexLock lock(&shared_->mu);
    shared_->stop = true;
  }
  thread_.join();
  natsConnection_Close(shared_->connection);
  natsConnection_Destroy(shared_->connection);
}

void FramePublisher::AddNewWorlds(std::vector<std::pair<size_t, std::string>>* detached) {
  Shared& s = *shared_;
  const std::vector<std::shared_ptr<WorldHost>> hosts = s.worlds->Hosts();
  absl::MutexLock lock(&s.mu);
  for (const std::shared_ptr<WorldHost>& host : hosts) {
    absl::StatusOr<std::string> parsed = ParseWorldName(host->name(), "world");
    if (!parsed.ok()) continue;
    const std::string& id = *parsed;
    const bool known = std::any_of(s.slots.begin(), s.slots.end(),
                                   [&id](const Slot& slot) { return slot.id == id; });
    if (known) continue;
    s.AddSlot(id);
    detached->emplace_back(s.slots.size() - 1, id);
  }
}

void FramePublisher::Run() {
  Shared& s = *shared_;
  const FrameStreamOptions whole;  // every body, no filter: the whole-frame view
  constexpr absl::Duration kScanInterval = absl::Milliseconds(100);
  absl::Time next_scan = absl::InfinitePast();
  while (true) {
    const bool connected = natsConnection_Status(s.connection) == NATS_CONN_STATUS_CONNECTED;
    s.counters->connected.store(connected ? 1 : 0);
    // Worlds to attach to, and frames to publish.
    bool scan = false;                                     // look for worlds to attach to
    std::vector<std::pair<size_t, std::string>> detached;  // slot, world id
    std::vector<std::string> deleted;                      // subjects
    std::vector<std::pair<std::string, std::shared_ptr<const PublishedFrame>>> frames;
    {
      absl::MutexLock lock(&s.mu);
      // (A deletion waits for the broker; frames are dropped while it is away.)
      auto ready = [&s, connected]() ABSL_SHARED_LOCKS_REQUIRED(s.mu) {
        if (s.stop) return true;
        for (const Slot& slot : s.slots) {
          if (slot.newest != nullptr || (slot.deleted && connected)) return true;
        }
        return false;
      };
      s.mu.AwaitWithTimeout(absl::Condition(&ready), absl::Milliseconds(100));
      if (s.stop) return;
      const absl::Time now = absl::Now();
      // Worlds are looked for a tenth of a second apart, not at every frame.
      scan = now >= next_scan;
      if (scan) next_scan = now + kScanInterval;
      for (size_t i = 0; i < s.slots.size(); ++i) {
        Slot& slot = s.slots[i];
        if (scan && !slot.attached) detached.emplace_back(i, slot.id);
        if (slot.deleted && connected) {
          deleted.push_back(slot.subject);
          slot.deleted = false;
        }
        if (slot.newest != nullptr) {
          slot.last = slot.newest;
          slot.last_at = now;
          frames.emplace_back(slot.subject, std::move(slot.newest));
        } else if (slot.last != nullptr && now - slot.last_at >= kRepeatQuiet) {
          slot.last_at = now;
          frames.emplace_back(slot.subject, slot.last);
        }
      }
    }
    if (scan && s.every_world) AddNewWorlds(&detached);
    for (const auto& [i, id] : detached) {
      absl::StatusOr<std::shared_ptr<WorldHost>> host = s.worlds->Get(id);
      if (!host.ok()) continue;
      {
        absl::MutexLock lock(&s.mu);
        s.slots[i].attached = true;
      }
      s.hubs->Add(*host, std::make_shared<PublishSink>(shared_, i));
    }
    // A deletion goes before frames of a world created again under the same id.
    for (const std::string& subject : deleted) {
      PublishWithHeader(s.connection, subject, kFrameEndHeader, kFrameEndDeleted, nullptr, 0);
    }
    for (const auto& [subject, frame] : frames) {
      grpc::ByteBuffer bytes;
      frame->View("", whole, &bytes);
      grpc::Slice slice;
      // While the broker is away frames are dropped, not queued: subscribers see a gap,
      // then the world as it is.
      const bool ok =
          connected && (bytes.TrySingleSlice(&slice).ok() || bytes.DumpToSingleSlice(&slice).ok());
      const natsStatus status = ok ? PublishWithHeader(s.connection, subject, kFrameRateHeader,
                                                       absl::StrCat(frame->rate_hz()),
                                                       reinterpret_cast<const char*>(slice.begin()),
                                                       static_cast<int>(slice.size()))
                                   : NATS_ERR;
      (status == NATS_OK ? s.counters->frames_published : s.counters->publish_failures)
          .fetch_add(1, std::memory_order_relaxed);
    }
  }
}

}  // namespace ligature
