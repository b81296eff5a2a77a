#pragma once
// A gateway's side of the broker: one NATS connection subscribed to every world's frames
// under a subject prefix (<prefix>.<world id>, as ligatured publishes them), and the worlds
// heard of so far. The NATS client reconnects by itself and subscribes again; meanwhile the
// worlds keep their newest frame, and their viewers see a gap, then frames.

#include <nats/nats.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "server/gateway/subscribed_world.h"

namespace ligature {

struct FrameSubscriberOptions {
  std::string url;  // nats://host:port
  std::string subject_prefix = "ligature.frames";
  int max_worlds = 1024;  // worlds kept at once; frames of more are dropped and counted
};

// Plain counters, read by the gateway's metrics.
struct SubscriberCounters {
  std::atomic<uint64_t> frames_received{0};
  std::atomic<uint64_t> messages_dropped{0};  // not a frame of a world (bad subject, header, id)
  std::atomic<uint64_t> worlds_ended{0};
};

class FrameSubscriber {
 public:
  // Validates the options (INVALID_ARGUMENT naming the field) and subscribes; a broker that
  // is not up yet is connected to when it comes.
  static absl::StatusOr<std::unique_ptr<FrameSubscriber>> Start(
      const FrameSubscriberOptions& options, SubscriberCounters* counters);
  ~FrameSubscriber();  // unsubscribes and closes the connection
  FrameSubscriber(const FrameSubscriber&) = delete;
  FrameSubscriber& operator=(const FrameSubscriber&) = delete;

  // Whether the broker is connected just now.
  bool connected() const;

  // Ends every world heard of (their streams end with `why`); frames that come later start
  // new ones.
  void EndAll(const absl::Status& why) ABSL_LOCKS_EXCLUDED(mu_);

  // The worlds known now, and their messages that did not decode.
  struct Worlds {
    size_t count = 0;
    uint64_t malformed = 0;
  };
  Worlds worlds() const ABSL_LOCKS_EXCLUDED(mu_);

  // The frames of world `id`; NOT_FOUND when none have reached this gateway.
  absl::StatusOr<std::shared_ptr<SubscribedWorld>> Find(const std::string& id) const
      ABSL_LOCKS_EXCLUDED(mu_);

 private:
  FrameSubscriber(FrameSubscriberOptions options, SubscriberCounters* counters)
      : options_(std::move(options)), counters_(counters) {}
  static void OnMessage(natsConnection* connection, natsSubscription* subscription, natsMsg* msg,
                        void* closure);
  static void OnComplete(void* closure);
  void Receive(natsMsg* msg) ABSL_LOCKS_EXCLUDED(mu_);

  const FrameSubscriberOptions options_;
  SubscriberCounters* const counters_;
  natsConnection* connection_ = nullptr;
  natsSubscription* subscription_ = nullptr;
  absl::Notification handler_done_;  // the subscription closed and its handler returned
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, std::shared_ptr<SubscribedWorld>> worlds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ligature
