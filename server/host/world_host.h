#pragma once
// A world as the service sees it: the World itself, owned by whichever scheduler worker is
// ticking it, plus the thread-safe surfaces around it. RPC threads never touch the World:
// they enqueue commands, which the world's tick applies in arrival order before stepping,
// and they read immutable published frames.
//
// Threading: `mu_` (an absl::Mutex; the members it guards say so with ABSL_GUARDED_BY)
// guards the command queue, the published frame, the summary and its counters, body
// ownership and the haptic tools; `frame_cv_` is signalled under it at each publication and
// at Close. The World and the divergence guard are touched only inside RunTick() (and the
// commands it runs), which the scheduler never runs concurrently for one host.

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "server/host/divergence_guard.h"
#include "server/host/event_log.h"
#include "server/world/frame.h"
#include "server/world/query/scene_query.h"
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
  explicit WorldHost(std::unique_ptr<World> world, const DivergenceGuardOptions& guard = {},
                     const EventLog::Limits& events = {});
  ~WorldHost();

  const std::string& name() const { return name_; }

  // Queues a command for the start of the next tick; returns false when closed.
  bool Enqueue(WorldCommand command) ABSL_LOCKS_EXCLUDED(mu_);

  // Queues `fn` and waits for its result (or `timeout`). The result comes back once the
  // tick that ran `fn` has published, so that the caller's next read (GetWorld, a frame, a
  // haptic tool) sees what `fn` made. The scheduler is woken through the callback set by
  // SetWakeCallback so that paused worlds apply edits promptly.
  template <typename T>
  absl::StatusOr<T> Call(std::function<absl::StatusOr<T>(World&)> fn, absl::Duration timeout)
      ABSL_LOCKS_EXCLUDED(mu_);

  // The newest frame (never null after construction).
  std::shared_ptr<const Frame> LatestFrame() const ABSL_LOCKS_EXCLUDED(mu_);
  // Blocks until a frame with a tick other than `seen_tick` (or a newer publication) is
  // out, the host closes, or `timeout` passes. Returns the newest frame and whether open.
  std::shared_ptr<const Frame> WaitForFrame(uint64_t seen_version, absl::Duration timeout,
                                            uint64_t* version, bool* open) const
      ABSL_LOCKS_EXCLUDED(mu_);
  WorldInfo Info() const ABSL_LOCKS_EXCLUDED(mu_);
  // Scene queries against the newest frame (never null after construction): its poses with
  // the geometry of the same publication.
  std::shared_ptr<const SceneQuery> LatestQuery() const ABSL_LOCKS_EXCLUDED(mu_);

  // Haptic tools, answered without waiting for the world: the mass properties of dynamic
  // rigid body `body` as of the newest publication (NOT_FOUND when there is no such body,
  // FAILED_PRECONDITION when it is not a dynamic rigid body), and the claim of a tool by
  // haptic session `session` (FAILED_PRECONDITION naming the holder when another session
  // holds it) until ReleaseHapticTool. The world's attach command checks again.
  absl::StatusOr<World::HapticToolFacts> HapticTool(const std::string& body) const
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status ClaimHapticTool(const std::string& body, const std::string& session)
      ABSL_LOCKS_EXCLUDED(mu_);
  void ReleaseHapticTool(const std::string& body, const std::string& session)
      ABSL_LOCKS_EXCLUDED(mu_);

  // Device ownership: the Interact session `session` (from client `client`) drives body
  // `body` and owns it until ReleaseBodies; FAILED_PRECONDITION when another session owns it.
  absl::Status ClaimBody(const std::string& body, uint64_t session, const std::string& client)
      ABSL_LOCKS_EXCLUDED(mu_);
  void ReleaseBodies(uint64_t session) ABSL_LOCKS_EXCLUDED(mu_);

  // The world's contact and trigger events for the streams that read them (thread-safe).
  // The world reports events while the log has readers.
  EventLog& events() { return events_; }

  // Steps the world under its divergence guard, then logs the tick's events. Only on the
  // world's thread: inside a command (StepWorld) or RunTick. Returns the divergence the
  // step was rolled back for.
  std::optional<DivergenceEvent> GuardedStep(World& world);
  // The world was replaced as a whole (a restored snapshot): its divergence guard starts
  // over from it. Only on the world's thread, like GuardedStep.
  void ResetGuard() { guard_.Reset(); }

  // Scheduler side -------------------------------------------------------------------
  // Applies queued commands, steps unless paused, publishes the frame.
  void RunTick() ABSL_LOCKS_EXCLUDED(mu_);
  bool paused() const ABSL_LOCKS_EXCLUDED(mu_);
  double rate_hz() const ABSL_LOCKS_EXCLUDED(mu_);
  bool HasPendingCommands() const ABSL_LOCKS_EXCLUDED(mu_);
  void AddMissedTicks(uint64_t n) ABSL_LOCKS_EXCLUDED(mu_);
  void SetWakeCallback(std::function<void()> wake) { wake_ = std::move(wake); }
  // Ends the host: pending and future commands get nullptr, waiters wake.
  void Close() ABSL_LOCKS_EXCLUDED(mu_);
  bool closed() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Publish() ABSL_LOCKS_EXCLUDED(mu_);

  const std::string name_;
  std::unique_ptr<World> world_;  // touched only in RunTick and the constructor
  // The answers of this tick's calls, given once the tick has published (world thread only).
  std::vector<std::function<void()>> replies_;
  // Set by the scheduler when it takes the host (Scheduler::Add), read without the lock:
  // Enqueue calls it after releasing mu_, since the scheduler's lock is taken inside it.
  std::function<void()> wake_;
  DivergenceGuard guard_;  // touched only where the world is
  EventLog events_;

  mutable absl::Mutex mu_;
  mutable absl::CondVar frame_cv_;  // signalled under mu_ at each publication and at Close
  std::vector<WorldCommand> queue_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<const Frame> frame_ ABSL_GUARDED_BY(mu_);
  uint64_t frame_version_ ABSL_GUARDED_BY(mu_) = 0;
  // Frames not published for a non-finite number.
  uint64_t withheld_frames_ ABSL_GUARDED_BY(mu_) = 0;
  struct Owner {
    uint64_t session = 0;
    std::string client;
  };
  // Body id -> the session driving it.
  std::map<std::string, Owner> owners_ ABSL_GUARDED_BY(mu_);
  // Haptic tool candidates, rebuilt at a publication after edits (a restored snapshot
  // counts as one), and the haptic sessions' claims (body id -> session id).
  absl::flat_hash_map<std::string, World::HapticToolFacts> tool_facts_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> haptic_claims_ ABSL_GUARDED_BY(mu_);
  // The world's edit count at the last rebuild of tool_facts_. Not guarded: only Publish
  // touches it, where the world is.
  uint64_t tool_facts_edits_ = UINT64_MAX;
  // The bodies' geometry for queries, rebuilt at a publication after edits, and the scene
  // query of the newest frame. The geometry and its edit count are touched only in Publish.
  std::shared_ptr<const QueryShapes> query_shapes_;
  uint64_t query_shapes_edits_ = UINT64_MAX;
  std::shared_ptr<const SceneQuery> query_ ABSL_GUARDED_BY(mu_);
  // The tick of the newest frame a query was asked of (kNeverQueried before the first):
  // while queries come (within the last second of ticks), Publish builds each frame's search
  // tree on the world's thread.
  static constexpr uint64_t kNeverQueried = UINT64_MAX;
  mutable std::atomic<uint64_t> queried_tick_{kNeverQueried};
  WorldInfo info_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

template <typename T>
absl::StatusOr<T> WorldHost::Call(std::function<absl::StatusOr<T>(World&)> fn,
                                  absl::Duration timeout) {
  // The caller and the command (which may run after the caller gave up waiting) share the
  // result; `mu` guards it, and the caller waits for it with Await.
  struct Shared {
    absl::Mutex mu;
    std::optional<absl::StatusOr<T>> result ABSL_GUARDED_BY(mu);
    bool ready ABSL_GUARDED_BY(mu) = false;
    bool has_result() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return ready; }
    void Answer() ABSL_LOCKS_EXCLUDED(mu) {
      absl::MutexLock lock(&mu);
      ready = true;
    }
  };
  auto shared = std::make_shared<Shared>();
  const bool queued = Enqueue([this, shared, fn = std::move(fn)](World* world) {
    absl::StatusOr<T> r = world ? fn(*world)
                                : absl::StatusOr<T>(absl::NotFoundError("world was deleted"));
    {
      absl::MutexLock lock(&shared->mu);
      shared->result.emplace(std::move(r));
    }
    // A closed world answers at once; a running one after its tick's publication.
    if (world == nullptr) {
      shared->Answer();
    } else {
      replies_.push_back([shared] { shared->Answer(); });
    }
  });
  if (!queued) return absl::NotFoundError("world was deleted");
  // The result, or a timeout when the world has not run the command by then.
  absl::MutexLock lock(&shared->mu);
  if (!shared->mu.AwaitWithTimeout(absl::Condition(shared.get(), &Shared::has_result),
                                   timeout)) {
    return absl::DeadlineExceededError("the world did not apply the edit in time");
  }
  return std::move(*shared->result);
}

}  // namespace ligature
