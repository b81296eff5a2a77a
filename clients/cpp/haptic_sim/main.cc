// ligature-haptic-sim: a haptic device simulator. Opens a HapticsService session on a tool,
// replays a scripted trajectory at a fixed rate (1-4 kHz), and reports the round-trip
// latency of every force (server mode) or the local solve time (remote mode), the forces
// and the flags seen. With --datagrams poses and forces go over the server's UDP channel
// (falling back to the stream when it is blocked), and the report adds the transport, the
// poses whose force was lost, and the longest gap between fresh forces.
//
//   ligature-haptic-sim --world W --tool BODY [--server ADDR] [--script press|stroke|tap|hold]
//       [--rate HZ] [--seconds S] [--origin x,y,z] [--depth M] [--remote] [--datagrams]
//       [--stiffness N/m] [--force-limit N]
//       [--tls [--tls-ca FILE] [--tls-cert FILE --tls-key FILE]] [--token TOKEN]
//
// The token may also come from the LIGATURE_TOKEN environment variable.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "clients/cpp/client.h"
#include "clients/cpp/haptic_session.h"
#include "clients/cpp/haptic_sim/scripts.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"

namespace ligature::client {
namespace {

struct Flags {
  std::string server = "127.0.0.1:50051";
  std::string world;
  std::string tool;
  std::string script = "press";
  double rate = 1000.0;
  double seconds = 5.0;
  Vec3 origin = Vec3::Zero();
  double depth = 0.01;
  bool remote = false;
  bool datagrams = false;
  double stiffness = 0.0;
  double force_limit = 0.0;
  Credentials credentials;
};

int Usage(const char* why) {
  std::fprintf(stderr,
               "%s\nusage: ligature-haptic-sim --world W --tool BODY [--server ADDR]\n"
               "  [--script press|stroke|tap|hold] [--rate HZ (1000-4000)] [--seconds S]\n"
               "  [--origin x,y,z (m, default 0,0,0)] [--depth M] [--remote] [--datagrams]\n"
               "  [--stiffness N/m] [--force-limit N]\n"
               "  [--tls [--tls-ca FILE] [--tls-cert FILE --tls-key FILE]]\n"
               "  [--token TOKEN (default: $LIGATURE_TOKEN)]\n",
               why);
  return 2;
}

bool ParseVec(const std::string& text, Vec3* out) {
  std::vector<std::string> parts = absl::StrSplit(text, ',');
  if (parts.size() != 3) return false;
  for (int i = 0; i < 3; ++i) {
    if (!absl::SimpleAtod(parts[i], &(*out)[i])) return false;
  }
  return true;
}

bool Parse(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](std::string* out) {
      if (i + 1 >= argc) return false;
      *out = argv[++i];
      return true;
    };
    std::string v;
    if (a == "--remote") {
      f->remote = true;
    } else if (a == "--datagrams") {
      f->datagrams = true;
    } else if (a == "--tls") {
      f->credentials.tls = true;
    } else if (a == "--tls-ca") {
      if (!value(&f->credentials.ca_file)) return false;
    } else if (a == "--tls-cert") {
      if (!value(&f->credentials.cert_file)) return false;
    } else if (a == "--tls-key") {
      if (!value(&f->credentials.key_file)) return false;
    } else if (a == "--token") {
      if (!value(&f->credentials.token) || f->credentials.token.empty()) return false;
    } else if (a == "--server") {
      if (!value(&f->server)) return false;
    } else if (a == "--world") {
      if (!value(&f->world)) return false;
    } else if (a == "--tool") {
      if (!value(&f->tool)) return false;
    } else if (a == "--script") {
      if (!value(&f->script)) return false;
    } else if (a == "--origin") {
      if (!value(&v) || !ParseVec(v, &f->origin)) return false;
    } else {
      double* target = a == "--rate"          ? &f->rate
                       : a == "--seconds"     ? &f->seconds
                       : a == "--depth"       ? &f->depth
                       : a == "--stiffness"   ? &f->stiffness
                       : a == "--force-limit" ? &f->force_limit
                                              : nullptr;
      if (target == nullptr || !value(&v) || !absl::SimpleAtod(v, target)) return false;
    }
  }
  if (f->credentials.token.empty()) {
    if (const char* token = std::getenv("LIGATURE_TOKEN")) f->credentials.token = token;
  }
  return !f->world.empty() && !f->tool.empty() && f->rate >= 1.0 && f->rate <= 4000.0 &&
         f->seconds > 0.0;
}

// The host of a host:port address (brackets of an IPv6 address removed).
std::string HostOf(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  return host;
}

double Pct(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p / 100.0 * v.size()))];
}

int Run(const Flags& f) {
  auto script = FindScript(f.script, f.seconds);
  if (!script.ok()) return Usage(std::string(script.status().message()).c_str());
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      MakeChannel(f.server, f.credentials, grpc::ChannelArguments());
  if (!channel.ok()) return Usage(std::string(channel.status().message()).c_str());
  ligature::v1::HapticOpen open;
  open.set_world(f.world.rfind("worlds/", 0) == 0 ? f.world : "worlds/" + f.world);
  open.set_tool_body_id(f.tool);
  open.set_device_id("ligature-haptic-sim");
  open.set_mode(f.remote ? ligature::v1::HAPTIC_MODE_REMOTE : ligature::v1::HAPTIC_MODE_SERVER);
  open.set_stiffness(f.stiffness);
  open.set_force_limit(f.force_limit);
  open.set_datagrams(f.datagrams);
  HapticSessionOptions options;
  options.datagram_host = HostOf(f.server);
  auto session = HapticSession::Open(*channel, open, options);
  if (!session.ok()) {
    std::fprintf(stderr, "%s\n", session.status().ToString().c_str());
    return 1;
  }
  const Vec3 origin = f.origin;
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(1.0 / f.rate));
  const int n = static_cast<int>(f.seconds * f.rate);
  std::vector<double> rtt_us;
  int over_1ms = 0, late = 0, clamped = 0, limited = 0, rejected = 0, stale = 0, lost = 0;
  // Server mode: when each fresh force (one answering a pose newer than the last) arrived.
  uint64_t fresh_sequence = 0;
  auto fresh_at = Clock::now();
  double longest_gap_ms = 0.0;
  double max_force = 0.0;
  Vec3 last_force = Vec3::Zero();
  auto deadline = Clock::now();
  for (int i = 0; i < n; ++i) {
    deadline += period;
    if (Clock::now() > deadline) ++late;
    std::this_thread::sleep_until(deadline);
    const double t = i / f.rate;
    haptics::DevicePose pose;
    pose.sequence = i + 1;
    pose.client_time = t;
    pose.position = script->position(t, origin, f.depth);
    const auto t0 = Clock::now();
    auto r = (*session)->Force(pose);
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (!r.ok()) {
      std::fprintf(stderr, "%s\n", r.status().ToString().c_str());
      return 1;
    }
    rtt_us.push_back(us);
    if (!f.remote && r->sequence != pose.sequence) ++lost;
    if (!f.remote && r->sequence > fresh_sequence) {
      const auto now = Clock::now();
      if (fresh_sequence != 0) {
        longest_gap_ms = std::max(
            longest_gap_ms, std::chrono::duration<double, std::milli>(now - fresh_at).count());
      }
      fresh_sequence = r->sequence;
      fresh_at = now;
    }
    over_1ms += us > 1000.0;
    clamped += r->clamped;
    limited += r->rate_limited;
    rejected += r->rejected_pose;
    stale += r->stale_model;
    max_force = std::max(max_force, r->force.norm());
    last_force = r->force;
  }
  const bool on_datagrams = (*session)->transport() == HapticSession::Transport::kDatagrams;
  const haptics::DatagramCounts counts = (*session)->datagram_counts();
  const absl::Status closed = (*session)->Close();
  std::printf(
      "%s mode, script %s at %.0f Hz for %.1f s: %d poses\n"
      "%s us: p50 %.1f  p99 %.1f  p99.9 %.1f  max %.1f  over 1 ms: %d  late periods: %d\n"
      "force: last (%.3f, %.3f, %.3f) N, max %.3f N; clamped %d, rate-limited %d, "
      "rejected %d, stale model %d\n",
      f.remote ? "remote" : "server", f.script.c_str(), f.rate, f.seconds, n,
      f.remote ? "local solve" : "round trip", Pct(rtt_us, 50), Pct(rtt_us, 99),
      Pct(rtt_us, 99.9), Pct(rtt_us, 100), over_1ms, late, last_force.x(), last_force.y(),
      last_force.z(), max_force, clamped, limited, rejected, stale);
  if (f.datagrams) {
    std::printf(
        "transport: %s; forces lost %d, longest gap between fresh forces %.2f ms; datagrams "
        "taken %llu, stale %llu, replayed %llu, forged %llu\n",
        on_datagrams ? "datagrams" : "stream (fell back)", lost, longest_gap_ms,
        static_cast<unsigned long long>(counts.taken),
        static_cast<unsigned long long>(counts.stale),
        static_cast<unsigned long long>(counts.replayed),
        static_cast<unsigned long long>(counts.forged));
  }
  return closed.ok() ? 0 : 1;
}

}  // namespace
}  // namespace ligature::client

int main(int argc, char** argv) {
  ligature::client::Flags flags;
  if (!ligature::client::Parse(argc, argv, &flags)) {
    return ligature::client::Usage("bad or missing arguments");
  }
  return ligature::client::Run(flags);
}
