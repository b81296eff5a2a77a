#pragma once
// HapticsService: haptic-rate force feedback streams (HapticsReactor).

#include <atomic>

#include "ligature/v1/haptics_service.grpc.pb.h"
#include "server/rpc/auth.h"
#include "server/rpc/haptics_reactor.h"
#include "server/host/world_manager.h"

namespace ligature {

class HapticsServiceImpl final : public v1::HapticsService::CallbackService {
 public:
  // `stopping` turns true when the server shuts down; streams then end with UNAVAILABLE.
  // `tokens` (may be null: no authentication) decides who may drive tools.
  HapticsServiceImpl(WorldManager* manager, const std::atomic<bool>* stopping,
                     const TokenStore* tokens = nullptr)
      : manager_(manager), stopping_(stopping), tokens_(tokens) {}

  grpc::ServerBidiReactor<v1::HapticsRequest, v1::HapticsResponse>* Haptics(
      grpc::CallbackServerContext* ctx) override;

  const HapticCounters& counters() const { return counters_; }
  DatagramCounters* datagram_counters() { return &counters_.datagrams; }
  // The datagram port new sessions may offer (null: none). Set before serving starts.
  void SetDatagramPort(HapticDatagramPort* port) { port_ = port; }

 private:
  WorldManager* manager_;
  const std::atomic<bool>* stopping_;
  const TokenStore* tokens_;
  HapticCounters counters_;
  HapticDatagramPort* port_ = nullptr;
};

}  // namespace ligature
