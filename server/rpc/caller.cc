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

absl::StatusOr<WorldCall> OpenWorldCall(const CallChecks& checks,
                                        const grpc::ServerContextBase& ctx,
                                        const absl::StatusOr<std::string>& world_id, Role role,
                                        int edits) {
  absl::StatusOr<Grants> caller = CallerGrants(checks.tokens, ctx);
  if (!caller.ok()) return caller.status();
  if (edits > 0 && checks.limiter != nullptr) {
    if (absl::Status s = checks.limiter->Take(ClientOfPeer(ctx.peer()), edits); !s.ok()) return s;
  }
  if (!world_id.ok()) return world_id.status();
  if (absl::Status s = caller->Require(*world_id, role); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldHost>> host = checks.manager->Get(*world_id);
  if (!host.ok()) return host.status();
  return WorldCall{std::move(*caller), *world_id, std::move(*host)};
}

}  // namespace ligature
