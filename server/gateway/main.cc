// ligature-gateway: flags -> GatewayOptions -> serve Watch from the broker's frames until
// SIGINT or SIGTERM.

#include <csignal>
#include <cstdio>
#include <memory>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/string_view.h"
#include "server/gateway/gateway.h"
#include "server/gateway/gateway_metrics.h"
#include "server/ops/metrics_exporter.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:50061", "Address to serve on, host:port.");
ABSL_FLAG(std::string, nats_url, "nats://127.0.0.1:4222",
          "The NATS server ligatured publishes frames to, nats://host:port.");
ABSL_FLAG(std::string, nats_subject_prefix, "ligature.frames",
          "Subject prefix the frames are published under (<prefix>.<world id>).");
ABSL_FLAG(int, max_worlds, 1024, "Most worlds served at once.");
ABSL_FLAG(std::string, token_file, "",
          "Bearer tokens with per-world roles (as ligatured's); viewers need the viewer role.");
ABSL_FLAG(std::string, tls_cert, "", "PEM certificate chain of the gateway (TLS).");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of the gateway (TLS).");
ABSL_FLAG(std::string, tls_client_ca, "",
          "PEM CA whose certificates clients must present (mutual TLS).");
ABSL_FLAG(std::string, metrics_address, "",
          "host:port to serve Prometheus metrics on (GET /metrics); empty: none.");
ABSL_FLAG(bool, allow_insecure, false,
          "Serve without TLS on a non-loopback address (tokens and frames travel in clear).");

namespace {

void Report(absl::string_view message) {
  std::fprintf(stderr, "ligature-gateway: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

int Run() {
  ligature::GatewayOptions options;
  options.frames.url = absl::GetFlag(FLAGS_nats_url);
  options.frames.subject_prefix = absl::GetFlag(FLAGS_nats_subject_prefix);
  options.frames.max_worlds = absl::GetFlag(FLAGS_max_worlds);
  options.serve.listen_address = absl::GetFlag(FLAGS_listen);
  options.serve.cert = absl::GetFlag(FLAGS_tls_cert);
  options.serve.key = absl::GetFlag(FLAGS_tls_key);
  options.serve.client_ca = absl::GetFlag(FLAGS_tls_client_ca);
  options.serve.allow_insecure = absl::GetFlag(FLAGS_allow_insecure);
  options.token_file = absl::GetFlag(FLAGS_token_file);

  // Signals are taken by this thread below, so block them everywhere first.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  ligature::Gateway gateway(options);
  if (absl::Status s = gateway.Start(); !s.ok()) {
    Report(s.message());
    return absl::IsInvalidArgument(s) || absl::IsNotFound(s) ? 2 : 1;
  }
  // The bound port is printed: with port 0 the system picks it (tests rely on this).
  std::fprintf(stderr, "ligature-gateway: serving on %s (port %d), frames from %s\n",
               options.serve.listen_address.c_str(), gateway.port(), options.frames.url.c_str());
  // Metrics, when asked for: a failure to bind stops the gateway like a bad --listen.
  std::unique_ptr<ligature::MetricsExporter> metrics;
  if (const std::string address = absl::GetFlag(FLAGS_metrics_address); !address.empty()) {
    auto exporter = ligature::MetricsExporter::Start(
        address, std::make_shared<ligature::GatewayMetrics>(&gateway));
    if (!exporter.ok()) {
      Report(exporter.status().message());
      gateway.Shutdown();
      gateway.Wait();
      return 1;
    }
    metrics = *std::move(exporter);
    std::fprintf(stderr, "ligature-gateway: metrics on http://%s/metrics (port %d)\n",
                 address.c_str(), metrics->port());
  }
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  std::fprintf(stderr, "ligature-gateway: %s, shutting down\n",
               signal_number == SIGINT ? "SIGINT" : "SIGTERM");
  gateway.Shutdown();
  gateway.Wait();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Serves SessionService.Watch for the worlds ligatured publishes to NATS "
      "(--nats_url, --nats_worlds), with the same filters, rate limits and conflation.");
  absl::ParseCommandLine(argc, argv);
  return Run();
}
