#pragma once
// Many viewers of one world from one process: Watch streams reading raw frames (only the
// tick is decoded, so the crowd's own CPU stays small), or plain TCP connections to the
// benchmark's floor. Between StartWindow and EndWindow a crowd records every frame's
// arrival.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"

namespace ligature::bench {

struct CrowdFigures {
  uint64_t frames = 0;              // frames received in the window
  std::vector<double> interval_ms;  // between a viewer's consecutive frames, in the window
  uint64_t ticks = 0;               // the world's ticks over the window (newest tick seen)
  int viewers = 0;
  int ended = 0;                    // streams that ended before the window closed
};

// What every crowd records: frame arrivals, between StartWindow and EndWindow.
class Crowd {
 public:
  using Clock = std::chrono::steady_clock;
  virtual ~Crowd() = default;
  // Viewers that have received at least one frame.
  int receiving() const { return receiving_.load(); }
  // Frames received so far.
  uint64_t frames() const { return frames_.load(); }
  void StartWindow() ABSL_LOCKS_EXCLUDED(mu_);
  CrowdFigures EndWindow() ABSL_LOCKS_EXCLUDED(mu_);

 protected:
  explicit Crowd(int viewers) : viewers_(viewers) {}
  // One viewer's arrivals.
  struct Arrivals {
    bool received = false;
    Clock::time_point last;
  };
  // A frame of tick `tick` reached the viewer of `arrivals`.
  void OnFrame(Arrivals& arrivals, uint64_t tick) ABSL_LOCKS_EXCLUDED(mu_);
  void OnEnded() { ended_.fetch_add(1); }
  int ended() const { return ended_.load(); }

 private:
  const int viewers_;
  std::atomic<int> receiving_{0};
  std::atomic<uint64_t> frames_{0};
  std::atomic<int> ended_{0};
  absl::Mutex mu_;
  bool recording_ ABSL_GUARDED_BY(mu_) = false;
  CrowdFigures window_ ABSL_GUARDED_BY(mu_);
  uint64_t newest_tick_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t window_first_tick_ ABSL_GUARDED_BY(mu_) = 0;
};

// The tick of a serialized ligature.v1.Frame, read from its first bytes.
uint64_t FrameTick(const uint8_t* data, size_t size);

// Watch streams with raw bytes, driven by one completion-queue thread.
class ViewerCrowd final : public Crowd {
 public:
  // Opens `viewers` Watch streams of `world` (a full name), `per_connection` streams to a
  // connection, the connections spread over `addresses` in turn.
  ViewerCrowd(const std::vector<std::string>& addresses, const std::string& world, int viewers,
              int per_connection);
  ~ViewerCrowd() override;  // cancels every stream and waits for them to end

  struct Viewer;

 private:
  void Run();
  void OnEvent(void* tag, bool ok);

  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs_;
  std::vector<std::unique_ptr<Viewer>> viewers_;
  grpc::CompletionQueue cq_;
  std::thread thread_;
};

// Plain TCP connections to a fan-out of length-prefixed frames (the benchmark's floor),
// read by one epoll thread.
class SocketCrowd final : public Crowd {
 public:
  SocketCrowd(int port, int viewers);
  ~SocketCrowd() override;  // closes every connection

 private:
  struct Viewer {
    int fd = -1;
    std::vector<uint8_t> buffer;  // bytes read and not yet parsed
    Arrivals arrivals;
  };
  void Run();
  void Drain(Viewer& v);

  std::vector<Viewer> viewers_;
  int epoll_ = -1;
  int stop_ = -1;  // eventfd that ends the thread
  std::thread thread_;
};

}  // namespace ligature::bench
