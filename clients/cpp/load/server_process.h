#pragma once
// The server under load: either started here (its stderr kept in a log file, its port read
// from its start-up line) or an existing process named by pid. Its resident memory is read
// from /proc/<pid>/status.

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"

namespace ligature::load {

class ServerProcess {
 public:
  // Starts `binary` with `--listen=127.0.0.1:0` and `extra_args`, and waits for its port.
  static absl::StatusOr<ServerProcess> Spawn(const std::string& binary,
                                             const std::string& extra_args,
                                             const std::string& log_path);
  // A server started elsewhere (pid 0: unknown, no memory figures).
  static ServerProcess Existing(pid_t pid, const std::string& address);

  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }
  // VmRSS in KiB, or -1 when unknown.
  long RssKib() const;
  // Whether the process is still there (true when its pid is unknown).
  bool Alive() const;
  // Stops a spawned server with SIGTERM; returns a description of an abnormal end (a
  // crash before or on the signal, a non-zero exit), or "" when it ended cleanly.
  std::string Stop();

 private:
  pid_t pid_ = 0;
  bool spawned_ = false;
  std::string address_;
};

}  // namespace ligature::load
