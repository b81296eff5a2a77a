#pragma once
// Many Watch streams of one world from one process, as a crowd of viewers: each stream
// reads raw frames (only the tick is decoded, so the crowd's own CPU stays small), all
// driven by one completion-queue thread. Between StartWindow and EndWindow it records every
// frame's arrival.

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include "absl/synchronization/mutex.h"

namespace ligature::bench {

struct CrowdFigures {
  uint64_t frames = 0;              // frames received in the window
  std::vector<double> interval_ms;  // between a viewer's consecutive frames, in the window
  uint64_t ticks = 0;               // the world's ticks over the window (newest tick seen)
  int viewers = 0;
  int ended = 0;                    // streams that ended before the window closed
};

class ViewerCrowd {
 public:
  // Opens `viewers` Watch streams of `world` (a full name), `per_connection` streams to a
  // connection.
  ViewerCrowd(const std::string& address, const std::string& world, int viewers,
              int per_connection);
  ~ViewerCrowd();  // cancels every stream and waits for them to end
  ViewerCrowd(const ViewerCrowd&) = delete;
  ViewerCrowd& operator=(const ViewerCrowd&) = delete;

  // Streams that have received at least one frame.
  int receiving() const { return receiving_.load(); }
  void StartWindow();
  CrowdFigures EndWindow();

  struct Viewer;

 private:
  void Run();
  void OnEvent(void* tag, bool ok);

  std::vector<std::shared_ptr<grpc::Channel>> channels_;
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs_;
  std::vector<std::unique_ptr<Viewer>> viewers_;
  grpc::CompletionQueue cq_;
  std::thread thread_;
  std::atomic<int> receiving_{0};
  std::atomic<int> finished_{0};

  absl::Mutex mu_;
  bool recording_ ABSL_GUARDED_BY(mu_) = false;
  CrowdFigures window_ ABSL_GUARDED_BY(mu_);
  uint64_t newest_tick_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t window_first_tick_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace ligature::bench
