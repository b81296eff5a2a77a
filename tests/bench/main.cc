// ligature-bench: runs the registered benchmarks and prints one JSON line per result on
// stdout. Everything else (progress, errors, usage) goes to stderr.
//
//   ligature-bench --list
//   ligature-bench [--quick] [--filter REGEX]

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <string>
#include <string_view>

#include "absl/synchronization/mutex.h"
#include "tests/bench/haptics/peer_process.h"
#include "tests/bench/world/crowd_server.h"
#include "tests/bench/registry.h"

namespace ligature::bench {
namespace {

struct Flags {
  bool list = false;
  bool quick = false;
  std::string filter;  // empty: every benchmark
};

void PrintUsage() {
  std::fprintf(stderr,
               "usage: ligature-bench --list\n"
               "       ligature-bench [--quick] [--filter REGEX]\n"
               "  --list          print the benchmark names, one per line\n"
               "  --quick         fewer timed steps; the whole run stays under a minute\n"
               "  --filter REGEX  run only benchmarks whose name matches (ECMAScript search)\n");
}

// Hand-parses argv; returns false (after printing why) on anything it does not know.
bool ParseFlags(int argc, char** argv, Flags* flags) {
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--list") {
      flags->list = true;
    } else if (arg == "--quick") {
      flags->quick = true;
    } else if (arg == "--filter") {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ligature-bench: --filter needs a regex\n");
        return false;
      }
      flags->filter = argv[++i];
    } else if (arg.starts_with("--filter=")) {
      flags->filter = std::string(arg.substr(std::string_view("--filter=").size()));
    } else {
      std::fprintf(stderr, "ligature-bench: unknown argument '%s'\n", argv[i]);
      return false;
    }
  }
  return true;
}

int Main(int argc, char** argv) {
  // The haptics benchmarks' servers run in a child started as this executable again.
  if (const char* probes = std::getenv(kServeEnv)) return ServeHapticsPeers(std::atoi(probes));
  // So does world/viewers' server.
  if (const char* spec = std::getenv(kServeCrowdEnv)) return ServeCrowdWorld(spec);
  if (const char* url = std::getenv(kServeGatewayEnv)) return ServeGateway(url);
  Flags flags;
  if (!ParseFlags(argc, argv, &flags)) {
    PrintUsage();
    return 2;
  }

  // std::regex reports a bad pattern only by throwing, so this is the one place that catches.
  std::regex filter;
  try {
    filter = std::regex(flags.filter.empty() ? std::string(".*") : flags.filter);
  } catch (const std::regex_error& e) {
    std::fprintf(stderr, "ligature-bench: bad --filter regex: %s\n", e.what());
    return 2;
  }

  const RunOptions options{.quick = flags.quick};
  int matched = 0;
  bool all_ok = true;
  for (const Benchmark& bench : Registry::Global().benches()) {
    if (!std::regex_search(bench.name, filter)) continue;
    ++matched;
    if (flags.list) {
      std::printf("%s\n", bench.name.c_str());
      continue;
    }
    const RunResult result = bench.run(options);
    all_ok = all_ok && result.ok;
    // Flush per benchmark so a partial run still leaves complete results behind.
    for (const std::string& line : result.json_lines) std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  }
  if (matched == 0) {
    std::fprintf(stderr, "ligature-bench: no benchmark matches '%s'\n", flags.filter.c_str());
    return 1;
  }
  return all_ok ? 0 : 1;
}

}  // namespace
}  // namespace ligature::bench

int main(int argc, char** argv) {
  // As ligatured: no run-time deadlock graph on every lock in the timed code.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  return ligature::bench::Main(argc, argv);
}
