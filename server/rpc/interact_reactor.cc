#include "server/rpc/interact_reactor.h"

#include "absl/strings/str_cat.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/scene/constraint_update.h"
#include "server/scene/scene_proto.h"

namespace ligature {

namespace {
std::atomic<uint64_t> next_interact_session{1};
}  // namespace

InteractReactor::InteractReactor(WorldManager* manager, const std::atomic<bool>* stopping,
                                 SessionCounters* counters, std::string peer,
                                 absl::StatusOr<Grants> caller)
    : manager_(manager),
      stopping_(stopping),
      counters_(counters),
      session_(next_interact_session.fetch_add(1)),
      peer_(std::move(peer)),
      caller_(std::move(caller)) {
  StartRead(&request_);
}

absl::Status InteractReactor::Start(const v1::InteractRequest& first) {
  if (!caller_.ok()) return caller_.status();
  auto id = ParseWorldName(first.world(), "world");
  if (!id.ok()) return id.status();
  if (auto s = caller_->Require(*id, Role::kEditor); !s.ok()) return s;
  auto host = manager_->Get(*id);
  if (!host.ok()) return host.status();
  host_ = *host;
  auto options =
      MakeFrameStreamOptions(*host_->LatestFrame(), first.max_rate_hz(), first.body_ids());
  if (!options.ok()) return options.status();
  options_ = std::move(*options);
  return absl::OkStatus();
}

// Validates each pose, then queues it; the world reports unknown or non-kinematic bodies
// through the shared state, and the first such error ends the stream.
absl::Status InteractReactor::QueuePoses(const v1::InteractRequest& msg) {
  for (int i = 0; i < msg.poses_size(); ++i) {
    const v1::DevicePose& p = msg.poses(i);
    const std::string field = absl::StrCat("poses[", i, "]");
    if (auto s = ValidateId(p.body_id(), field + ".body_id"); !s.ok()) return s;
    auto pose = PoseFromProto(p.pose(), field + ".pose");
    if (!pose.ok()) return pose.status();
    // The body is this session's until its stream ends.
    if (auto s = host_->ClaimBody(p.body_id(), session_, peer_); !s.ok()) return s;
    const bool queued =
        host_->Enqueue([shared = shared_, body = p.body_id(), pose = *pose](World* w) {
          if (w == nullptr) return;
          if (absl::Status s = w->SetDeviceTarget(body, pose); !s.ok()) {
            absl::MutexLock lock(&shared->mu);
            if (shared->error.ok()) shared->error = s;
            shared->cv.SignalAll();
          }
        });
    if (!queued) return absl::NotFoundError(absl::StrCat(host_->name(), " was deleted"));
    counters_->device_poses.fetch_add(1, std::memory_order_relaxed);
  }
  return QueueDriveTargets(msg);
}

// Each drive target is queued with its constraint's id checked; the world applies it to the
// joint as it then is (RetargetedConstraint), and the first failure ends the stream.
absl::Status InteractReactor::QueueDriveTargets(const v1::InteractRequest& msg) {
  for (int i = 0; i < msg.drive_targets_size(); ++i) {
    const std::string field = absl::StrCat("drive_targets[", i, "]");
    const v1::DriveTarget& target = msg.drive_targets(i);
    if (auto s = ValidateId(target.constraint_id(), field + ".constraint_id"); !s.ok()) return s;
    const bool queued = host_->Enqueue([shared = shared_, target, field](World* w) {
      if (w == nullptr) return;
      auto current = w->JointDesc(target.constraint_id());
      auto updated = current.ok() ? RetargetedConstraint(*current, target, field)
                                  : absl::StatusOr<ConstraintDesc>(current.status());
      const absl::Status s =
          updated.ok() ? w->UpdateJoint(target.constraint_id(), *updated, /*edit=*/false)
                       : updated.status();
      if (!s.ok()) {
        absl::MutexLock lock(&shared->mu);
        if (shared->error.ok()) shared->error = s;
        shared->cv.SignalAll();
      }
    });
    if (!queued) return absl::NotFoundError(absl::StrCat(host_->name(), " was deleted"));
  }
  return absl::OkStatus();
}

void InteractReactor::OnReadDone(bool ok) {
  if (!ok) {
    // The client half-closed (or the call is going away): the writer ends the stream.
    absl::MutexLock lock(&shared_->mu);
    shared_->client_done = true;
    shared_->cv.SignalAll();
    if (!started_) Finish(grpc::Status::OK);
    return;
  }
  if (!started_) {
    if (absl::Status s = Start(request_); !s.ok()) {
      Finish(ToGrpcStatus(s));
      return;
    }
    started_ = true;
    writer_ = std::thread([this] { WriterLoop(); });
  }
  if (absl::Status s = QueuePoses(request_); !s.ok()) {
    absl::MutexLock lock(&shared_->mu);
    if (shared_->error.ok()) shared_->error = s;
    shared_->cv.SignalAll();
    return;  // no further reads: the writer finishes with this error
  }
  StartRead(&request_);
}

bool InteractReactor::WriteAndWait(const v1::Frame& frame) {
  {
    absl::MutexLock lock(&shared_->mu);
    if (shared_->cancelled) return false;
    shared_->write_pending = true;
  }
  out_ = frame;
  StartWrite(&out_);
  // Until OnWriteDone reports this write.
  absl::MutexLock lock(&shared_->mu);
  while (shared_->write_pending) shared_->cv.Wait(&shared_->mu);
  return shared_->write_ok;
}

void InteractReactor::OnWriteDone(bool ok) {
  absl::MutexLock lock(&shared_->mu);
  shared_->write_pending = false;
  shared_->write_ok = ok;
  shared_->cv.SignalAll();
}

void InteractReactor::OnCancel() {
  absl::MutexLock lock(&shared_->mu);
  shared_->cancelled = true;
  shared_->cv.SignalAll();
}

void InteractReactor::WriterLoop() {
  absl::Status result = StreamFrames(
      *host_, options_, [this](const v1::Frame& f) { return WriteAndWait(f); },
      [this]() -> absl::Status {
        absl::MutexLock lock(&shared_->mu);
        if (shared_->cancelled) return absl::CancelledError("cancelled by the client");
        if (!shared_->error.ok()) return shared_->error;
        if (shared_->client_done) return absl::CancelledError("");
        return absl::OkStatus();
      },
      *stopping_, &counters_->interact);
  AwaitQueuedPoses();
  bool client_done;
  {
    absl::MutexLock lock(&shared_->mu);
    client_done = shared_->client_done && shared_->error.ok() && !shared_->cancelled;
    // A pose the world refused ends the stream with that refusal, even after a half-close.
    if (!shared_->error.ok()) result = shared_->error;
  }
  // The stream is over: the bodies it drove are free for others.
  host_->ReleaseBodies(session_);
  // A client that half-closed ended the session normally.
  Finish(client_done ? grpc::Status::OK : ToGrpcStatus(result));
}

void InteractReactor::AwaitQueuedPoses() {
  {
    absl::MutexLock lock(&shared_->mu);
    if (!shared_->client_done || !shared_->error.ok() || shared_->cancelled) return;
  }
  // The world runs its queue in order (a paused world is woken for it): once this call
  // has run, every pose queued before it has, and any refusal is in shared_->error.
  (void)host_->Call<bool>([](World&) -> absl::StatusOr<bool> { return true; },
                          absl::Seconds(2));
}

void InteractReactor::OnDone() {
  if (writer_.joinable()) writer_.join();
  if (host_ != nullptr) host_->ReleaseBodies(session_);
  delete this;
}

}  // namespace ligature
