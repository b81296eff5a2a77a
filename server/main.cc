// ligatured: flags -> ServerOptions -> run until SIGINT or SIGTERM.

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/strings/string_view.h"
#include "server/ops/metrics_exporter.h"
#include "server/ops/agones_sdk.h"
#include "server/rpc/server.h"
#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/host/snapshot_files.h"
#include "server/host/snapshot_writer.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50051", "Address to serve on, host:port.");
ABSL_FLAG(std::string, scene, "default",
          "Scene of the world created at start-up: a built-in scene name or a .textproto/.json "
          "file. Empty: start with no world.");
ABSL_FLAG(std::string, world_id, "default", "Id of the world created at start-up.");
ABSL_FLAG(int, max_worlds, 64, "Most worlds the server hosts at once.");
ABSL_FLAG(int, max_bodies, 100000, "Most bodies in one world.");
ABSL_FLAG(int, max_constraints, 100000, "Most user constraints in one world.");
ABSL_FLAG(int, worker_threads, 2, "Threads that step worlds (one world per thread at a time).");
ABSL_FLAG(int, max_message_mb, 64, "Largest request or response, in MiB.");
ABSL_FLAG(std::string, metrics_address, "",
          "Serve Prometheus metrics over HTTP at http://ADDRESS/metrics (host:port; port 0 "
          "picks a free one). Empty: no metrics.");

ABSL_FLAG(std::string, token_file, "",
          "Bearer tokens with per-world roles, one `TOKEN viewer|editor|owner WORLD|*` per "
          "line; reloaded on SIGHUP. Empty: no authentication.");
ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain of the server (TLS).");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of the server (TLS).");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA whose certificates clients must present (mutual TLS).");
ABSL_FLAG(bool, allow_insecure, false,
          "Serve without TLS on an address that is not loopback (with a warning).");
ABSL_FLAG(int, haptic_udp_port, 0,
          "UDP port of the haptic datagram channel, on the --listen host: 0 picks a free one "
          "(sessions are told which), -1 turns datagrams off (haptics on streams only).");
ABSL_FLAG(std::string, nats_url, "",
          "NATS server (nats://host:port) to publish the frames of --nats_worlds to, for "
          "viewer gateways; empty: no publishing. The broker may come later or go away: "
          "frames are published once it is there.");
ABSL_FLAG(std::vector<std::string>, nats_worlds, {},
          "Comma-separated ids of the worlds whose frames go to --nats_url, each on subject "
          "<--nats_subject_prefix>.<id>, whenever a world of that id exists; * for every "
          "world.");
ABSL_FLAG(std::string, nats_subject_prefix, "ligature.frames",
          "Subject prefix of the published frames.");
ABSL_FLAG(double, max_edits_per_second, 0.0,
          "Scene edits (a batch counts each edit) one client host may make per second, with "
          "a burst of one second's worth; beyond it RESOURCE_EXHAUSTED. 0: no limit.");
ABSL_FLAG(int, event_log_events, 65536,
          "Contact and trigger events each world keeps for event streams that fall behind "
          "(WatchEvents); older ones are dropped and counted to those streams.");
ABSL_FLAG(int, checkpoint_interval, 10,
          "Ticks between the in-memory copies of each world that a diverged step rolls back "
          "to; 0 turns the divergence guard off.");
ABSL_FLAG(double, diverge_max_position, 1e7,
          "A position component beyond this (m) counts as divergence.");
ABSL_FLAG(double, diverge_max_speed, 1e6, "A speed beyond this (m/s) counts as divergence.");
ABSL_FLAG(double, diverge_max_angular_speed, 1e6,
          "An angular speed beyond this (rad/s) counts as divergence.");
ABSL_FLAG(std::string, data_dir, "",
          "Directory for world snapshots: every world is restored from its newest valid "
          "snapshot at start, and snapshotted every --snapshot_interval_s. Empty: none.");
ABSL_FLAG(int, asset_store_mb, 1024,
          "Mesh asset geometry the server keeps in all (MiB); an upload beyond it gets "
          "RESOURCE_EXHAUSTED. With --data_dir the assets are kept in its assets/ folder.");
ABSL_FLAG(double, snapshot_interval_s, 60.0,
          "Seconds between snapshots of every world to --data_dir (> 0).");

namespace {

// Every world in `dir` back from its newest valid snapshot; a file that does not load is
// reported and the one before it is tried.
void RestoreWorlds(const std::string& dir, ligature::Server* server,
                   ligature::SnapshotWriter* writer) {
  if (const int n = ligature::RemoveTemporaryFiles(dir); n > 0) {
    std::fprintf(stderr, "ligatured: removed %d unfinished snapshot file(s) from %s\n", n,
                 dir.c_str());
  }
  std::vector<std::string> problems;
  std::vector<ligature::LoadedWorld> loaded =
      ligature::LoadNewestSnapshots(dir, server->worlds().options().world_limits, &problems);
  for (const std::string& p : problems) std::fprintf(stderr, "ligatured: %s\n", p.c_str());
  for (ligature::LoadedWorld& w : loaded) {
    const uint64_t tick = w.world->tick();
    auto host = server->worlds().Adopt(w.world_id, std::move(w.world));
    if (!host.ok()) {
      std::fprintf(stderr, "ligatured: %s: %s\n", w.path.c_str(),
                   std::string(host.status().message()).c_str());
      continue;
    }
    writer->Track(w.world_id);
    std::fprintf(stderr, "ligatured: world %s restored from %s (tick %llu)\n",
                 (*host)->name().c_str(), w.path.c_str(), static_cast<unsigned long long>(tick));
  }
}

// The mesh assets kept under --data_dir; a file that does not load is reported and left out.
void LoadAssets(ligature::Server* server) {
  const std::string& dir = server->worlds().options().assets.dir;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::vector<std::string> problems;
  server->worlds().assets().Load(&problems);
  for (const std::string& p : problems) std::fprintf(stderr, "ligatured: %s\n", p.c_str());
}

// A scene flag names a file when it looks like a path, else a built-in scene.
absl::StatusOr<ligature::v1::Scene> LoadStartupScene(const std::string& scene) {
  if (std::filesystem::exists(scene) || scene.find('/') != std::string::npos ||
      scene.find('.') != std::string::npos) {
    return ligature::LoadSceneFile(scene);
  }
  return ligature::LoadBuiltinScene(scene);
}

// Prints "ligatured: <message>". An absl::string_view, as absl::Status::message() is (with
// Debian's Abseil it is not std::string_view).
void Report(absl::string_view message) {
  std::fprintf(stderr, "ligatured: %.*s\n", static_cast<int>(message.size()), message.data());
}

// Reports `message` and returns `code`, the process's exit code.
int Fail(int code, absl::string_view message) {
  Report(message);
  return code;
}

// The server's options from the flags, or why they do not make a server.
absl::StatusOr<ligature::ServerOptions> OptionsFromFlags() {
  ligature::ServerOptions options;
  options.listen_address = absl::GetFlag(FLAGS_listen);
  options.worlds.max_worlds = absl::GetFlag(FLAGS_max_worlds);
  options.worlds.world_limits.max_bodies = absl::GetFlag(FLAGS_max_bodies);
  options.worlds.world_limits.max_constraints = absl::GetFlag(FLAGS_max_constraints);
  options.worlds.worker_threads = absl::GetFlag(FLAGS_worker_threads);
  options.max_message_bytes = absl::GetFlag(FLAGS_max_message_mb) << 20;
  options.max_edits_per_second = absl::GetFlag(FLAGS_max_edits_per_second);
  options.worlds.assets.max_bytes =
      static_cast<uint64_t>(std::max(0, absl::GetFlag(FLAGS_asset_store_mb))) << 20;
  if (!absl::GetFlag(FLAGS_data_dir).empty()) {
    options.worlds.assets.dir =
        (std::filesystem::path(absl::GetFlag(FLAGS_data_dir)) / "assets").string();
  }
  options.token_file = absl::GetFlag(FLAGS_token_file);
  options.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  options.tls_key = absl::GetFlag(FLAGS_tls_key);
  options.tls_client_ca = absl::GetFlag(FLAGS_tls_client_ca);
  options.allow_insecure = absl::GetFlag(FLAGS_allow_insecure);
  options.haptic_datagram_port = absl::GetFlag(FLAGS_haptic_udp_port);
  options.publish.url = absl::GetFlag(FLAGS_nats_url);
  options.publish.worlds = absl::GetFlag(FLAGS_nats_worlds);
  options.publish.subject_prefix = absl::GetFlag(FLAGS_nats_subject_prefix);
  if (options.haptic_datagram_port < -1 || options.haptic_datagram_port > 65535) {
    return absl::InvalidArgumentError("--haptic_udp_port must be -1 or in [0, 65535]");
  }
  if (absl::GetFlag(FLAGS_event_log_events) < 1) {
    return absl::InvalidArgumentError("--event_log_events must be positive");
  }
  options.worlds.events.max_events = absl::GetFlag(FLAGS_event_log_events);
  ligature::DivergenceGuardOptions& guard = options.worlds.guard;
  guard.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
  guard.bounds.max_position = absl::GetFlag(FLAGS_diverge_max_position);
  guard.bounds.max_speed = absl::GetFlag(FLAGS_diverge_max_speed);
  guard.bounds.max_angular_speed = absl::GetFlag(FLAGS_diverge_max_angular_speed);
  if (guard.checkpoint_interval < 0 || !(guard.bounds.max_position > 0.0) ||
      !(guard.bounds.max_speed > 0.0) || !(guard.bounds.max_angular_speed > 0.0)) {
    return absl::InvalidArgumentError(
        "--checkpoint_interval must be >= 0 and the divergence bounds positive");
  }
  if (options.worlds.max_worlds < 1 || options.worlds.worker_threads < 1 ||
      options.worlds.world_limits.max_bodies < 1 || options.max_message_bytes < (1 << 20)) {
    return absl::InvalidArgumentError("limits and thread counts must be positive");
  }
  return options;
}

// With --data_dir: the snapshot writer, after every world in the directory is back. Without:
// null.
absl::StatusOr<std::unique_ptr<ligature::SnapshotWriter>> RestoreFromDataDir(
    ligature::Server* server) {
  const std::string data_dir = absl::GetFlag(FLAGS_data_dir);
  if (data_dir.empty()) return nullptr;
  const double snapshot_interval = absl::GetFlag(FLAGS_snapshot_interval_s);
  std::error_code ec;
  std::filesystem::create_directories(data_dir, ec);
  if (ec || !std::filesystem::is_directory(data_dir) || !(snapshot_interval > 0.0) ||
      !std::isfinite(snapshot_interval)) {
    return absl::InvalidArgumentError(
        "--data_dir must be a usable directory and --snapshot_interval_s > 0");
  }
  ligature::SnapshotWriterOptions snapshot_options;
  snapshot_options.dir = data_dir;
  snapshot_options.interval = absl::Seconds(snapshot_interval);
  auto snapshots = std::make_unique<ligature::SnapshotWriter>(&server->worlds(), snapshot_options);
  LoadAssets(server);
  RestoreWorlds(data_dir, server, snapshots.get());
  return snapshots;
}

// The --scene world, unless a snapshot brought a world of that id back.
absl::Status CreateStartupWorld(ligature::Server* server) {
  const std::string scene_flag = absl::GetFlag(FLAGS_scene);
  const std::string world_id = absl::GetFlag(FLAGS_world_id);
  const bool restored = !absl::GetFlag(FLAGS_data_dir).empty() && server->worlds().Get(world_id).ok();
  if (scene_flag.empty() || restored) return absl::OkStatus();
  auto proto = LoadStartupScene(scene_flag);
  absl::StatusOr<ligature::SceneDesc> scene =
      proto.ok() ? ligature::SceneFromProto(*proto, server->worlds().assets().Lookup())
                 : proto.status();
  if (!scene.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--scene=", scene_flag, ": ", scene.status().message()));
  }
  auto host = server->worlds().Create(world_id, *scene);
  if (!host.ok()) return host.status();
  std::fprintf(stderr, "ligatured: world %s from scene %s (%d bodies, %.0f Hz)\n",
               (*host)->name().c_str(), scene_flag.c_str(), (*host)->Info().body_count,
               (*host)->Info().settings.rate_hz);
  return absl::OkStatus();
}

// With --metrics_address: the exporter, serving. Without: null.
absl::StatusOr<std::unique_ptr<ligature::MetricsExporter>> StartMetrics(ligature::Server* server) {
  const std::string address = absl::GetFlag(FLAGS_metrics_address);
  if (address.empty()) return nullptr;
  auto exporter = ligature::MetricsExporter::Start(address, &server->worlds(),
                                                   &server->sessions(), &server->haptics());
  if (!exporter.ok()) return exporter.status();
  std::fprintf(stderr, "ligatured: metrics on http://%s/metrics (port %d)\n", address.c_str(),
               (*exporter)->port());
  return exporter;
}

// Under Agones: ready once serving, then health pings until exit. A sidecar that cannot be
// reached is reported; Agones itself then acts on the missing ready or health.
std::unique_ptr<ligature::AgonesSdk> StartAgones(std::optional<int> port) {
  if (!port.has_value()) return nullptr;
  auto agones = std::make_unique<ligature::AgonesSdk>(*port);
  if (absl::Status s = agones->Ready(); !s.ok()) {
    Report(s.message());
  } else {
    std::fprintf(stderr, "ligatured: Agones SDK on port %d: ready\n", agones->port());
  }
  agones->StartHealth();
  return agones;
}

// Serves until SIGINT or SIGTERM; SIGHUP reloads the token file.
void ServeUntilStopped(const sigset_t& signals, ligature::Server* server) {
  int signal_number = 0;
  while (sigwait(&signals, &signal_number) == 0 && signal_number == SIGHUP) {
    const absl::Status reloaded = server->ReloadTokens();
    std::fprintf(stderr, "ligatured: SIGHUP: %s\n",
                 reloaded.ok() ? "token file reloaded"
                               : std::string(reloaded.message()).c_str());
  }
  std::fprintf(stderr, "ligatured: %s, shutting down\n",
               signal_number == SIGINT ? "SIGINT" : "SIGTERM");
}

int Run() {
  absl::StatusOr<ligature::ServerOptions> options = OptionsFromFlags();
  if (!options.ok()) return Fail(2, options.status().message());
  // Under Agones the sidecar's port is in the environment; a malformed one is a bad flag.
  auto agones_port = ligature::AgonesSdk::PortFromEnv();
  if (!agones_port.ok()) return Fail(2, agones_port.status().message());

  // Signals are taken by this thread in ServeUntilStopped, so block them everywhere first.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  sigaddset(&signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  ligature::Server server(*options);
  // Snapshots: worlds come back from the data directory before the start-up scene.
  auto snapshots = RestoreFromDataDir(&server);
  if (!snapshots.ok()) return Fail(2, snapshots.status().message());
  if (absl::Status s = CreateStartupWorld(&server); !s.ok()) return Fail(2, s.message());
  if (absl::Status s = server.Start(); !s.ok()) return Fail(1, s.message());
  if (*snapshots != nullptr) (*snapshots)->Start();
  // The bound port is printed too: with port 0 the system picks it (tests rely on this).
  std::fprintf(stderr, "ligatured: serving on %s (port %d)\n", options->listen_address.c_str(),
               server.port());
  if (server.datagram_port() != 0) {
    std::fprintf(stderr, "ligatured: haptic datagrams on UDP port %d\n", server.datagram_port());
  }

  // Metrics, when asked for: a failure to bind stops the server like a bad --listen.
  auto metrics = StartMetrics(&server);
  if (!metrics.ok()) {
    server.Shutdown();
    server.Wait();
    return Fail(1, metrics.status().message());
  }
  std::unique_ptr<ligature::AgonesSdk> agones = StartAgones(*agones_port);

  ServeUntilStopped(signals, &server);
  if (agones != nullptr) {
    if (absl::Status s = agones->Shutdown(); !s.ok()) Report(s.message());
  }
  // A last snapshot of every world before they close.
  if (*snapshots != nullptr) {
    (*snapshots)->Stop();
    (*snapshots)->WriteAll();
  }
  server.Shutdown();
  server.Wait();
  std::fprintf(stderr, "ligatured: stopped\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // Lock order is checked at compile time (clang's thread-safety analysis) and by the
  // tests; the server does not pay Abseil's run-time deadlock graph on every lock.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  absl::SetProgramUsageMessage(
      "the Ligature real-time physics server.\n"
      "usage: ligatured [--flag=value ...]; --helpfull also lists the libraries' flags");
  // --help and --helpshort list this file's flags (Abseil's default matches only a file
  // named after the program); --helpfull lists every flag linked in.
  absl::FlagsUsageConfig usage;
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::EndsWith(file, "server/main.cc");
  };
  usage.contains_helpshort_flags = usage.contains_help_flags;
  absl::SetFlagsUsageConfig(usage);
  absl::ParseCommandLine(argc, argv);
  return Run();
}
