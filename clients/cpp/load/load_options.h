#pragma once
// What a load run does, from command-line flags (--name=value).

#include <string>

#include "absl/status/statusor.h"
#include "clients/cpp/client.h"

namespace ligature::load {

struct LoadOptions {
  std::string address;        // server host:port (or empty with `spawn`)
  std::string spawn;          // ligatured binary to start on a free port
  std::string server_args = "--scene=";  // extra flags for the spawned server (no start-up world)
  std::string server_log = "ligature-load-server.log";
  int server_pid = 0;         // pid of an existing server (memory figures)
  int worlds = 2;             // N worlds, created for the run and deleted after
  int watchers = 4;           // M Watch streams, spread over the worlds
  int haptics = 1;            // K haptic devices (server mode, 1 kHz), spread over the worlds
  double edit_rate = 20;      // edits per second per world
  double duration_s = 10;
  double warmup_s = 2;        // memory growth is measured from the end of the warm-up
  double rss_interval_s = 1;  // how often memory is sampled
  double check_interval_s = 2;  // how often each world's content is checked against its edits
  double rate_hz = 60;        // tick rate of each world
  int balls = 20;             // dynamic bodies each world starts with
  int max_live_edits = 30;    // bodies an editor keeps alive at once
  unsigned seed = 1;
  client::Credentials credentials;  // TLS and token of every channel
};

absl::StatusOr<LoadOptions> ParseLoadOptions(int argc, char** argv);
std::string LoadUsage();

}  // namespace ligature::load
