#include "clients/cpp/haptic_session.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "clients/cpp/status_util.h"
#include "server/haptics/clock.h"
#include "server/haptics/wire/haptics_proto.h"

namespace ligature::client {

absl::StatusOr<std::unique_ptr<HapticSession>> HapticSession::Open(
    std::shared_ptr<grpc::Channel> channel, const ligature::v1::HapticOpen& open,
    HapticSessionOptions options) {
  if (open.datagrams() && options.datagram_host.empty()) {
    return absl::InvalidArgumentError("datagram_host: needed for open.datagrams");
  }
  std::unique_ptr<HapticSession> s(new HapticSession());
  s->options_ = std::move(options);
  s->stub_ = ligature::v1::HapticsService::NewStub(channel);
  s->remote_ = open.mode() == ligature::v1::HAPTIC_MODE_REMOTE;
  s->stream_ = s->stub_->Haptics(&s->context_);
  *s->request_.mutable_open() = open;
  if (!s->stream_->Write(s->request_) || !s->stream_->Read(&s->response_) ||
      !s->response_.has_opened()) {
    s->stream_->WritesDone();
    const grpc::Status status = s->stream_->Finish();
    s->closed_ = true;
    if (status.ok()) return absl::UnavailableError("the server ended the haptics stream");
    return ToAbslStatus(status);
  }
  s->params_ = s->response_.opened().params();
  s->session_id_ = s->response_.opened().session_id();
  if (s->response_.opened().has_datagrams()) {
    auto link =
        HapticDatagramLink::Connect(s->options_.datagram_host, s->response_.opened().datagrams());
    if (!link.ok()) {
      (void)s->Close();
      return link.status();
    }
    s->link_ = *std::move(link);
    s->copies_ = std::max<int>(1, s->params_.datagram_copies());
  }
  if (s->remote_) {
    auto params = haptics::ResolveParams(HapticParamsFromProto(s->params_), 1.0, 1.0);
    if (!params.ok()) return params.status();
    s->core_ = std::make_unique<haptics::HapticCore>(*params);
    s->core_->SetRemoteResync(haptics::kRemoteResyncBlend);
    s->reader_ = std::thread([raw = s.get()] { raw->ReadModels(); });
  }
  return s;
}

HapticSession::~HapticSession() {
  if (link_) FallBack(true);
  if (!closed_) {
    context_.TryCancel();
    if (reader_.joinable()) reader_.join();
  }
}

// Remote mode: every new model replaces the last; its age is measured from its arrival.
void HapticSession::ReadModels() {
  ligature::v1::HapticsResponse in;
  while (stream_->Read(&in)) {
    if (!in.has_model()) continue;  // replies to refused poses
    auto model = LocalModelFromProto(in.model());
    if (!model.ok()) {
      absl::MutexLock lock(&status_mu_);
      read_error_ = model.status();
      continue;
    }
    (*model)->published_at = haptics::MonotonicSeconds();
    model_.store(std::move(*model));
  }
}

uint64_t HapticSession::model_tick() const {
  const auto m = model_.load();
  return m ? m->tick : 0;
}

absl::StatusOr<haptics::HapticReply> HapticSession::Force(const haptics::DevicePose& pose) {
  if (closed_) return absl::FailedPreconditionError("the session is closed");
  request_.Clear();
  ligature::v1::HapticPose* p = request_.mutable_pose();
  DevicePoseToProto(pose, p);
  if (remote_) {
    // Solve here, from the newest model; the pose goes on with what was rendered.
    const auto model = model_.load();
    if (model && model->tool_removed) return absl::NotFoundError("the tool was removed");
    core_->SetModel(model);
    haptics::HapticReply reply = core_->OnPose(pose, haptics::MonotonicSeconds());
    p->mutable_rendered_force()->set_x(reply.force.x());
    p->mutable_rendered_force()->set_y(reply.force.y());
    p->mutable_rendered_force()->set_z(reply.force.z());
    p->mutable_rendered_torque()->set_x(reply.torque.x());
    p->mutable_rendered_torque()->set_y(reply.torque.y());
    p->mutable_rendered_torque()->set_z(reply.torque.z());
    if (reply.rejected_pose) return reply;
    const double now = haptics::MonotonicSeconds();
    if (link_) {
      // Acknowledgements only show that datagrams arrive; take what has come.
      while (link_) {
        std::optional<ligature::v1::HapticDatagram> in = link_->Receive(0.0);
        if (!in) break;
        TakeDatagram(*in, now);
      }
      FallBackWhenSilent(now);
    }
    if (link_) {
      *outgoing_.mutable_pose() = *p;
      SendByDatagram(now);
    } else if (!stream_->Write(request_)) {
      return absl::UnavailableError("the haptics stream is closed");
    }
    return reply;
  }
  if (link_) return ForceByDatagram(pose);
  return ForceOnStream(pose);
}

absl::StatusOr<haptics::HapticReply> HapticSession::ForceByDatagram(
    const haptics::DevicePose& pose) {
  const double start = haptics::MonotonicSeconds();
  *outgoing_.mutable_pose() = request_.pose();
  SendByDatagram(start);
  const double deadline = start + options_.reply_wait;
  const double spin_until = start + options_.reply_spin;
  while (link_) {
    std::optional<ligature::v1::HapticDatagram> in = link_->Receive(deadline, spin_until);
    if (!in) break;
    TakeDatagram(*in, haptics::MonotonicSeconds());
    if (newest_ && newest_->sequence == pose.sequence && !newest_->watchdog) return *newest_;
  }
  const double now = haptics::MonotonicSeconds();
  // The server closed the channel (its stream tells why) or has gone quiet: the stream.
  FallBackWhenSilent(now);
  if (!link_) return ForceOnStream(pose);
  // Lost on the way: the newest force holds until the watchdog timeout, then zero.
  haptics::HapticReply held = newest_.value_or(haptics::HapticReply{});
  if (!newest_ || now - newest_at_ > params_.watchdog_timeout_ms() * 1e-3) {
    held.force = Vec3::Zero();
    held.torque = Vec3::Zero();
    held.watchdog = true;
  }
  return held;
}

void HapticSession::SendByDatagram(double now) {
  if (unanswered_since_ == 0.0) unanswered_since_ = now;
  link_->Send(outgoing_, copies_);
}

void HapticSession::FallBackWhenSilent(double now) {
  if (link_ && unanswered_since_ != 0.0 && now - unanswered_since_ > options_.fallback_after) {
    FallBack(true);
  }
}

void HapticSession::TakeDatagram(const ligature::v1::HapticDatagram& datagram, double now) {
  unanswered_since_ = 0.0;
  if (datagram.has_close()) {
    FallBack(false);
    return;
  }
  if (!datagram.has_force()) return;
  newest_ = HapticReplyFromProto(datagram.force());
  newest_at_ = now;
}

void HapticSession::FallBack(bool tell_server) {
  if (tell_server) {
    ligature::v1::HapticDatagram close;
    close.set_close(true);
    link_->Send(close, copies_);
  }
  counts_ = link_->counts();
  link_.reset();
}

absl::StatusOr<haptics::HapticReply> HapticSession::ForceOnStream(const haptics::DevicePose& pose) {
  // A write fails once the server has ended the stream: its status says why.
  if (!stream_->Write(request_)) return Ended();
  // The reply for this pose; watchdog messages sent meanwhile are skipped.
  while (stream_->Read(&response_)) {
    if (!response_.has_force()) continue;
    const ligature::v1::HapticForce& f = response_.force();
    if (f.watchdog() || f.sequence() != pose.sequence) continue;
    return HapticReplyFromProto(f);
  }
  return Ended();
}

absl::Status HapticSession::Ended() {
  while (stream_->Read(&response_)) {
  }
  closed_ = true;
  const grpc::Status status = stream_->Finish();
  return status.ok() ? absl::UnavailableError("the server ended the haptics stream")
                     : ToAbslStatus(status);
}

absl::Status HapticSession::Close() {
  if (link_) FallBack(true);
  if (closed_) return absl::OkStatus();
  closed_ = true;
  stream_->WritesDone();
  if (reader_.joinable()) {
    reader_.join();
  } else {
    while (stream_->Read(&response_)) {
    }
  }
  const grpc::Status status = stream_->Finish();
  return status.ok() ? absl::OkStatus() : ToAbslStatus(status);
}

}  // namespace ligature::client
