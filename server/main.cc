// ligatured: flags -> ServerOptions -> run until SIGINT or SIGTERM.

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "server/metrics/metrics_exporter.h"
#include "server/rpc/agones_sdk.h"
#include "server/rpc/server.h"
#include "server/world/scene_library.h"
#include "server/world/scene_proto.h"

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

namespace {

// A scene flag names a file when it looks like a path, else a built-in scene.
absl::StatusOr<ligature::v1::Scene> LoadStartupScene(const std::string& scene) {
  if (std::filesystem::exists(scene) || scene.find('/') != std::string::npos ||
      scene.find('.') != std::string::npos) {
    return ligature::LoadSceneFile(scene);
  }
  return ligature::LoadBuiltinScene(scene);
}

int Run() {
  ligature::ServerOptions options;
  options.listen_address = absl::GetFlag(FLAGS_listen);
  options.worlds.max_worlds = absl::GetFlag(FLAGS_max_worlds);
  options.worlds.world_limits.max_bodies = absl::GetFlag(FLAGS_max_bodies);
  options.worlds.world_limits.max_constraints = absl::GetFlag(FLAGS_max_constraints);
  options.worlds.worker_threads = absl::GetFlag(FLAGS_worker_threads);
  options.max_message_bytes = absl::GetFlag(FLAGS_max_message_mb) << 20;
  if (options.worlds.max_worlds < 1 || options.worlds.worker_threads < 1 ||
      options.worlds.world_limits.max_bodies < 1 || options.max_message_bytes < (1 << 20)) {
    std::fprintf(stderr, "ligatured: limits and thread counts must be positive\n");
    return 2;
  }

  // Under Agones the sidecar's port is in the environment; a malformed one is a bad flag.
  auto agones_port = ligature::AgonesSdk::PortFromEnv();
  if (!agones_port.ok()) {
    std::fprintf(stderr, "ligatured: %s\n", std::string(agones_port.status().message()).c_str());
    return 2;
  }

  // Signals are taken by a dedicated thread, so block them everywhere first.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  ligature::Server server(options);
  const std::string scene_flag = absl::GetFlag(FLAGS_scene);
  if (!scene_flag.empty()) {
    auto proto = LoadStartupScene(scene_flag);
    absl::StatusOr<ligature::SceneDesc> scene =
        proto.ok() ? ligature::SceneFromProto(*proto) : proto.status();
    if (!scene.ok()) {
      std::fprintf(stderr, "ligatured: --scene=%s: %s\n", scene_flag.c_str(),
                   std::string(scene.status().message()).c_str());
      return 2;
    }
    auto host = server.worlds().Create(absl::GetFlag(FLAGS_world_id), *scene);
    if (!host.ok()) {
      std::fprintf(stderr, "ligatured: %s\n", std::string(host.status().message()).c_str());
      return 2;
    }
    std::fprintf(stderr, "ligatured: world %s from scene %s (%d bodies, %.0f Hz)\n",
                 (*host)->name().c_str(), scene_flag.c_str(), (*host)->Info().body_count,
                 (*host)->Info().settings.rate_hz);
  }
  if (absl::Status s = server.Start(); !s.ok()) {
    std::fprintf(stderr, "ligatured: %s\n", std::string(s.message()).c_str());
    return 1;
  }
  // The bound port is printed too: with port 0 the system picks it (tests rely on this).
  std::fprintf(stderr, "ligatured: serving on %s (port %d)\n", options.listen_address.c_str(),
               server.port());

  // Metrics, when asked for: a failure to bind stops the server like a bad --listen.
  std::unique_ptr<ligature::MetricsExporter> metrics;
  if (const std::string address = absl::GetFlag(FLAGS_metrics_address); !address.empty()) {
    auto exporter = ligature::MetricsExporter::Start(address, &server.worlds(),
                                                     &server.sessions(), &server.haptics());
    if (!exporter.ok()) {
      std::fprintf(stderr, "ligatured: %s\n", std::string(exporter.status().message()).c_str());
      server.Shutdown();
      server.Wait();
      return 1;
    }
    metrics = std::move(*exporter);
    std::fprintf(stderr, "ligatured: metrics on http://%s/metrics (port %d)\n",
                 address.c_str(), metrics->port());
  }

  // Agones: ready once serving, then health pings until exit. A sidecar that cannot be
  // reached is reported; Agones itself then acts on the missing ready or health.
  std::unique_ptr<ligature::AgonesSdk> agones;
  if (agones_port->has_value()) {
    agones = std::make_unique<ligature::AgonesSdk>(**agones_port);
    if (absl::Status s = agones->Ready(); !s.ok()) {
      std::fprintf(stderr, "ligatured: %s\n", std::string(s.message()).c_str());
    } else {
      std::fprintf(stderr, "ligatured: Agones SDK on port %d: ready\n", agones->port());
    }
    agones->StartHealth();
  }

  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::fprintf(stderr, "ligatured: %s, shutting down\n",
               signal_number == SIGINT ? "SIGINT" : "SIGTERM");
  if (agones != nullptr) {
    if (absl::Status s = agones->Shutdown(); !s.ok()) {
      std::fprintf(stderr, "ligatured: %s\n", std::string(s.message()).c_str());
    }
  }
  server.Shutdown();
  server.Wait();
  std::fprintf(stderr, "ligatured: stopped\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("ligatured: the Ligature real-time physics server");
  absl::ParseCommandLine(argc, argv);
  return Run();
}
