#include "tests/bench/haptics/loss_rig.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ligature::bench {

bool InLossRig() { return std::getenv(kLossRigEnv) != nullptr; }

absl::StatusOr<std::vector<std::string>> RunInLossRig(const std::string& bench, bool quick) {
  // This executable by its path: in the shell /proc/self/exe would be the shell.
  char self[4096];
  const ssize_t length = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (length <= 0) return absl::UnavailableError("cannot find this executable");
  const std::string command = absl::StrCat(
      kLossRigEnv, "=1 unshare --net ", geteuid() == 0 ? "" : "--map-root-user ", "'",
      std::string(self, length), "' --filter '^", bench, "$'", quick ? " --quick" : "");
  FILE* child = popen(command.c_str(), "r");
  if (child == nullptr) return absl::UnavailableError("cannot start the loss rig");
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof(buf), child)) out.append(buf, n);
  const int status = pclose(child);
  if (status != 0) {
    return absl::UnavailableError(absl::StrCat(
        "the loss rig failed (", command, " exited with ", WEXITSTATUS(status),
        "): it needs network namespaces (root, or unprivileged user namespaces) and nft"));
  }
  std::vector<std::string> lines;
  for (absl::string_view line : absl::StrSplit(out, '\n', absl::SkipEmpty())) {
    lines.emplace_back(line);
  }
  return lines;
}

absl::Status SetLoss(double percent) {
  static bool up = false;
  if (!up) {
    if (std::system("ip link set lo up") != 0) {
      return absl::UnavailableError("ip link set lo up failed");
    }
    up = true;
  }
  // One chain on the output hook: on loopback every packet passes it once, whichever way
  // it goes. The rule is in ten-thousandths.
  std::string rules = "flush ruleset\n";
  if (percent > 0.0) {
    const int per_10000 = static_cast<int>(percent * 100.0 + 0.5);
    absl::StrAppend(&rules, "table inet loss {\n  chain out {\n",
                    "    type filter hook output priority 0; policy accept;\n    ",
                    "numgen random mod 10000 < ", per_10000, " drop\n  }\n}\n");
  }
  FILE* nft = popen("nft -f -", "w");
  if (nft == nullptr) return absl::UnavailableError("cannot run nft");
  std::fputs(rules.c_str(), nft);
  if (pclose(nft) != 0) return absl::UnavailableError(absl::StrCat("nft refused:\n", rules));
  return absl::OkStatus();
}

}  // namespace ligature::bench
