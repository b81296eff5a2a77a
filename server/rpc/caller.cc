#include "server/rpc/caller.h"

#include <optional>
#include <string>

namespace ligature {

absl::StatusOr<Grants> CallerGrants(const TokenStore* tokens,
                                    const grpc::ServerContextBase& ctx) {
  if (tokens == nullptr) return Grants::All();
  std::optional<std::string> authorization;
  const auto& metadata = ctx.client_metadata();
  if (auto it = metadata.find("authorization"); it != metadata.end()) {
    authorization.emplace(it->second.data(), it->second.size());
  }
  return tokens->Identify(authorization);
}

}  // namespace ligature
