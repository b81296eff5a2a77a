#include "clients/cpp/load/server_process.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ligature::load {

absl::StatusOr<ServerProcess> ServerProcess::Spawn(const std::string& binary,
                                                   const std::string& extra_args,
                                                   const std::string& log_path) {
  std::vector<std::string> args = {binary, "--listen=127.0.0.1:0"};
  for (absl::string_view a : absl::StrSplit(extra_args, ' ', absl::SkipEmpty())) {
    args.emplace_back(a);
  }
  // A log left by an earlier run would name its port: start from an empty one.
  std::remove(log_path.c_str());
  const pid_t pid = fork();
  if (pid < 0) return absl::InternalError("fork failed");
  if (pid == 0) {
    // Child: stderr and stdout to the log, then the server.
    FILE* log = std::fopen(log_path.c_str(), "w");
    if (log != nullptr) {
      dup2(fileno(log), 1);
      dup2(fileno(log), 2);
    }
    std::vector<char*> argv;
    for (std::string& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  ServerProcess p;
  p.pid_ = pid;
  p.spawned_ = true;
  // The start-up line names the bound port.
  const std::regex port_line(R"(serving on .* \(port (\d+)\))");
  for (int i = 0; i < 300; ++i) {
    std::ifstream in(log_path);
    std::stringstream text;
    text << in.rdbuf();
    std::smatch m;
    const std::string s = text.str();
    if (std::regex_search(s, m, port_line)) {
      p.address_ = absl::StrCat("127.0.0.1:", m[1].str());
      return p;
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return absl::InternalError(absl::StrCat(binary, " exited at start-up; see ", log_path));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid, SIGKILL);
  waitpid(pid, nullptr, 0);
  return absl::DeadlineExceededError(absl::StrCat(binary, " did not start; see ", log_path));
}

ServerProcess ServerProcess::Existing(pid_t pid, const std::string& address) {
  ServerProcess p;
  p.pid_ = pid;
  p.address_ = address;
  return p;
}

long ServerProcess::RssKib() const {
  if (pid_ <= 0) return -1;
  std::ifstream in(absl::StrCat("/proc/", pid_, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

bool ServerProcess::Alive() const {
  if (pid_ <= 0) return true;
  if (spawned_) {
    int status = 0;
    return waitpid(pid_, &status, WNOHANG) == 0;
  }
  return kill(pid_, 0) == 0;
}

std::string ServerProcess::Stop() {
  if (!spawned_ || pid_ <= 0) return Alive() ? "" : "the server process is gone";
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = 0;
    return absl::StrCat("the server ended during the run (", WIFSIGNALED(status)
                            ? absl::StrCat("signal ", WTERMSIG(status))
                            : absl::StrCat("exit ", WEXITSTATUS(status)), ")");
  }
  kill(pid_, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = 0;
      if (WIFSIGNALED(status)) return absl::StrCat("the server died on signal ", WTERMSIG(status));
      if (WEXITSTATUS(status) != 0) {
        return absl::StrCat("the server exited with ", WEXITSTATUS(status));
      }
      return "";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  kill(pid_, SIGKILL);
  waitpid(pid_, nullptr, 0);
  pid_ = 0;
  return "the server did not stop within 10 s of SIGTERM";
}

}  // namespace ligature::load
