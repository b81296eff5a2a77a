#include "server/world/world_host.h"

namespace ligature {

WorldHost::WorldHost(std::unique_ptr<World> world)
    : name_(world->name()), world_(std::move(world)) {
  Publish();
}

WorldHost::~WorldHost() { Close(); }

bool WorldHost::Enqueue(WorldCommand command) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return false;
    queue_.push_back(std::move(command));
  }
  if (wake_) wake_();
  return true;
}

std::shared_ptr<const Frame> WorldHost::LatestFrame() const {
  std::lock_guard<std::mutex> lock(mu_);
  return frame_;
}

std::shared_ptr<const Frame> WorldHost::WaitForFrame(uint64_t seen_version,
                                                     absl::Duration timeout,
                                                     uint64_t* version, bool* open) const {
  std::unique_lock<std::mutex> lock(mu_);
  frame_cv_.wait_for(lock, absl::ToChronoNanoseconds(timeout),
                     [&] { return closed_ || frame_version_ != seen_version; });
  *version = frame_version_;
  *open = !closed_;
  return frame_;
}

WorldInfo WorldHost::Info() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_;
}

void WorldHost::RunTick() {
  std::vector<WorldCommand> commands;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    commands.swap(queue_);
  }
  // Edits first, in arrival order; then the step unless the world is paused.
  for (WorldCommand& c : commands) c(world_.get());
  const bool advance = !world_->settings().paused;
  if (advance) world_->Step();
  // A paused world's tools see its edits at once.
  if (!advance && !commands.empty()) world_->PublishHapticModels();
  if (advance || !commands.empty()) Publish();
}

// Publishes the World's current state as a new immutable frame and refreshes the summary.
void WorldHost::Publish() {
  auto frame = std::make_shared<const Frame>(world_->MakeFrame());
  std::lock_guard<std::mutex> lock(mu_);
  frame_ = std::move(frame);
  ++frame_version_;
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
           world_->counters()};
  frame_cv_.notify_all();
}

bool WorldHost::paused() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_.settings.paused;
}

double WorldHost::rate_hz() const {
  std::lock_guard<std::mutex> lock(mu_);
  return info_.settings.rate_hz;
}

bool WorldHost::HasPendingCommands() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !queue_.empty();
}

void WorldHost::AddMissedTicks(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  info_.missed_ticks += n;
}

void WorldHost::Close() {
  std::vector<WorldCommand> commands;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    closed_ = true;
    commands.swap(queue_);
    frame_cv_.notify_all();
  }
  for (WorldCommand& c : commands) c(nullptr);
}

bool WorldHost::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

}  // namespace ligature
