#include "tests/bench/child_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "absl/strings/str_cat.h"

namespace ligature::bench {

absl::StatusOr<std::unique_ptr<ChildProcess>> ChildProcess::Start(const std::string& env_name,
                                                                  const std::string& value,
                                                                  std::string* ready_line) {
  int in[2], out[2];
  // Close-on-exec: a child started later must not hold this one's pipes open (its stdin
  // would then never close). dup2 clears the flag on the child's own ends.
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    return absl::InternalError("pipe failed");
  }
  const std::string env = absl::StrCat(env_name, "=", value);
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // The child: stdin from the parent's pipe, stdout to it; the same executable again.
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[1]);
    close(out[0]);
    putenv(const_cast<char*>(env.c_str()));
    execl("/proc/self/exe", "ligature-bench-child", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  std::unique_ptr<ChildProcess> child(new ChildProcess());
  child->pid_ = pid;
  child->to_child_ = in[1];
  FILE* from = fdopen(out[0], "r");
  char line[256] = {};
  const bool ready = std::fgets(line, sizeof(line), from) != nullptr;
  std::fclose(from);
  if (!ready) return absl::UnavailableError(absl::StrCat(env_name, ": the child did not start"));
  *ready_line = line;
  while (!ready_line->empty() && ready_line->back() == '\n') ready_line->pop_back();
  return child;
}

ChildProcess::~ChildProcess() {
  if (to_child_ >= 0) close(to_child_);
  if (pid_ > 0) {
    int status = 0;
    waitpid(pid_, &status, 0);
  }
}

void AnnounceAndWaitForParent(const std::string& ready_line) {
  std::printf("%s\n", ready_line.c_str());
  std::fflush(stdout);
  char c;
  while (read(STDIN_FILENO, &c, 1) > 0) {
  }
}

double ProcessCpuSeconds(pid_t pid) {
  // The process's CPU-time clock (all its threads, to the nanosecond; /proc's counts are in
  // 10 ms ticks).
  clockid_t clock;
  timespec t{};
  if (clock_getcpuclockid(pid, &clock) != 0 || clock_gettime(clock, &t) != 0) return 0.0;
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

}  // namespace ligature::bench
