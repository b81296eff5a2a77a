#include "server/host/world_host.h"

#include "absl/strings/str_cat.h"

namespace ligature {

WorldHost::WorldHost(std::unique_ptr<World> world, const DivergenceGuardOptions& guard,
                     const EventLog::Limits& events)
    : name_(world->name()), world_(std::move(world)), guard_(guard), events_(events) {
  Publish();
}

WorldHost::~WorldHost() { Close(); }

bool WorldHost::Enqueue(WorldCommand command) {
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return false;
    queue_.push_back(std::move(command));
  }
  if (wake_) wake_();
  return true;
}

std::shared_ptr<const Frame> WorldHost::LatestFrame() const {
  absl::MutexLock lock(&mu_);
  return frame_;
}

std::shared_ptr<const Frame> WorldHost::WaitForFrame(uint64_t seen_version,
                                                     absl::Duration timeout,
                                                     uint64_t* version, bool* open) const {
  // Until a newer publication or Close (both signal frame_cv_), or the deadline.
  absl::MutexLock lock(&mu_);
  const absl::Time deadline = absl::Now() + timeout;
  while (!closed_ && frame_version_ == seen_version) {
    if (frame_cv_.WaitWithDeadline(&mu_, deadline)) break;  // timed out
  }
  *version = frame_version_;
  *open = !closed_;
  return frame_;
}

std::shared_ptr<const SceneQuery> WorldHost::LatestQuery() const {
  std::shared_ptr<const SceneQuery> query;
  {
    absl::MutexLock lock(&mu_);
    query = query_;
  }
  queried_tick_.store(query->frame().tick, std::memory_order_relaxed);
  return query;
}

WorldInfo WorldHost::Info() const {
  absl::MutexLock lock(&mu_);
  WorldInfo info = info_;
  for (const auto& [body, owner] : owners_) info.owners.emplace_back(body, owner.client);
  return info;
}

absl::Status WorldHost::ClaimBody(const std::string& body, uint64_t session,
                                  const std::string& client) {
  absl::MutexLock lock(&mu_);
  auto [it, added] = owners_.try_emplace(body, Owner{session, client});
  if (!added && it->second.session != session) {
    return absl::FailedPreconditionError(absl::StrCat(
        "body ", body, " is driven by another Interact session (", it->second.client,
        ") until its stream ends"));
  }
  return absl::OkStatus();
}

void WorldHost::ReleaseBodies(uint64_t session) {
  absl::MutexLock lock(&mu_);
  std::erase_if(owners_, [&](const auto& entry) { return entry.second.session == session; });
}

absl::StatusOr<World::HapticToolFacts> WorldHost::HapticTool(const std::string& body) const {
  absl::MutexLock lock(&mu_);
  auto it = tool_facts_.find(body);
  if (it != tool_facts_.end()) return it->second;
  for (const BodyState& b : frame_->bodies) {
    if (b.id == body) {
      return absl::FailedPreconditionError(
          absl::StrCat("tool_body_id: ", body, " must be a dynamic rigid body"));
    }
  }
  return absl::NotFoundError(absl::StrCat("tool_body_id: no body ", body, " in ", name_));
}

absl::Status WorldHost::ClaimHapticTool(const std::string& body, const std::string& session) {
  absl::MutexLock lock(&mu_);
  auto [it, added] = haptic_claims_.try_emplace(body, session);
  if (!added && it->second != session) {
    return absl::FailedPreconditionError(
        absl::StrCat("tool_body_id: ", body, " is held by haptic session ", it->second));
  }
  return absl::OkStatus();
}

void WorldHost::ReleaseHapticTool(const std::string& body, const std::string& session) {
  absl::MutexLock lock(&mu_);
  auto it = haptic_claims_.find(body);
  if (it != haptic_claims_.end() && it->second == session) haptic_claims_.erase(it);
}

void WorldHost::RunTick() {
  std::vector<WorldCommand> commands;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    commands.swap(queue_);
  }
  // Edits first, in arrival order; then the step unless the world is paused.
  for (WorldCommand& c : commands) c(world_.get());
  const bool advance = !world_->settings().paused;
  if (advance) GuardedStep(*world_);
  // A paused world's tools see its edits at once.
  if (!advance && !commands.empty()) world_->PublishHapticModels();
  if (advance || !commands.empty()) Publish();
  // The calls among the commands answer now that the publication holds what they made.
  for (const std::function<void()>& reply : replies_) reply();
  replies_.clear();
}

// The world reports events while someone reads them; the step's events go to the log even
// when the step was rolled back (each pair's events stay a consistent sequence, and the
// frame tells of the rollback).
std::optional<DivergenceEvent> WorldHost::GuardedStep(World& world) {
  const EventReporting reporting = events_.Reporting();
  if (reporting != world.event_reporting()) world.SetEventReporting(reporting);
  std::optional<DivergenceEvent> divergence = guard_.Step(&world);
  events_.Append(world.tick(), world.TakeEvents());
  return divergence;
}

// Publishes the World's current state as a new immutable frame and refreshes the summary.
// A frame holding a non-finite number is never published (the guard should have rolled
// the world back; this is the last line): the previous frame stays and it is counted.
void WorldHost::Publish() {
  auto frame = std::make_shared<const Frame>(world_->MakeFrame());
  const bool finite = !FindNonFinite(*frame).has_value();
  // The haptic tool candidates change only with edits (a restored snapshot counts as one).
  const bool refresh_tools = world_->edits() != tool_facts_edits_;
  absl::flat_hash_map<std::string, World::HapticToolFacts> tools;
  if (refresh_tools) {
    for (auto& [id, facts] : world_->HapticToolCandidates()) tools.emplace(std::move(id), facts);
  }
  // Queries see the frame with the geometry of the same moment, rebuilt only after edits.
  if (world_->edits() != query_shapes_edits_) {
    query_shapes_ = std::make_shared<const QueryShapes>(BuildQueryShapes(*world_));
    query_shapes_edits_ = world_->edits();
  }
  auto query = finite ? std::make_shared<const SceneQuery>(frame, query_shapes_) : nullptr;
  // While queries come, their search tree is built here rather than by the first asker.
  const double recent_ticks = world_->settings().rate_hz;  // one second
  const uint64_t queried = queried_tick_.load(std::memory_order_relaxed);
  if (query != nullptr && queried != kNeverQueried &&
      static_cast<double>(frame->tick - queried) <= recent_ticks) {
    query->Prepare();
  }
  absl::MutexLock lock(&mu_);
  if (refresh_tools) {
    tool_facts_ = std::move(tools);
    tool_facts_edits_ = world_->edits();
  }
  if (!finite) ++withheld_frames_;
  if (finite) {
    frame_ = std::move(frame);
    query_ = std::move(query);
    ++frame_version_;
  } else if (frame_ == nullptr) {
    // There must be a frame: the first one goes out without its numbers (nor bodies to ask).
    auto bare = std::make_shared<Frame>();
    bare->world = frame->world;
    bare->tick = frame->tick;
    frame_ = std::move(bare);
    query_ = std::make_shared<const SceneQuery>(frame_, query_shapes_);
    ++frame_version_;
  }
  const uint64_t missed = info_.missed_ticks;
  uint64_t overruns = info_.overruns;
  const StepStats& stats = world_->last_stats();
  if (world_->tick() != info_.tick && stats.step_ms > 1000.0 / world_->settings().rate_hz) {
    ++overruns;
  }
  info_ = {name_,
           world_->settings(),
           world_->tick(),
           world_->sim_time(),
           world_->body_count(),
           world_->constraint_count(),
           missed,
           overruns,
           stats.step_ms,
           world_->counters(),
           {}};
  info_.counters.withheld_frames += withheld_frames_;
  frame_cv_.SignalAll();
}

bool WorldHost::paused() const {
  absl::MutexLock lock(&mu_);
  return info_.settings.paused;
}

double WorldHost::rate_hz() const {
  absl::MutexLock lock(&mu_);
  return info_.settings.rate_hz;
}

bool WorldHost::HasPendingCommands() const {
  absl::MutexLock lock(&mu_);
  return !queue_.empty();
}

void WorldHost::AddMissedTicks(uint64_t n) {
  absl::MutexLock lock(&mu_);
  info_.missed_ticks += n;
}

void WorldHost::Close() {
  events_.Close();
  std::vector<WorldCommand> commands;
  {
    absl::MutexLock lock(&mu_);
    if (closed_) return;
    closed_ = true;
    commands.swap(queue_);
    frame_cv_.SignalAll();
  }
  for (WorldCommand& c : commands) c(nullptr);
}

bool WorldHost::closed() const {
  absl::MutexLock lock(&mu_);
  return closed_;
}

}  // namespace ligature
