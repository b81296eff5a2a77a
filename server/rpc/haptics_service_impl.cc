#include "server/rpc/haptics_service_impl.h"

namespace ligature {

grpc::ServerBidiReactor<v1::HapticsRequest, v1::HapticsResponse>* HapticsServiceImpl::Haptics(
    grpc::CallbackServerContext*) {
  return new HapticsReactor(manager_, stopping_, &counters_);
}

}  // namespace ligature
