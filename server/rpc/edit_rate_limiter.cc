#include "server/rpc/edit_rate_limiter.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace ligature {

absl::Status EditRateLimiter::Take(const std::string& client, int edits,
                                   Clock::time_point now) {
  if (rate_ <= 0.0 || edits <= 0) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  Prune(now);
  const double burst = std::max(rate_, 1.0);
  auto [it, fresh] = buckets_.try_emplace(client);
  Bucket& b = it->second;
  if (fresh) {
    b.tokens = burst;
  } else {
    const double elapsed = std::chrono::duration<double>(now - b.last).count();
    b.tokens = std::min(burst, b.tokens + std::max(0.0, elapsed) * rate_);
  }
  b.last = now;
  if (b.tokens < edits) {
    return absl::ResourceExhaustedError(
        absl::StrCat("edits per second per client: this client's limit of ", rate_,
                     " edits per second (--max_edits_per_second) is used up; ", edits,
                     " edit(s) refused"));
  }
  b.tokens -= edits;
  return absl::OkStatus();
}

// Buckets that are full again hold nothing worth keeping (a new one starts full). At most
// once a second, so that many clients do not make each call slow.
void EditRateLimiter::Prune(Clock::time_point now) {
  if (now - last_prune_ < std::chrono::seconds(1)) return;
  last_prune_ = now;
  const double burst = std::max(rate_, 1.0);
  absl::erase_if(buckets_, [&](const auto& entry) {
    const double idle = std::chrono::duration<double>(now - entry.second.last).count();
    return idle * rate_ >= burst;
  });
}

std::string ClientOfPeer(const std::string& peer) {
  for (const char* scheme : {"ipv4:", "ipv6:"}) {
    const std::string prefix(scheme);
    if (peer.rfind(prefix, 0) != 0) continue;
    const size_t colon = peer.rfind(':');
    if (colon == std::string::npos || colon < prefix.size()) return peer;
    return peer.substr(prefix.size(), colon - prefix.size());
  }
  return peer;
}

}  // namespace ligature
