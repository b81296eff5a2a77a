#include "server/rpc/haptics_service_impl.h"

#include "server/rpc/caller.h"

namespace ligature {

grpc::ServerBidiReactor<v1::HapticsRequest, v1::HapticsResponse>* HapticsServiceImpl::Haptics(
    grpc::CallbackServerContext* ctx) {
  return new HapticsReactor(manager_, stopping_, &counters_, CallerGrants(tokens_, *ctx), port_);
}

}  // namespace ligature
