#pragma once
// Edits per second per client: a token bucket per client (the connection's peer address,
// or the caller's identity), refilled at `rate` edits per second up to a burst of one
// second's worth. A batch of n edits takes n tokens at once or none. Thread-safe: `mu_`
// guards the buckets and the time of the last prune.

#include <chrono>
#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"

namespace ligature {

class EditRateLimiter {
 public:
  using Clock = std::chrono::steady_clock;

  // rate <= 0: no limit.
  explicit EditRateLimiter(double rate) : rate_(rate) {}

  // OK when `client` may make `edits` edits at `now`; else RESOURCE_EXHAUSTED naming the
  // limit (and nothing is taken).
  absl::Status Take(const std::string& client, int edits, Clock::time_point now)
      ABSL_LOCKS_EXCLUDED(mu_);
  absl::Status Take(const std::string& client, int edits) ABSL_LOCKS_EXCLUDED(mu_) {
    return Take(client, edits, Clock::now());
  }

  double rate() const { return rate_; }

 private:
  struct Bucket {
    double tokens = 0.0;
    Clock::time_point last;
  };
  // Forgets clients whose buckets are full again.
  void Prune(Clock::time_point now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const double rate_;
  absl::Mutex mu_;
  absl::flat_hash_map<std::string, Bucket> buckets_ ABSL_GUARDED_BY(mu_);
  Clock::time_point last_prune_ ABSL_GUARDED_BY(mu_);
};

// The client a gRPC peer string stands for: its host ("ipv4:10.0.0.2:5123" -> "10.0.0.2",
// "ipv6:[::1]:5123" -> "[::1]"); other forms (unix sockets) whole.
std::string ClientOfPeer(const std::string& peer);

}  // namespace ligature
