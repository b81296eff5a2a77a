#pragma once
// A benchmark's helper process: this executable again (/proc/self/exe) with one environment
// variable set, which main() dispatches on. The child prints one line on stdout when it is
// ready and runs until its stdin closes, so it never outlives the benchmark.

#include <sys/types.h>

#include <memory>
#include <string>

#include "absl/status/statusor.h"

namespace ligature::bench {

class ChildProcess {
 public:
  // Starts the child with `env_name`=`value` and returns it with its first line of output
  // (without the newline) in `ready_line`.
  static absl::StatusOr<std::unique_ptr<ChildProcess>> Start(const std::string& env_name,
                                                             const std::string& value,
                                                             std::string* ready_line);
  ~ChildProcess();  // closes the child's stdin and waits for it
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }

 private:
  ChildProcess() = default;
  pid_t pid_ = -1;
  int to_child_ = -1;
};

// The child's side: prints `ready_line`, then blocks until the parent closes stdin.
void AnnounceAndWaitForParent(const std::string& ready_line);

// CPU time (user and system, all threads) process `pid` has used so far, in seconds.
double ProcessCpuSeconds(pid_t pid);

}  // namespace ligature::bench
