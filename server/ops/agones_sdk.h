#pragma once
// Client of the Agones SDK sidecar's local HTTP API, for running as an Agones GameServer:
// POST /ready once serving, /health every few seconds from a background thread, /shutdown
// on exit. Plain POSIX sockets to 127.0.0.1 (the sidecar shares the pod's network), one
// short-lived HTTP/1.1 request per call, no dependencies.
//
// Threading: `mu_` guards the health thread's stop flag, which the thread awaits between
// pings. StartHealth, StopHealth and Shutdown are called by the owner's thread.

#include <optional>
#include <string>
#include <thread>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace ligature {

// POSTs `{}` as application/json to http://127.0.0.1:port/path and reads the status line.
// UNAVAILABLE when the sidecar cannot be reached or answers other than 2xx.
absl::Status PostAgonesSdk(int port, const std::string& path, absl::Duration timeout);

class AgonesSdk {
 public:
  // The sidecar's port from AGONES_SDK_HTTP_PORT: nullopt when unset or empty (not under
  // Agones), INVALID_ARGUMENT naming the variable when it is not a port number.
  static absl::StatusOr<std::optional<int>> PortFromEnv();

  AgonesSdk(int port, absl::Duration health_period = absl::Seconds(2),
            absl::Duration timeout = absl::Seconds(1));
  ~AgonesSdk();  // stops the health thread
  AgonesSdk(const AgonesSdk&) = delete;
  AgonesSdk& operator=(const AgonesSdk&) = delete;

  absl::Status Ready() { return PostAgonesSdk(port_, "/ready", timeout_); }
  absl::Status Health() { return PostAgonesSdk(port_, "/health", timeout_); }
  // Stops health pings, then tells Agones the server is going away.
  absl::Status Shutdown() ABSL_LOCKS_EXCLUDED(mu_);

  // Pings /health every health period until StopHealth or Shutdown. A failed ping is
  // reported on stderr once until one succeeds again.
  void StartHealth() ABSL_LOCKS_EXCLUDED(mu_);
  void StopHealth() ABSL_LOCKS_EXCLUDED(mu_);

  int port() const { return port_; }

 private:
  void HealthLoop() ABSL_LOCKS_EXCLUDED(mu_);

  const int port_;
  const absl::Duration health_period_;
  const absl::Duration timeout_;
  absl::Mutex mu_;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
  // Started under mu_ by StartHealth, joined by StopHealth.
  std::thread health_;
};

}  // namespace ligature
