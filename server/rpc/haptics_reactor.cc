#include "server/rpc/haptics_reactor.h"

#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "server/haptics/clock.h"
#include "server/haptics/wire/haptics_proto.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

constexpr double kModelPoll = 1e-3;  // s, remote mode: how often new models are looked for
constexpr uint32_t kMaxDatagramCopies = 3;
constexpr uint32_t kDefaultDatagramCopies = 2;

std::atomic<uint64_t> next_haptic_session{1};

}  // namespace

HapticsReactor::HapticsReactor(WorldManager* manager, const std::atomic<bool>* stopping,
                               HapticCounters* counters, absl::StatusOr<Grants> caller,
                               HapticDatagramPort* port)
    : manager_(manager),
      stopping_(stopping),
      counters_(counters),
      caller_(std::move(caller)),
      port_(port) {
  StartRead(&request_);
}

// Validates the first message, claims the tool and resolves the parameters for its mass,
// all from what the world last published, and answers at once: the attach command is only
// queued. Until the world runs it there is no model (poses get zero force, flagged
// stale_model); a refusal by the world ends the stream with it.
absl::Status HapticsReactor::Open(const v1::HapticOpen& open) {
  if (!caller_.ok()) return caller_.status();
  auto id = ParseWorldName(open.world(), "open.world");
  if (!id.ok()) return id.status();
  if (auto s = caller_->Require(*id, Role::kEditor); !s.ok()) return s;
  if (absl::Status s = ValidateId(open.tool_body_id(), "open.tool_body_id"); !s.ok()) return s;
  if (open.mode() != v1::HAPTIC_MODE_UNSPECIFIED && open.mode() != v1::HAPTIC_MODE_SERVER &&
      open.mode() != v1::HAPTIC_MODE_REMOTE) {
    return absl::InvalidArgumentError("open.mode: unknown mode");
  }
  if (open.datagram_copies() > kMaxDatagramCopies) {
    return absl::InvalidArgumentError(
        absl::StrCat("open.datagram_copies: at most ", kMaxDatagramCopies));
  }
  // Ranges first (with a unit mass), so that a bad field never claims the tool.
  const haptics::HapticParams given = HapticParamsFromProto(open);
  if (auto p = haptics::ResolveParams(given, 1.0, 1.0); !p.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("open.", p.status().message()));
  }
  auto host = manager_->Get(*id);
  if (!host.ok()) return host.status();
  auto facts = (*host)->HapticTool(open.tool_body_id());
  if (!facts.ok()) {
    return absl::Status(facts.status().code(), absl::StrCat("open.", facts.status().message()));
  }
  auto params = haptics::ResolveParams(given, facts->mass, facts->min_inertia);
  if (!params.ok()) return params.status();
  const std::string session = absl::StrCat("h", next_haptic_session.fetch_add(1));
  if (absl::Status s = (*host)->ClaimHapticTool(open.tool_body_id(), session); !s.ok()) {
    return absl::Status(s.code(), absl::StrCat("open.", s.message()));
  }
  std::optional<HapticDatagramPort::Session> datagrams;
  if (open.datagrams() && port_ != nullptr) {
    absl::StatusOr<HapticDatagramPort::Session> registered = port_->Register(this);
    if (!registered.ok()) {
      (*host)->ReleaseHapticTool(open.tool_body_id(), session);
      return registered.status();
    }
    datagrams = *registered;
    datagram_session_ = registered->number;
  }
  host_ = *host;
  session_ = session;
  remote_ = open.mode() == v1::HAPTIC_MODE_REMOTE;
  device_id_ = open.device_id();
  tool_ = open.tool_body_id();
  channel_ = std::make_shared<haptics::ToolChannel>(session, device_id_);
  host_->Enqueue([tool = tool_, channel = channel_](World* w) {
    if (w == nullptr) {
      channel->Refuse(absl::NotFoundError("open.world: the world was deleted"));
      return;
    }
    if (absl::Status s = w->AttachHapticTool(tool, channel); !s.ok()) {
      channel->Refuse(absl::Status(s.code(), absl::StrCat("open.", s.message())));
    }
  });
  absl::MutexLock lock(&mu_);
  core_.emplace(*params);
  v1::HapticsResponse opened;
  *opened.mutable_opened()->mutable_params() = open;
  HapticParamsToProto(*params, opened.mutable_opened()->mutable_params());
  datagram_copies_ = open.datagram_copies() == 0 ? kDefaultDatagramCopies : open.datagram_copies();
  opened.mutable_opened()->mutable_params()->set_datagram_copies(datagram_copies_);
  opened.mutable_opened()->set_session_id(session);
  if (datagrams) {
    v1::HapticDatagramOffer* offer = opened.mutable_opened()->mutable_datagrams();
    offer->set_port(port_->port());
    offer->set_key(datagrams->key.data(), datagrams->key.size());
    offer->set_session(datagrams->number);
    datagram_sender_.emplace(datagrams->key, datagrams->number, haptics::Direction::kToClient);
  }
  QueueLocked(std::move(opened));
  // Remote mode: the helper forwards the first model as soon as the world publishes it.
  return absl::OkStatus();
}

void HapticsReactor::OnReadDone(bool ok) {
  const int64_t received = haptics::MonotonicNanos();
  if (!ok) {
    // The client half-closed: end once the replies have gone.
    absl::MutexLock lock(&mu_);
    EndLocked(absl::OkStatus());
    return;
  }
  if (!opened_) {
    absl::Status s = request_.has_open()
                         ? Open(request_.open())
                         : absl::InvalidArgumentError("open: the first message must open the session");
    if (!s.ok()) {
      absl::MutexLock lock(&mu_);
      EndLocked(s);
      return;
    }
    opened_ = true;
    counters_->open.fetch_add(1);
    helper_ = std::thread([this] { HelperLoop(); });
  } else if (request_.has_pose()) {
    HandlePose(request_.pose(), received, nullptr);
  } else {
    absl::MutexLock lock(&mu_);
    EndLocked(absl::InvalidArgumentError("pose: expected a pose after the open message"));
    return;
  }
  StartRead(&request_);
}

// A pose or the client's close, on the port's thread.
void HapticsReactor::OnDatagram(const v1::HapticDatagram& datagram, int64_t received_ns,
                                const DatagramPeer& from) {
  if (datagram.has_pose()) {
    HandlePose(datagram.pose(), received_ns, &from);
    return;
  }
  absl::MutexLock lock(&mu_);
  datagrams_closed_ = true;
  last_pose_by_datagram_ = false;
}

// The force for one pose, from the newest model, sent at once on the pose's route.
void HapticsReactor::HandlePose(const v1::HapticPose& msg, int64_t received_ns,
                                const DatagramPeer* from) {
  haptics::DevicePose pose = DevicePoseFromProto(msg);
  const double now = haptics::MonotonicSeconds();
  absl::MutexLock lock(&mu_);
  // The client closed the datagram channel: what still arrives there is ignored. Of the
  // copies of one pose only the first is taken.
  if (from != nullptr && (datagrams_closed_ || msg.sequence() == last_datagram_pose_)) return;
  if (from != nullptr) last_datagram_pose_ = msg.sequence();
  counters_->poses.fetch_add(1, std::memory_order_relaxed);
  if (from != nullptr) counters_->datagram_poses.fetch_add(1, std::memory_order_relaxed);
  if (std::optional<int64_t> j = jitter_.OnArrival(received_ns)) timing().jitter.Record(*j);
  if (end_) return;
  last_pose_by_datagram_ = from != nullptr;
  if (from != nullptr) datagram_peer_ = *from;
  if (std::optional<absl::Status> refused = channel_->refusal()) {
    EndLocked(*refused);
    return;
  }
  const auto model = channel_->model();
  if (model != nullptr && model->tool_removed) {
    EndLocked(absl::NotFoundError(absl::StrCat("tool ", tool_, " was removed")));
    return;
  }
  core_->SetModel(model);
  haptics::HapticReply reply;
  if (!msg.device_id().empty() && msg.device_id() != device_id_) {
    reply.sequence = pose.sequence;
    reply.client_time = pose.client_time;
    reply.rejected_pose = true;
  } else if (remote_) {
    const Vec3 f(msg.rendered_force().x(), msg.rendered_force().y(), msg.rendered_force().z());
    const Vec3 t(msg.rendered_torque().x(), msg.rendered_torque().y(),
                 msg.rendered_torque().z());
    reply = core_->OnRemotePose(pose, f, t, now);
  } else {
    reply = core_->OnPose(pose, now);
  }
  if (reply.rejected_pose) {
    counters_->rejected.fetch_add(1, std::memory_order_relaxed);
  } else {
    channel_->AddCoupling(reply.world_force, reply.world_torque, reply.world_weight);
    channel_->SetDevice({pose.position, pose.orientation}, pose.buttons, reply.contacts, false);
  }
  // Remote mode answers only refused poses on the stream (the client computes its own
  // forces), and every datagram pose with an acknowledgement of zero force, so that the
  // client knows its datagrams arrive.
  if (remote_ && !reply.rejected_pose) {
    if (from == nullptr) return;
    reply.force = Vec3::Zero();
    reply.torque = Vec3::Zero();
  }
  v1::HapticForce out;
  HapticReplyToProto(reply, &out);
  out.set_server_receive_ns(received_ns);
  ReplyLocked(std::move(out));
  // Wake the helper only when the watchdog's deadline is now before its planned wake-up
  // (after a trip): a pose otherwise only moves the deadline later, and waking a thread for
  // every pose costs a context switch on the pose's path.
  if (core_->NextIdleTime(now) < helper_wake_) cv_.SignalAll();
}

// Replies to poses carry their arrival time (watchdog replies carry zero): the gap to now is
// the server's round trip for that pose.
void HapticsReactor::StampSendLocked(v1::HapticForce* force) {
  const int64_t send_ns = haptics::MonotonicNanos();
  force->set_server_send_ns(send_ns);
  if (force->server_receive_ns() != 0) {
    timing().round_trip.Record(send_ns - force->server_receive_ns());
  }
}

void HapticsReactor::ReplyLocked(v1::HapticForce force) {
  if (!last_pose_by_datagram_) {
    v1::HapticsResponse out;
    *out.mutable_force() = std::move(force);
    QueueLocked(std::move(out));
    return;
  }
  StampSendLocked(&force);
  v1::HapticDatagram datagram;
  *datagram.mutable_force() = std::move(force);
  SendDatagramLocked(datagram);
}

// Each copy is sealed apart (its own sequence number), so that the receiver takes the first
// to arrive and drops none of the others as a replay it would have to count.
void HapticsReactor::SendDatagramLocked(const v1::HapticDatagram& datagram) {
  if (!datagram_sender_ || !datagram_peer_) return;
  const std::string payload = datagram.SerializeAsString();
  for (uint32_t copy = 0; copy < datagram_copies_; ++copy) {
    absl::StatusOr<std::string> sealed = datagram_sender_->Seal(haptics::MonotonicNanos(), payload);
    if (sealed.ok()) {
      port_->Send(*datagram_peer_, *sealed);
    } else {
      port_->CountSendFailure();
    }
  }
}

void HapticsReactor::QueueLocked(v1::HapticsResponse message) {
  if (finished_) return;
  queue_.push_back(std::move(message));
  if (!write_in_flight_) StartNextWriteLocked();
}

void HapticsReactor::StartNextWriteLocked() {
  if (queue_.empty()) {
    if (end_ && !finished_) {
      finished_ = true;
      Finish(ToGrpcStatus(*end_));
    }
    return;
  }
  writing_ = std::move(queue_.front());
  queue_.pop_front();
  if (writing_.has_force()) StampSendLocked(writing_.mutable_force());
  write_in_flight_ = true;
  StartWrite(&writing_);
}

void HapticsReactor::OnWriteDone(bool ok) {
  absl::MutexLock lock(&mu_);
  write_in_flight_ = false;
  if (!ok) {
    queue_.clear();
    EndLocked(absl::CancelledError("the client went away"));
    return;
  }
  StartNextWriteLocked();
}

// Ends the session; a client on the datagram channel is told so there, so that it turns to
// the stream for the status.
void HapticsReactor::EndLocked(const absl::Status& status) {
  if (!end_ && !datagrams_closed_ && datagram_peer_) {
    v1::HapticDatagram close;
    close.set_close(true);
    SendDatagramLocked(close);
  }
  if (!end_) end_ = status;
  done_ = true;
  cv_.SignalAll();
  if (!write_in_flight_) StartNextWriteLocked();
}

void HapticsReactor::OnCancel() {
  absl::MutexLock lock(&mu_);
  queue_.clear();
  EndLocked(absl::CancelledError("cancelled by the client"));
}

// The watchdog, and in remote mode the model forwarding, until the stream ends.
void HapticsReactor::HelperLoop() {
  absl::MutexLock lock(&mu_);
  bool tripped = false;
  while (!done_) {
    if (stopping_->load()) {
      EndLocked(absl::UnavailableError("the server is shutting down"));
      break;
    }
    const double now = haptics::MonotonicSeconds();
    // Watchdog replies (server mode) and the world's release of the coupling (both modes).
    if (std::optional<haptics::HapticReply> r = core_->Idle(now)) {
      if (!tripped) counters_->watchdog_trips.fetch_add(1, std::memory_order_relaxed);
      tripped = true;
      channel_->SetDevice(channel_->display().device_pose, 0, 0, true);
      if (!remote_) {
        v1::HapticForce out;
        HapticReplyToProto(*r, &out);
        out.set_server_receive_ns(0);
        ReplyLocked(std::move(out));
      }
    } else if (!core_->released()) {
      tripped = false;
    }
    if (std::optional<absl::Status> refused = channel_->refusal()) {
      EndLocked(*refused);
      break;
    }
    const auto model = channel_->model();
    if (model != nullptr && model->tool_removed) {
      EndLocked(absl::NotFoundError(absl::StrCat("tool ", tool_, " was removed")));
      break;
    }
    if (remote_ && model != nullptr && model->tick != sent_model_tick_) {
      v1::HapticsResponse m;
      LocalModelToProto(*model, m.mutable_model());
      sent_model_tick_ = model->tick;
      QueueLocked(std::move(m));
    }
    double wake = core_->NextIdleTime(now);
    // Look for new models (remote), a removed tool and a server stop now and then.
    wake = std::min(wake, now + (remote_ ? kModelPoll : 0.05));
    helper_wake_ = wake;
    cv_.WaitWithTimeout(&mu_, absl::Seconds(std::max(0.0, wake - now)));
    helper_wake_ = -std::numeric_limits<double>::infinity();
  }
}

void HapticsReactor::OnDone() {
  {
    absl::MutexLock lock(&mu_);
    done_ = true;
    cv_.SignalAll();
  }
  if (helper_.joinable()) helper_.join();
  if (datagram_session_ != 0) port_->Unregister(datagram_session_);
  if (opened_) counters_->open.fetch_sub(1);
  // Release the tool: the world stops taking this session's coupling. The detach is
  // queued before the claim goes, so that a next session's attach comes after it.
  if (host_ != nullptr && channel_ != nullptr) {
    host_->Enqueue([tool = tool_, channel = channel_](World* w) {
      if (w) w->DetachHapticTool(tool, channel.get());
    });
    host_->ReleaseHapticTool(tool_, session_);
  }
  delete this;
}

}  // namespace ligature
