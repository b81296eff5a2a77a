// The haptic datagram channel over real UDP on loopback: forces by datagram, what forged,
// replayed and foreign datagrams come to (dropped, counted, never applied), the watchdog
// and clamps over datagrams, both ends closing, and the client's fallback to the stream.

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "clients/cpp/haptic_session.h"
#include "ligature/v1/haptics_service.grpc.pb.h"
#include "server/haptics/datagram/datagram_endpoint.h"
#include "server/haptics/wire/haptics_proto.h"
#include "tests/integration/haptic_scene.h"

namespace ligature::testing {
namespace {

using client::HapticSession;
using client::HapticSessionOptions;

HapticSessionOptions OnLoopback() {
  HapticSessionOptions options;
  options.datagram_host = "127.0.0.1";
  options.reply_wait = 0.5;  // generous: a loaded test machine, and no loss on loopback
  options.fallback_after = 2.0;  // only the blocked channel's test means to fall back
  return options;
}

v1::HapticOpen WithDatagrams(v1::HapticOpen open) {
  open.set_datagrams(true);
  return open;
}

class HapticDatagramTest : public ProbeWorldTest {
 protected:
  const DatagramCounters& PortCounts() { return server_->haptics().datagrams; }
};

TEST_F(HapticDatagramTest, PosesByDatagramGetTheirForcesByDatagram) {
  auto session = HapticSession::Open(channel_, WithDatagrams(OpenFor("probe")), OnLoopback());
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_EQ((*session)->transport(), HapticSession::Transport::kDatagrams);
  const double limit = (*session)->params().force_limit();
  haptics::HapticReply last;
  // Down to 1 cm into the floor over 0.3 s, then hold 0.3 s, at about 1 kHz.
  for (uint64_t i = 1; i <= 600; ++i) {
    const double y = 0.03 - std::min(1.0, i / 300.0) * 0.04;
    auto r = (*session)->Force(PoseAt(i, y));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->sequence, i);
    ASSERT_LE(r->force.norm(), limit + 1e-9);
    last = *r;
    std::this_thread::sleep_for(std::chrono::microseconds(900));
  }
  EXPECT_EQ((*session)->transport(), HapticSession::Transport::kDatagrams);
  // The probe rests on the floor (centre 1 cm up), the device 2 cm lower: k x = 8 N up.
  EXPECT_GT(last.contacts, 0);
  EXPECT_NEAR(last.force.y(), 8.0, 1.0);
  // Two copies of every datagram each way (the default): every pose taken once, every
  // copy taken by its receiver (a second copy as the newest, the same message), but for the
  // last copies, which may still be on their way.
  EXPECT_EQ((*session)->params().datagram_copies(), 2u);
  EXPECT_EQ(server_->haptics().datagram_poses.load(), 600u);
  EXPECT_EQ(server_->haptics().server_mode.round_trip.count(), 600u);
  EXPECT_GE(PortCounts().taken.load(), 1199u);
  EXPECT_GE((*session)->datagram_counts().taken, 1199u);
  EXPECT_EQ(PortCounts().forged.load(), 0u);
  EXPECT_EQ((*session)->datagram_counts().replayed, 0u);
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(HapticDatagramTest, AServerWithoutDatagramsRunsTheSessionOnTheStream) {
  server_->Shutdown(absl::Milliseconds(100));
  ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.haptic_datagram_port = -1;
  server_ = std::make_unique<Server>(options);
  ASSERT_TRUE(server_->Start().ok());
  EXPECT_EQ(server_->datagram_port(), 0);
  channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()),
                                 grpc::InsecureChannelCredentials());
  worlds_ = v1::WorldService::NewStub(channel_);
  v1::World w;
  ASSERT_TRUE(CreateWorld("hw", ProbeScene(), &w).ok());
  auto session = HapticSession::Open(channel_, WithDatagrams(OpenFor("probe")), OnLoopback());
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ((*session)->transport(), HapticSession::Transport::kStream);
  for (uint64_t i = 1; i <= 20; ++i) ASSERT_EQ((*session)->Force(PoseAt(i, 0.03))->sequence, i);
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(HapticDatagramTest, ABlockedChannelFallsBackToTheStream) {
  // Datagrams sent where the server does not listen (it is bound to 127.0.0.1 only) are
  // lost as if a firewall dropped them; the session must go on.
  HapticSessionOptions options = OnLoopback();
  options.datagram_host = "127.0.0.2";
  options.reply_wait = 2e-3;
  options.fallback_after = 0.05;
  auto session = HapticSession::Open(channel_, WithDatagrams(OpenFor("probe")), options);
  ASSERT_TRUE(session.ok()) << session.status();
  ASSERT_EQ((*session)->transport(), HapticSession::Transport::kDatagrams);
  uint64_t answered = 0;
  for (uint64_t i = 1; i <= 200; ++i) {
    auto r = (*session)->Force(PoseAt(i, 0.03));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(r->force.allFinite());
    if (r->sequence == i) {
      ++answered;
    } else {
      // No force ever came by datagram: the device is given zero, flagged as the watchdog.
      EXPECT_EQ(r->force.norm(), 0.0);
      EXPECT_TRUE(r->watchdog);
    }
  }
  EXPECT_EQ((*session)->transport(), HapticSession::Transport::kStream);
  // Lost poses got zero force (nothing was ever heard); the rest came by the stream.
  EXPECT_GT(answered, 100u);
  EXPECT_EQ(server_->haptics().datagram_poses.load(), 0u);
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(HapticDatagramTest, ABadOfferOrAMissingHostIsAClearError) {
  auto no_host = HapticSession::Open(channel_, WithDatagrams(OpenFor("probe")), {});
  EXPECT_EQ(no_host.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(no_host.status().message().find("datagram_host"), std::string::npos);
  HapticSessionOptions nowhere = OnLoopback();
  nowhere.datagram_host = "no-such-host.invalid";
  auto unresolved = HapticSession::Open(channel_, WithDatagrams(OpenFor("probe")), nowhere);
  EXPECT_EQ(unresolved.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unresolved.status().message().find("datagram_host"), std::string::npos);
  // The refused sessions released the tool (the release reaches the world at its next tick).
  absl::StatusOr<std::unique_ptr<HapticSession>> again = absl::UnknownError("");
  for (int i = 0; i < 50 && !again.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    again = HapticSession::Open(channel_, WithDatagrams(OpenFor("probe")), OnLoopback());
  }
  EXPECT_TRUE(again.ok()) << again.status();
}

// A raw session: the stream opened by hand, datagrams sealed by the test.
class RawDatagramSession {
 public:
  RawDatagramSession(const std::shared_ptr<grpc::Channel>& channel, const std::string& tool,
                     uint32_t copies = 1)
      : stub_(v1::HapticsService::NewStub(channel)) {
    stream_ = stub_->Haptics(&ctx_);
    v1::HapticsRequest req;
    *req.mutable_open() = WithDatagrams(OpenFor(tool));
    req.mutable_open()->set_force_limit(2.0);
    req.mutable_open()->set_datagram_copies(copies);
    EXPECT_TRUE(stream_->Write(req));
    v1::HapticsResponse resp;
    EXPECT_TRUE(stream_->Read(&resp));
    offer_ = resp.opened().datagrams();
    std::memcpy(key_.data(), offer_.key().data(), key_.size());
    fd_ = socket(AF_INET, SOCK_DGRAM, 0);
    sockaddr_in to{};
    to.sin_family = AF_INET;
    to.sin_port = htons(static_cast<uint16_t>(offer_.port()));
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(connect(fd_, reinterpret_cast<sockaddr*>(&to), sizeof(to)), 0);
    timeval wait{0, 300000};
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    receiver_.emplace(key_, offer_.session(), haptics::Direction::kToClient);
  }
  ~RawDatagramSession() {
    ctx_.TryCancel();
    close(fd_);
  }
  const haptics::SessionKey& key() const { return key_; }
  uint32_t number() const { return offer_.session(); }

  // A pose datagram sealed under `key` for session `number`, with datagram sequence `seq`.
  static std::string Pose(const haptics::SessionKey& key, uint32_t number, uint64_t seq,
                          uint64_t pose_sequence, double y) {
    v1::HapticDatagram d;
    DevicePoseToProto(PoseAt(pose_sequence, y), d.mutable_pose());
    return *haptics::SealDatagram(key, {haptics::Direction::kToServer, number, seq}, 0,
                                  d.SerializeAsString());
  }
  void Send(const std::string& bytes) {
    ASSERT_EQ(send(fd_, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  }
  // The next force datagram (nothing within 0.3 s).
  std::optional<v1::HapticForce> Receive() {
    char buf[2048];
    const ssize_t n = recv(fd_, buf, sizeof(buf), 0);
    if (n < 0) return std::nullopt;
    auto opened = receiver_->Receive(std::string_view(buf, n));
    v1::HapticDatagram d;
    if (!opened || !d.ParseFromString(opened->payload) || !d.has_force()) return std::nullopt;
    return d.force();
  }
  // The next answer to a pose: watchdog datagrams (sent while no pose comes) are skipped.
  std::optional<v1::HapticForce> Answer() {
    std::optional<v1::HapticForce> f;
    do {
      f = Receive();
    } while (f && f->watchdog());
    return f;
  }

 private:
  std::unique_ptr<v1::HapticsService::Stub> stub_;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientReaderWriter<v1::HapticsRequest, v1::HapticsResponse>> stream_;
  v1::HapticDatagramOffer offer_;
  haptics::SessionKey key_{};
  int fd_ = -1;
  std::optional<haptics::DatagramReceiver> receiver_;
};

TEST_F(HapticDatagramTest, ForgedReplayedAndForeignDatagramsAreDroppedCountedAndNeverApplied) {
  RawDatagramSession a(channel_, "probe");
  ASSERT_NE(a.number(), 0u);
  // A second session on another tool, whose key the first one's datagrams must not open with.
  v1::Body other = ProbeScene().bodies(1);
  other.set_id("probe2");
  other.mutable_pose()->mutable_position()->set_x(0.5);
  ASSERT_TRUE(CreateBodyIn("worlds/hw", other).ok());
  RawDatagramSession b(channel_, "probe2");
  ASSERT_NE(b.number(), a.number());

  // A genuine pose, 2 cm above the probe's start: answered.
  const std::string genuine = RawDatagramSession::Pose(a.key(), a.number(), 1, 1, 0.05);
  a.Send(genuine);
  std::optional<v1::HapticForce> f = a.Answer();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->sequence(), 1u);
  const uint64_t poses = server_->haptics().poses.load();

  // The same datagram again, one with a changed byte, and one sealed with the other
  // session's key under this session's number: none is answered or applied.
  a.Send(genuine);
  std::string changed = RawDatagramSession::Pose(a.key(), a.number(), 2, 2, 0.05);
  changed[changed.size() / 2] ^= 0x40;
  a.Send(changed);
  a.Send(RawDatagramSession::Pose(b.key(), a.number(), 3, 3, 0.05));
  EXPECT_FALSE(a.Answer().has_value());
  EXPECT_EQ(server_->haptics().poses.load(), poses);
  EXPECT_EQ(PortCounts().taken.load(), 1u);
  EXPECT_EQ(PortCounts().replayed.load(), 1u);
  EXPECT_EQ(PortCounts().forged.load(), 2u);

  // The next genuine datagram (5) is taken; an authentic one older than it (4), arriving
  // late, is stale and dropped.
  a.Send(RawDatagramSession::Pose(a.key(), a.number(), 5, 2, 0.05));
  f = a.Answer();
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->sequence(), 2u);
  a.Send(RawDatagramSession::Pose(a.key(), a.number(), 4, 3, 0.05));
  EXPECT_FALSE(a.Answer().has_value());
  EXPECT_EQ(PortCounts().stale.load(), 1u);
  // A datagram naming no open session.
  a.Send(RawDatagramSession::Pose(a.key(), a.number() + 1000, 1, 1, 0.05));
  a.Send("not a datagram");
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_GE(PortCounts().unknown_session.load(), 1u);
  EXPECT_GE(PortCounts().malformed.load(), 1u);
}

TEST_F(HapticDatagramTest, CopiesOfAPoseAreTakenOnceAndEveryAnswerIsCopied) {
  RawDatagramSession a(channel_, "probe", /*copies=*/3);
  // Three copies of pose 1, sealed apart: one pose for the session, three answers.
  for (uint64_t seq = 1; seq <= 3; ++seq) {
    a.Send(RawDatagramSession::Pose(a.key(), a.number(), seq, 1, 0.05));
  }
  for (int i = 0; i < 3; ++i) {
    std::optional<v1::HapticForce> f = a.Answer();
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->sequence(), 1u);
    EXPECT_FALSE(f->rejected_pose());  // a copy is not refused as out of order
  }
  EXPECT_FALSE(a.Answer().has_value());
  EXPECT_EQ(server_->haptics().poses.load(), 1u);
  EXPECT_EQ(server_->haptics().rejected.load(), 0u);
}

TEST_F(HapticDatagramTest, MoreThanThreeCopiesAreRefusedNamingTheField) {
  v1::HapticOpen open = WithDatagrams(OpenFor("probe"));
  open.set_datagram_copies(4);
  auto session = HapticSession::Open(channel_, open, OnLoopback());
  EXPECT_EQ(session.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(session.status().message().find("open.datagram_copies"), std::string::npos);
}

TEST_F(HapticDatagramTest, ClampsAndTheWatchdogHoldOverDatagrams) {
  RawDatagramSession a(channel_, "probe");
  // A pose 1 m above the probe asks for 400 N; the limit is 2 N. Then silence.
  uint64_t seq = 0;
  double force = 0.0;
  for (int i = 0; i < 2000 && !(force >= 2.0 - 1e-9 && i > 50); ++i) {
    ++seq;
    a.Send(RawDatagramSession::Pose(a.key(), a.number(), seq, seq, 1.0));
    std::optional<v1::HapticForce> f = a.Answer();
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->sequence(), seq);
    const Vec3 v(f->force().x(), f->force().y(), f->force().z());
    ASSERT_LE(v.norm(), 2.0 + 1e-9);
    force = v.norm();
    if (force >= 2.0 - 1e-9) {
      EXPECT_TRUE(f->clamped());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GE(force, 2.0 - 1e-9);
  // Unprompted watchdog datagrams ramp the force to zero.
  bool zero = false;
  while (!zero) {
    std::optional<v1::HapticForce> f = a.Receive();
    ASSERT_TRUE(f.has_value());
    EXPECT_TRUE(f->watchdog());
    EXPECT_EQ(f->sequence(), seq);
    const v1::Vec3& v = f->force();
    zero = v.x() == 0 && v.y() == 0 && v.z() == 0;
  }
  EXPECT_GE(server_->haptics().watchdog_trips.load(), 1u);
}

TEST_F(HapticDatagramTest, AClientThatClosesTheChannelGoesOnOverTheStream) {
  RawDatagramSession a(channel_, "probe");
  a.Send(RawDatagramSession::Pose(a.key(), a.number(), 1, 1, 0.05));
  ASSERT_TRUE(a.Answer().has_value());
  v1::HapticDatagram close;
  close.set_close(true);
  a.Send(*haptics::SealDatagram(a.key(), {haptics::Direction::kToServer, a.number(), 2}, 0,
                                close.SerializeAsString()));
  // Authentic poses after the close are not taken any more.
  const uint64_t poses = server_->haptics().poses.load();
  a.Send(RawDatagramSession::Pose(a.key(), a.number(), 3, 2, 0.05));
  EXPECT_FALSE(a.Answer().has_value());
  EXPECT_EQ(server_->haptics().poses.load(), poses);
}

TEST_F(HapticDatagramTest, AServerThatEndsTheSessionTellsTheClientWhoTurnsToTheStream) {
  auto session = HapticSession::Open(channel_, WithDatagrams(OpenFor("probe")), OnLoopback());
  ASSERT_TRUE(session.ok()) << session.status();
  for (uint64_t i = 1; i <= 20; ++i) ASSERT_TRUE((*session)->Force(PoseAt(i, 0.03)).ok());
  // Deleting the tool ends the session with NOT_FOUND; the client learns it from the stream.
  grpc::ClientContext ctx;
  v1::DeleteBodyRequest req;
  req.set_name("worlds/hw/bodies/probe");
  v1::DeleteBodyResponse out;
  ASSERT_TRUE(scenes_->DeleteBody(&ctx, req, &out).ok());
  absl::Status ended;
  for (uint64_t i = 21; i <= 2000 && ended.ok(); ++i) {
    ended = (*session)->Force(PoseAt(i, 0.03)).status();
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(ended.code(), absl::StatusCode::kNotFound) << ended;
  EXPECT_EQ((*session)->transport(), HapticSession::Transport::kStream);
}

TEST_F(HapticDatagramTest, RemoteModePosesTravelByDatagram) {
  auto session =
      HapticSession::Open(channel_, WithDatagrams(OpenFor("probe", /*remote=*/true)), OnLoopback());
  ASSERT_TRUE(session.ok()) << session.status();
  for (uint64_t i = 1; i <= 300; ++i) {
    auto r = (*session)->Force(PoseAt(i, 0.03));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(r->force.allFinite());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  // Acknowledged all along: still on datagrams, every pose received by the server. A remote
  // session does not wait for its acknowledgements, so the last pose may still be on its way.
  for (int i = 0; i < 2000 && server_->haptics().datagram_poses.load() < 300u; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ((*session)->transport(), HapticSession::Transport::kDatagrams);
  EXPECT_GT((*session)->model_tick(), 0u);
  EXPECT_EQ(server_->haptics().datagram_poses.load(), 300u);
  EXPECT_EQ(server_->haptics().poses.load(), 300u);
  EXPECT_TRUE((*session)->Close().ok());
}

}  // namespace
}  // namespace ligature::testing
