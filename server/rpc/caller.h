#pragma once
// Who is calling, and the checks every world-scoped handler opens with.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/server_context.h"
#include "server/host/world_manager.h"
#include "server/rpc/auth.h"
#include "server/rpc/edit_rate_limiter.h"

namespace ligature {

// How long a handler waits for a world to apply its command.
inline constexpr absl::Duration kApplyTimeout = absl::Seconds(30);

// The grants of the caller of `ctx` (its `authorization` metadata); every grant when
// `tokens` is null (no token file: authentication off). UNAUTHENTICATED for a missing or
// unknown token.
absl::StatusOr<Grants> CallerGrants(const TokenStore* tokens,
                                    const grpc::ServerContextBase& ctx);

// What a service checks its calls against: the tokens (null: authentication off), the edit
// rate limiter (null: no limit) and the worlds.
struct CallChecks {
  const TokenStore* tokens = nullptr;
  EditRateLimiter* limiter = nullptr;
  WorldManager* manager = nullptr;
};

// A world-scoped call that passed its checks.
struct WorldCall {
  Grants caller;
  std::string world_id;
  std::shared_ptr<WorldHost> host;
};

// The opening of every world-scoped handler, in this order: the caller's token
// (UNAUTHENTICATED); `edits` of the calling client's edit rate, when it edits
// (RESOURCE_EXHAUSTED); the world id parsed from the request (its error names the field);
// the caller's `role` on that world (PERMISSION_DENIED); the world itself (NOT_FOUND).
// The role comes before the look-up, so a caller without it learns nothing of which
// worlds exist.
absl::StatusOr<WorldCall> OpenWorldCall(const CallChecks& checks,
                                        const grpc::ServerContextBase& ctx,
                                        const absl::StatusOr<std::string>& world_id, Role role,
                                        int edits = 0);

}  // namespace ligature
