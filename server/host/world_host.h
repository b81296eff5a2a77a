#pragma once
// A world as the service sees it: the World itself, owned by whichever scheduler worker is
// ticking it, plus the thread-safe surfaces around it. RPC threads never touch the World:
// they enqueue commands, which the world's tick applies in arrival order before stepping,
// and they read immutable published frames.
//
// Threading: `mu_` guards the command queue, the published frame and the counters. The
// World is touched only inside RunTick(), which the scheduler never runs concurrently for
// one host.

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "server/host/divergence_guard.h"
#include "server/world/frame.h"
#include "server/world/step_counters.h"
#include "server/world/world.h"

namespace ligature {

// A read-only summary of a world, refreshed at each publication.
struct WorldInfo {
  std::string name;
  WorldSettings settings;
  uint64_t tick = 0;
  double sim_time = 0.0;
  int body_count = 0;
  int constraint_count = 0;
  uint64_t missed_ticks = 0;
  uint64_t overruns = 0;
  double last_step_ms = 0.0;
  StepCounters counters;  // totals over every step, StepWorld's included
  // Bodies driven by an Interact session, and the client (peer) owning each, by body id.
  std::vector<std::pair<std::string, std::string>> owners;
};

// A command runs on the world's thread with the World, or with nullptr when the world was
// deleted or the server is stopping before the command could run.
using WorldCommand = std::function<void(World*)>;

class WorldHost {
 public:
  explicit WorldHost(std::unique_ptr<World> world, const DivergenceGuardOptions& guard = {});
  ~WorldHost();

  const std::string& name() const { return name_; }

  // Queues a command for the start of the next tick; returns false when closed.
  bool Enqueue(WorldCommand command);

  // Queues `fn` and waits for its result (or `timeout`). The scheduler is woken through
  // the callback set by SetWakeCallback so that paused worlds apply edits promptly.
  template <typename T>
  absl::StatusOr<T> Call(std::function<absl::StatusOr<T>(World&)> fn, absl::Duration timeout);

  // The newest frame (never null after construction).
  std::shared_ptr<const Frame> LatestFrame() const;
  // Blocks until a frame with a tick other than `seen_tick` (or a newer publication) is
  // out, the host closes, or `timeout` passes. Returns the newest frame and whether open.
  std::shared_ptr<const Frame> WaitForFrame(uint64_t seen_version, absl::Duration timeout,
                                            uint64_t* version, bool* open) const;
  WorldInfo Info() const;

  // Haptic tools, answered without waiting for the world: the mass properties of dynamic
  // rigid body `body` as of the newest publication (NOT_FOUND when there is no such body,
  // FAILED_PRECONDITION when it is not a dynamic rigid body), and the claim of a tool by
  // haptic session `session` (FAILED_PRECONDITION naming the holder when another session
  // holds it) until ReleaseHapticTool. The world's attach command checks again.
  absl::StatusOr<World::HapticToolFacts> HapticTool(const std::string& body) const;
  absl::Status ClaimHapticTool(const std::string& body, const std::string& session);
  void ReleaseHapticTool(const std::string& body, const std::string& session);

  // Device ownership: the Interact session `session` (from client `client`) drives body
  // `body` and owns it until ReleaseBodies; FAILED_PRECONDITION when another session owns it.
  absl::Status ClaimBody(const std::string& body, uint64_t session, const std::string& client);
  void ReleaseBodies(uint64_t session);

  // Steps the world under its divergence guard. Only on the world's thread: inside a
  // command (StepWorld) or RunTick. Returns the divergence the step was rolled back for.
  std::optional<DivergenceEvent> GuardedStep(World& world);
  // The world was replaced as a whole (a restored snapshot): its divergence guard starts
  // over from it. Only on the world's thread, like GuardedStep.
  void ResetGuard() { guard_.Reset(); }

  // Scheduler side -------------------------------------------------------------------
  // Applies queued commands, steps unless paused, publishes the frame.
  void RunTick();
  bool paused() const;
  double rate_hz() const;
  bool HasPendingCommands() const;
  void AddMissedTicks(uint64_t n);
  void SetWakeCallback(std::function<void()> wake) { wake_ = std::move(wake); }
  // Ends the host: pending and future commands get nullptr, waiters wake.
  void Close();
  bool closed() const;

 private:
  void Publish();
  // The summary's body and constraint counts, from the world as it is now.
  void RefreshCounts(const World& world);

  const std::string name_;
  std::unique_ptr<World> world_;  // touched only in RunTick and the constructor
  std::function<void()> wake_;
  DivergenceGuard guard_;  // touched only where the world is

  mutable std::mutex mu_;
  mutable std::condition_variable frame_cv_;
  std::vector<WorldCommand> queue_;
  std::shared_ptr<const Frame> frame_;
  uint64_t frame_version_ = 0;
  uint64_t withheld_frames_ = 0;  // frames not published for a non-finite number
  struct Owner {
    uint64_t session = 0;
    std::string client;
  };
  std::map<std::string, Owner> owners_;  // body id -> the session driving it
  // Haptic tool candidates, rebuilt at a publication after edits (a restored snapshot
  // counts as one), and the haptic sessions' claims (body id -> session id).
  absl::flat_hash_map<std::string, World::HapticToolFacts> tool_facts_;
  uint64_t tool_facts_edits_ = UINT64_MAX;
  std::map<std::string, std::string> haptic_claims_;
  WorldInfo info_;
  bool closed_ = false;
};

template <typename T>
absl::StatusOr<T> WorldHost::Call(std::function<absl::StatusOr<T>(World&)> fn,
                                  absl::Duration timeout) {
  struct Shared {
    std::mutex mu;
    std::condition_variable cv;
    std::optional<absl::StatusOr<T>> result;
  };
  auto shared = std::make_shared<Shared>();
  const bool queued = Enqueue([this, shared, fn = std::move(fn)](World* world) {
    absl::StatusOr<T> r = world ? fn(*world)
                                : absl::StatusOr<T>(absl::NotFoundError("world was deleted"));
    // The summary counts what the call made before its caller hears back, so that a
    // GetWorld right after an edit sees it (the frame follows at the end of the tick).
    if (world) RefreshCounts(*world);
    std::lock_guard<std::mutex> lock(shared->mu);
    shared->result.emplace(std::move(r));
    shared->cv.notify_all();
  });
  if (!queued) return absl::NotFoundError("world was deleted");
  std::unique_lock<std::mutex> lock(shared->mu);
  if (!shared->cv.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                           [&] { return shared->result.has_value(); })) {
    return absl::DeadlineExceededError("the world did not apply the edit in time");
  }
  return std::move(*shared->result);
}

}  // namespace ligature
