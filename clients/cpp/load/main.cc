// ligature-load: puts a server under load (worlds, edits, watchers, haptic devices) for a
// while and reports tick overruns, latencies, lost edits and the server's memory. Exits 0
// when there was no crash, no lost edit and no error. See LoadUsage() for the flags.

#include <cstdio>

#include "clients/cpp/load/load_options.h"
#include "clients/cpp/load/load_run.h"
#include "clients/cpp/load/server_process.h"

int main(int argc, char** argv) {
  using namespace ligature::load;
  auto options = ParseLoadOptions(argc, argv);
  if (!options.ok()) {
    std::fprintf(stderr, "ligature-load: %s\n%s", std::string(options.status().message()).c_str(),
                 LoadUsage().c_str());
    return 2;
  }
  ServerProcess server = ServerProcess::Existing(options->server_pid, options->address);
  if (!options->spawn.empty()) {
    auto spawned = ServerProcess::Spawn(options->spawn, options->server_args, options->server_log);
    if (!spawned.ok()) {
      std::fprintf(stderr, "ligature-load: %s\n", std::string(spawned.status().message()).c_str());
      return 1;
    }
    server = *spawned;
  }
  std::printf("ligature-load: %d worlds, %d watchers, %d haptic devices, %.1f edits/s per "
              "world, %.0f s against %s (pid %d)\n",
              options->worlds, options->watchers, options->haptics, options->edit_rate,
              options->duration_s, server.address().c_str(), static_cast<int>(server.pid()));
  std::fflush(stdout);
  LoadReport report = RunLoad(*options, server);
  if (!options->spawn.empty()) {
    const std::string end = server.Stop();
    if (report.crash.empty()) report.crash = end;
  }
  return PrintReport(report) ? 0 : 1;
}
