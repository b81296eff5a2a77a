#pragma once
// Fans one world's frames out to its Watch streams. A thread per watched world waits for the
// publications of the world's frame source and offers each, as one PublishedFrame, to every
// stream; the streams take their view's shared bytes and write them without a thread of
// their own.

#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "server/host/world_host.h"
#include "server/rpc/frame_source.h"
#include "server/rpc/published_frame.h"

namespace ligature {

// What a hub offers frames to: one stream.
class WatchSink {
 public:
  virtual ~WatchSink() = default;
  // The newest frame (again, when the world published nothing newer for a while).
  virtual void Offer(std::shared_ptr<const PublishedFrame> frame) = 0;
  // The world closed or the server is stopping: end the stream with `why`.
  virtual void End(const absl::Status& why) = 0;
};

class WatchHub {
 public:
  // Starts the hub's thread. `server_stopping` tells a shutdown from an ended source.
  WatchHub(std::shared_ptr<FrameSource> source, const std::atomic<bool>* server_stopping);
  ~WatchHub();  // stops the thread (the streams still here end, UNAVAILABLE)
  WatchHub(const WatchHub&) = delete;
  WatchHub& operator=(const WatchHub&) = delete;

  // Adds `sink` and offers it the newest frame at once. False once the hub has ended.
  bool Add(std::shared_ptr<WatchSink> sink);
  void Remove(const WatchSink* sink);
  bool ended() const;

 private:
  // Everything the hub's thread uses. The thread shares it: the last stream may let go of
  // the hub on the hub's own thread, and the thread then runs on to its end.
  struct Core {
    Core(std::shared_ptr<FrameSource> source, const std::atomic<bool>* server_stopping)
        : source(std::move(source)), server_stopping(server_stopping) {}
    void OfferToAll(const std::shared_ptr<const PublishedFrame>& frame) ABSL_LOCKS_EXCLUDED(mu);

    const std::shared_ptr<FrameSource> source;
    const std::atomic<bool>* server_stopping;
    std::atomic<bool> quit{false};
    mutable absl::Mutex mu;
    bool ended ABSL_GUARDED_BY(mu) = false;
    std::shared_ptr<const PublishedFrame> current ABSL_GUARDED_BY(mu);
    absl::flat_hash_map<const WatchSink*, std::shared_ptr<WatchSink>> sinks ABSL_GUARDED_BY(mu);
  };
  static void Run(const std::shared_ptr<Core>& core);

  const std::shared_ptr<Core> core_;
  std::thread thread_;
};

// The hubs of a server's watched worlds, one per world, started by its first stream.
class WatchHubs {
 public:
  explicit WatchHubs(const std::atomic<bool>* server_stopping)
      : server_stopping_(server_stopping) {}

  // Adds `sink` to the hub of `host`'s world; returns that hub.
  std::shared_ptr<WatchHub> Add(const std::shared_ptr<WorldHost>& host,
                                std::shared_ptr<WatchSink> sink) ABSL_LOCKS_EXCLUDED(mu_);
  // Adds `sink` to the hub of `source`.
  std::shared_ptr<WatchHub> Add(const std::shared_ptr<FrameSource>& source,
                                std::shared_ptr<WatchSink> sink) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  // Adds `sink` to the hub kept under `key`, started on `make_source()` when there is none.
  std::shared_ptr<WatchHub> AddKeyed(
      const void* key, const std::function<std::shared_ptr<FrameSource>()>& make_source,
      std::shared_ptr<WatchSink> sink) ABSL_LOCKS_EXCLUDED(mu_);

  const std::atomic<bool>* server_stopping_;
  absl::Mutex mu_;
  absl::flat_hash_map<const void*, std::shared_ptr<WatchHub>> hubs_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ligature
