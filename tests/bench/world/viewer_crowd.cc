#include "tests/bench/world/viewer_crowd.h"

#include <google/protobuf/io/coded_stream.h>

#include <chrono>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "ligature/v1/session_service.pb.h"

namespace ligature::bench {

namespace {

using Clock = std::chrono::steady_clock;

// The tick of a serialized ligature.v1.Frame (field 2), read from its first bytes: fields
// come in number order and only the world's name (field 1) is before it.
uint64_t TickOf(const grpc::ByteBuffer& bytes) {
  std::vector<grpc::Slice> slices;
  if (!bytes.Dump(&slices).ok()) return 0;
  std::string head;
  for (const grpc::Slice& s : slices) {
    head.append(reinterpret_cast<const char*>(s.begin()), std::min<size_t>(s.size(), 256));
    if (head.size() >= 256) break;
  }
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(head.data()),
                                            static_cast<int>(head.size()));
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

}  // namespace

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
  bool received = false;
  Clock::time_point last;  // arrival of the last frame
};

ViewerCrowd::ViewerCrowd(const std::string& address, const std::string& world, int viewers,
                         int per_connection) {
  v1::WatchRequest req;
  req.set_world(world);
  const std::string bytes = req.SerializeAsString();
  for (int i = 0; i < viewers; ++i) {
    if (i % per_connection == 0) {
      // A distinct channel argument gives each group its own connection.
      grpc::ChannelArguments args;
      args.SetInt("ligature.bench.connection", i / per_connection);
      channels_.push_back(
          grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args));
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
  while (finished_.load() < static_cast<int>(viewers_.size()) && Clock::now() < deadline) {
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
      const Clock::time_point now = Clock::now();
      const uint64_t tick = TickOf(v.in);
      if (!v.received) receiving_.fetch_add(1);
      {
        absl::MutexLock lock(&mu_);
        newest_tick_ = std::max(newest_tick_, tick);
        if (recording_) {
          ++window_.frames;
          if (v.received) {
            window_.interval_ms.push_back(
                std::chrono::duration<double, std::milli>(now - v.last).count());
          }
        }
      }
      v.received = true;
      v.last = now;
      v.call->Read(&v.in, &v.ops[Viewer::kRead]);
      return;
    }
    case Viewer::kFinish:
      finished_.fetch_add(1);
      return;
  }
}

void ViewerCrowd::StartWindow() {
  absl::MutexLock lock(&mu_);
  window_ = CrowdFigures{};
  window_.viewers = static_cast<int>(viewers_.size());
  window_first_tick_ = newest_tick_;
  recording_ = true;
}

CrowdFigures ViewerCrowd::EndWindow() {
  absl::MutexLock lock(&mu_);
  recording_ = false;
  window_.ticks = newest_tick_ - window_first_tick_;
  window_.ended = finished_.load();
  return std::move(window_);
}

}  // namespace ligature::bench
