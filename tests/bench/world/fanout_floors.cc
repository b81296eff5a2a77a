#include "tests/bench/world/fanout_floors.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/container/flat_hash_set.h"
#include "server/rpc/frame_proto.h"
#include "server/rpc/published_frame.h"

namespace ligature::bench {

namespace {

// Waits up to 100 ms for a publication newer than `seen`; the frame's message, or null.
std::shared_ptr<v1::Frame> NextFrame(const WorldHost& host, uint64_t* seen) {
  uint64_t version = 0;
  bool open = true;
  std::shared_ptr<const Frame> frame =
      host.WaitForFrame(*seen, absl::Milliseconds(100), &version, &open);
  if (!open || version == *seen) return nullptr;
  *seen = version;
  auto message = std::make_shared<v1::Frame>();
  FrameToProto(*frame, {}, message.get());
  message->set_key_frame(true);
  return message;
}

}  // namespace

// ---- bare gRPC ----

class BareFanoutStream final : public grpc::ServerWriteReactor<grpc::ByteBuffer> {
 public:
  explicit BareFanoutStream(BareGrpcFanout* owner) : owner_(owner) {}
  std::shared_ptr<BareFanoutStream> self;

  void Offer(const grpc::ByteBuffer& bytes) {
    {
      absl::MutexLock lock(&mu_);
      if (writing_ || finished_) return;
      writing_ = true;
      out_ = bytes;
    }
    StartWrite(&out_);
  }
  void OnWriteDone(bool ok) override {
    bool finish;
    {
      absl::MutexLock lock(&mu_);
      writing_ = false;
      finish = (!ok || cancelled_) && !finished_;
      finished_ = finished_ || finish;
    }
    if (finish) Finish(grpc::Status::CANCELLED);
  }
  void OnCancel() override {
    bool finish;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      finish = !writing_ && !finished_;
      finished_ = finished_ || finish;
    }
    if (finish) Finish(grpc::Status::CANCELLED);
  }
  void OnDone() override {
    owner_->Remove(this);
    std::shared_ptr<BareFanoutStream> last = std::move(self);
  }

 private:
  BareGrpcFanout* owner_;
  absl::Mutex mu_;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  grpc::ByteBuffer out_;
};

BareGrpcFanout::BareGrpcFanout(std::shared_ptr<WorldHost> host)
    : host_(std::move(host)), sender_([this] { Send(); }) {}

BareGrpcFanout::~BareGrpcFanout() {
  stop_.store(true);
  sender_.join();
}

grpc::ServerWriteReactor<grpc::ByteBuffer>* BareGrpcFanout::Watch(grpc::CallbackServerContext*,
                                                                  const grpc::ByteBuffer*) {
  auto stream = std::make_shared<BareFanoutStream>(this);
  stream->self = stream;
  absl::MutexLock lock(&mu_);
  streams_.push_back(stream);
  return stream.get();
}

void BareGrpcFanout::Remove(const BareFanoutStream* stream) {
  absl::MutexLock lock(&mu_);
  std::erase_if(streams_, [&](const auto& s) { return s.get() == stream; });
}

void BareGrpcFanout::Send() {
  uint64_t seen = 0;
  while (!stop_.load()) {
    std::shared_ptr<v1::Frame> message = NextFrame(*host_, &seen);
    if (message == nullptr) continue;
    grpc::ByteBuffer bytes;
    EncodeMessage(*message, &bytes);
    std::vector<std::shared_ptr<BareFanoutStream>> streams;
    {
      absl::MutexLock lock(&mu_);
      streams = streams_;
    }
    for (const auto& s : streams) s->Offer(bytes);
  }
}

// ---- plain TCP ----

TcpFanout::TcpFanout(std::shared_ptr<WorldHost> host) : host_(std::move(host)) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      listen(listen_fd_, 4096) == 0 &&
      getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port_ = ntohs(addr.sin_port);
  }
  acceptor_ = std::thread([this] { Accept(); });
  sender_ = std::thread([this] { Send(); });
}

TcpFanout::~TcpFanout() {
  stop_.store(true);
  shutdown(listen_fd_, SHUT_RDWR);  // wakes accept
  acceptor_.join();
  sender_.join();
  close(listen_fd_);
  absl::MutexLock lock(&mu_);
  for (Viewer& v : viewers_) close(v.fd);
}

void TcpFanout::Accept() {
  while (!stop_.load()) {
    const int fd = accept(listen_fd_, nullptr, nullptr);
    if (fd < 0) return;
    absl::MutexLock lock(&mu_);
    viewers_.push_back({fd, ""});
  }
}

void TcpFanout::Send() {
  uint64_t seen = 0;
  while (!stop_.load()) {
    std::shared_ptr<v1::Frame> message = NextFrame(*host_, &seen);
    if (message == nullptr) continue;
    const std::string body = message->SerializeAsString();
    const uint32_t length = htonl(static_cast<uint32_t>(body.size()));
    std::string bytes(reinterpret_cast<const char*>(&length), 4);
    bytes += body;
    absl::MutexLock lock(&mu_);
    for (Viewer& v : viewers_) {
      if (v.fd < 0) continue;
      // A viewer still taking its last frame skips this one.
      const std::string& out = v.pending.empty() ? bytes : v.pending;
      const ssize_t n = send(v.fd, out.data(), out.size(), MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
        close(v.fd);
        v.fd = -1;
        continue;
      }
      const size_t sent = n < 0 ? 0 : static_cast<size_t>(n);
      v.pending = v.pending.empty() && sent == 0 ? "" : out.substr(sent);
    }
  }
}

}  // namespace ligature::bench
