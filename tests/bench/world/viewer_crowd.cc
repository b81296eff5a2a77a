#include "tests/bench/world/viewer_crowd.h"

#include <arpa/inet.h>
#include <google/protobuf/io/coded_stream.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

#include "ligature/v1/session_service.pb.h"

namespace ligature::bench {

uint64_t FrameTick(const uint8_t* data, size_t size) {
  // Fields come in number order and only the world's name (field 1) is before the tick
  // (field 2).
  google::protobuf::io::CodedInputStream in(data, static_cast<int>(size));
  while (const uint32_t tag = in.ReadTag()) {
    const uint32_t field = tag >> 3, wire = tag & 7;
    uint64_t value = 0;
    uint32_t length = 0;
    if (field == 2 && wire == 0) return in.ReadVarint64(&value) ? value : 0;
    if (wire == 0 && in.ReadVarint64(&value)) continue;
    if (wire == 1 && in.Skip(8)) continue;
    if (wire == 2 && in.ReadVarint32(&length) && in.Skip(static_cast<int>(length))) continue;
    return 0;
  }
  return 0;
}

void Crowd::OnFrame(Arrivals& arrivals, uint64_t tick) {
  const Clock::time_point now = Clock::now();
  if (!arrivals.received) receiving_.fetch_add(1);
  frames_.fetch_add(1, std::memory_order_relaxed);
  {
    absl::MutexLock lock(&mu_);
    newest_tick_ = std::max(newest_tick_, tick);
    if (recording_) {
      ++window_.frames;
      if (arrivals.received) {
        window_.interval_ms.push_back(
            std::chrono::duration<double, std::milli>(now - arrivals.last).count());
      }
    }
  }
  arrivals.received = true;
  arrivals.last = now;
}

void Crowd::StartWindow() {
  absl::MutexLock lock(&mu_);
  window_ = CrowdFigures{};
  window_.viewers = viewers_;
  window_first_tick_ = newest_tick_;
  recording_ = true;
}

CrowdFigures Crowd::EndWindow() {
  absl::MutexLock lock(&mu_);
  recording_ = false;
  window_.ticks = newest_tick_ - window_first_tick_;
  window_.ended = ended_.load();
  return std::move(window_);
}

// ---- Watch streams ----

struct ViewerCrowd::Viewer {
  enum Kind { kStart, kWrite, kWritesDone, kRead, kFinish };
  struct Op {
    Viewer* viewer;
    Kind kind;
  };
  Op ops[5] = {{this, kStart}, {this, kWrite}, {this, kWritesDone}, {this, kRead},
               {this, kFinish}};
  grpc::ClientContext ctx;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call;
  grpc::ByteBuffer request;
  grpc::ByteBuffer in;
  grpc::Status status;
  Arrivals arrivals;
};

ViewerCrowd::ViewerCrowd(const std::vector<std::string>& addresses, const std::string& world,
                         int viewers, int per_connection)
    : Crowd(viewers) {
  v1::WatchRequest req;
  req.set_world(world);
  const std::string bytes = req.SerializeAsString();
  for (int i = 0; i < viewers; ++i) {
    if (i % per_connection == 0) {
      // A distinct channel argument gives each group its own connection.
      const int connection = i / per_connection;
      grpc::ChannelArguments args;
      args.SetInt("ligature.bench.connection", connection);
      channels_.push_back(grpc::CreateCustomChannel(addresses[connection % addresses.size()],
                                                    grpc::InsecureChannelCredentials(), args));
      stubs_.push_back(std::make_unique<grpc::GenericStub>(channels_.back()));
    }
    auto v = std::make_unique<Viewer>();
    grpc::Slice slice(bytes);
    v->request = grpc::ByteBuffer(&slice, 1);
    v->call = stubs_.back()->PrepareCall(&v->ctx, "/ligature.v1.SessionService/Watch", &cq_);
    viewers_.push_back(std::move(v));
  }
  for (auto& v : viewers_) v->call->StartCall(&v->ops[Viewer::kStart]);
  thread_ = std::thread([this] { Run(); });
}

ViewerCrowd::~ViewerCrowd() {
  for (auto& v : viewers_) v->ctx.TryCancel();
  // Every stream ends once cancelled; then the queue drains and closes.
  const auto deadline = Clock::now() + std::chrono::seconds(30);
  while (ended() < static_cast<int>(viewers_.size()) && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  cq_.Shutdown();
  thread_.join();
}

void ViewerCrowd::Run() {
  void* tag = nullptr;
  bool ok = false;
  while (cq_.Next(&tag, &ok)) OnEvent(tag, ok);
}

void ViewerCrowd::OnEvent(void* tag, bool ok) {
  auto* op = static_cast<Viewer::Op*>(tag);
  Viewer& v = *op->viewer;
  switch (op->kind) {
    case Viewer::kStart:
      if (!ok) {
        v.call->Finish(&v.status, &v.ops[Viewer::kFinish]);
        return;
      }
      v.call->Write(v.request, &v.ops[Viewer::kWrite]);
      v.call->Read(&v.in, &v.ops[Viewer::kRead]);
      return;
    case Viewer::kWrite:
      if (ok) v.call->WritesDone(&v.ops[Viewer::kWritesDone]);
      return;
    case Viewer::kWritesDone:
      return;
    case Viewer::kRead: {
      if (!ok) {
        v.call->Finish(&v.status, &v.ops[Viewer::kFinish]);
        return;
      }
      // The first bytes hold the tick.
      std::vector<grpc::Slice> slices;
      uint64_t tick = 0;
      if (v.in.Dump(&slices).ok() && !slices.empty()) {
        std::string head;
        for (const grpc::Slice& s : slices) {
          head.append(reinterpret_cast<const char*>(s.begin()),
                      std::min<size_t>(s.size(), 256 - head.size()));
          if (head.size() >= 256) break;
        }
        tick = FrameTick(reinterpret_cast<const uint8_t*>(head.data()), head.size());
      }
      OnFrame(v.arrivals, tick);
      v.call->Read(&v.in, &v.ops[Viewer::kRead]);
      return;
    }
    case Viewer::kFinish: OnEnded(); return;
  }
}

// ---- Plain TCP ----

SocketCrowd::SocketCrowd(int port, int viewers) : Crowd(viewers), viewers_(viewers) {
  epoll_ = epoll_create1(0);
  stop_ = eventfd(0, 0);
  epoll_event stop_event{};
  stop_event.events = EPOLLIN;
  stop_event.data.u64 = ~0ull;
  epoll_ctl(epoll_, EPOLL_CTL_ADD, stop_, &stop_event);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  for (size_t i = 0; i < viewers_.size(); ++i) {
    Viewer& v = viewers_[i];
    v.fd = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(v.fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      close(v.fd);
      v.fd = -1;
      OnEnded();
      continue;
    }
    epoll_event e{};
    e.events = EPOLLIN;
    e.data.u64 = i;
    epoll_ctl(epoll_, EPOLL_CTL_ADD, v.fd, &e);
  }
  thread_ = std::thread([this] { Run(); });
}

SocketCrowd::~SocketCrowd() {
  const uint64_t one = 1;
  if (write(stop_, &one, sizeof(one)) != sizeof(one)) std::abort();
  thread_.join();
  for (Viewer& v : viewers_) {
    if (v.fd >= 0) close(v.fd);
  }
  close(stop_);
  close(epoll_);
}

void SocketCrowd::Run() {
  epoll_event events[64];
  while (true) {
    const int n = epoll_wait(epoll_, events, 64, -1);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u64 == ~0ull) return;
      Drain(viewers_[events[i].data.u64]);
    }
  }
}

// Reads what is there and takes every whole frame: a 4-byte length (network order), then
// the serialized frame.
void SocketCrowd::Drain(Viewer& v) {
  uint8_t chunk[65536];
  const ssize_t n = recv(v.fd, chunk, sizeof(chunk), MSG_DONTWAIT);
  if (n == 0) {
    epoll_ctl(epoll_, EPOLL_CTL_DEL, v.fd, nullptr);
    OnEnded();
    return;
  }
  if (n < 0) return;
  v.buffer.insert(v.buffer.end(), chunk, chunk + n);
  size_t at = 0;
  while (v.buffer.size() - at >= 4) {
    uint32_t length = 0;
    std::memcpy(&length, v.buffer.data() + at, 4);
    length = ntohl(length);
    if (v.buffer.size() - at - 4 < length) break;
    OnFrame(v.arrivals, FrameTick(v.buffer.data() + at + 4, std::min<size_t>(length, 256)));
    at += 4 + length;
  }
  v.buffer.erase(v.buffer.begin(), v.buffer.begin() + static_cast<long>(at));
}

}  // namespace ligature::bench
