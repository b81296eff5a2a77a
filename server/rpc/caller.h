#pragma once
// Who is calling: the grants of a call's bearer token, checked by every service.

#include "absl/status/statusor.h"
#include "grpcpp/server_context.h"
#include "server/rpc/auth.h"

namespace ligature {

// The grants of the caller of `ctx` (its `authorization` metadata); every grant when
// `tokens` is null (no token file: authentication off). UNAUTHENTICATED for a missing or
// unknown token.
absl::StatusOr<Grants> CallerGrants(const TokenStore* tokens,
                                    const grpc::ServerContextBase& ctx);

}  // namespace ligature
