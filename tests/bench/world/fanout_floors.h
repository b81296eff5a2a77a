#pragma once
// What world/viewers compares our Watch with, serving the same world's frames from the same
// process:
// - a bare gRPC fan-out: the Watch method as a callback reactor per stream, every stream
//   sent the whole frame's bytes, encoded once per publication, newest only (a stream still
//   writing skips the frame), and nothing else: no views, filters, rate limits or counters;
// - a plain TCP fan-out: the same bytes with a 4-byte length before them, one send per
//   viewer per frame, a frame skipped for a viewer whose socket is full.

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "absl/synchronization/mutex.h"
#include "ligature/v1/session_service.grpc.pb.h"
#include "server/host/world_host.h"

namespace ligature::bench {

class BareFanoutStream;

class BareGrpcFanout final
    : public v1::SessionService::WithRawCallbackMethod_Watch<v1::SessionService::Service> {
 public:
  explicit BareGrpcFanout(std::shared_ptr<WorldHost> host);
  ~BareGrpcFanout() override;  // stops the sender (call after the server has shut down)

  grpc::ServerWriteReactor<grpc::ByteBuffer>* Watch(grpc::CallbackServerContext* ctx,
                                                    const grpc::ByteBuffer* request) override;
  void Remove(const BareFanoutStream* stream) ABSL_LOCKS_EXCLUDED(mu_);

 private:
  void Send();

  const std::shared_ptr<WorldHost> host_;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  std::vector<std::shared_ptr<BareFanoutStream>> streams_ ABSL_GUARDED_BY(mu_);
  std::thread sender_;
};

class TcpFanout {
 public:
  // Listens on 127.0.0.1 (a free port) and sends `host`'s frames to whoever connects.
  explicit TcpFanout(std::shared_ptr<WorldHost> host);
  ~TcpFanout();
  int port() const { return port_; }

 private:
  struct Viewer {
    int fd = -1;
    std::string pending;  // the rest of a frame the socket did not take at once
  };
  void Accept();
  void Send();

  const std::shared_ptr<WorldHost> host_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  absl::Mutex mu_;
  std::vector<Viewer> viewers_ ABSL_GUARDED_BY(mu_);
  std::thread acceptor_;
  std::thread sender_;
};

}  // namespace ligature::bench
