#include "clients/cpp/load/load_run.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <deque>
#include <map>
#include <mutex>
#include <random>
#include <thread>

#include "absl/strings/str_cat.h"
#include "clients/cpp/client.h"
#include "clients/cpp/haptic_session.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "ligature/v1/scene_service.grpc.pb.h"
#include "ligature/v1/session_service.grpc.pb.h"
#include "ligature/v1/world_service.grpc.pb.h"

namespace ligature::load {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A channel on its own connection (distinct arguments keep gRPC from sharing one).
// The credentials were checked when the options were parsed; a file that has since become
// unreadable makes the channel plaintext, and its calls fail and are counted as errors.
std::shared_ptr<grpc::Channel> Channel(const LoadOptions& o, const std::string& address,
                                       int index) {
  grpc::ChannelArguments args;
  args.SetInt("ligature.load.channel", index);
  absl::StatusOr<client::ChannelMaker> maker = client::ChannelMaker::Create(o.credentials);
  if (!maker.ok()) {
    return grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  }
  return maker->Make(address, args);
}

void Deadline(grpc::ClientContext* ctx, double seconds = 10) {
  ctx->set_deadline(std::chrono::system_clock::now() +
                    std::chrono::milliseconds(static_cast<int64_t>(seconds * 1000)));
}

// State every worker adds to; merged into the report at the end.
struct Shared {
  std::mutex mu;
  LoadReport report;
  void Error(const std::string& what) {
    std::lock_guard<std::mutex> lock(mu);
    if (report.first_errors.size() < 20) report.first_errors.push_back(what);
  }
};

std::string WorldId(const LoadOptions& o, int i) { return absl::StrCat("load-", o.seed, "-", i); }

// Ground, a grid of balls, and the probes of the haptic devices assigned to world `w`.
v1::Scene LoadScene(const LoadOptions& o, int w) {
  v1::Scene scene;
  scene.mutable_settings()->set_rate_hz(o.rate_hz);
  v1::Body* ground = scene.add_bodies();
  ground->set_id("ground");
  ground->set_kind(v1::BODY_KIND_STATIC);
  ground->mutable_shape()->mutable_plane();
  for (int i = 0; i < o.balls; ++i) {
    v1::Body* b = scene.add_bodies();
    b->set_id(absl::StrCat("ball-", i));
    b->mutable_shape()->mutable_sphere()->set_radius(0.1);
    b->mutable_pose()->mutable_position()->set_x(-2.0 + (i % 5) * 0.8);
    b->mutable_pose()->mutable_position()->set_y(0.5 + (i / 25) * 0.3);
    b->mutable_pose()->mutable_position()->set_z(-2.0 + ((i / 5) % 5) * 0.8);
  }
  for (int d = w; d < o.haptics; d += o.worlds) {
    v1::Body* p = scene.add_bodies();
    p->set_id(absl::StrCat("probe-", d));
    p->mutable_shape()->mutable_sphere()->set_radius(0.02);
    p->mutable_material()->set_mass(0.05);
    p->mutable_pose()->mutable_position()->set_x(4.0 + d);
    p->mutable_pose()->mutable_position()->set_y(0.03);
  }
  return scene;
}

WorldFigures Figures(v1::WorldService::Stub& worlds, const std::string& id, Shared& shared) {
  grpc::ClientContext ctx;
  Deadline(&ctx);
  v1::GetWorldRequest req;
  req.set_name("worlds/" + id);
  v1::World w;
  const grpc::Status s = worlds.GetWorld(&ctx, req, &w);
  if (!s.ok()) shared.Error(absl::StrCat("GetWorld ", id, ": ", s.error_message()));
  return WorldFigures{id, w.tick(), w.overruns(), w.missed_ticks(), w.divergences()};
}

// One world's editor: random creates, material updates and deletes of its own bodies at
// `edit_rate`; every `check_interval` and at the end, the exported scene must hold each
// body it created and did not delete, with the friction it last set, and none it deleted.
void Editor(const LoadOptions& o, const std::string& world, std::shared_ptr<grpc::Channel> ch,
            Clock::time_point end, unsigned seed, Shared& shared) {
  auto scenes = v1::SceneService::NewStub(ch);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::map<std::string, double> live;  // id -> friction last acknowledged
  std::deque<std::string> deleted;     // recently deleted ids (acknowledged)
  Histogram latency;
  int64_t edits = 0, errors = 0, lost = 0, checks = 0, next_id = 0;
  const std::string parent = "worlds/" + world;

  auto check = [&] {
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::ExportSceneRequest req;
    req.set_parent(parent);
    v1::Scene scene;
    const grpc::Status s = scenes->ExportScene(&ctx, req, &scene);
    if (!s.ok()) {
      ++errors;
      shared.Error(absl::StrCat("ExportScene ", world, ": ", s.error_message()));
      return;
    }
    ++checks;
    std::map<std::string, double> present;
    for (const v1::Body& b : scene.bodies()) present[b.id()] = b.material().friction();
    for (const auto& [id, friction] : live) {
      auto it = present.find(id);
      if (it == present.end() || std::abs(it->second - friction) > 1e-12) {
        ++lost;
        shared.Error(absl::StrCat(world, "/", id, it == present.end()
                                                      ? ": created but missing"
                                                      : ": friction update not reflected"));
      }
    }
    for (const std::string& id : deleted) {
      if (present.contains(id)) {
        ++lost;
        shared.Error(absl::StrCat(world, "/", id, ": deleted but present"));
      }
    }
  };

  const Clock::time_point start = Clock::now();
  Clock::time_point next_check = start + std::chrono::duration_cast<Clock::duration>(
                                             std::chrono::duration<double>(o.check_interval_s));
  const auto period = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(o.edit_rate > 0 ? 1.0 / o.edit_rate : 1e9));
  for (Clock::time_point next = start; ; next += period) {
    std::this_thread::sleep_until(std::min(next, end));
    if (Clock::now() >= end) break;
    const double pick = unit(rng);
    const double friction = 0.1 + 0.9 * unit(rng);
    grpc::ClientContext ctx;
    Deadline(&ctx);
    grpc::Status s;
    const Clock::time_point t0 = Clock::now();
    if (live.size() < static_cast<size_t>(o.max_live_edits) && (live.empty() || pick < 0.4)) {
      v1::CreateBodyRequest req;
      req.set_parent(parent);
      const std::string id = absl::StrCat("e", next_id++);
      v1::Body* b = req.mutable_body();
      b->set_id(id);
      b->mutable_shape()->mutable_sphere()->set_radius(0.08);
      b->mutable_pose()->mutable_position()->set_x(-2.0 + 4.0 * unit(rng));
      b->mutable_pose()->mutable_position()->set_y(1.0 + 2.0 * unit(rng));
      b->mutable_pose()->mutable_position()->set_z(-2.0 + 4.0 * unit(rng));
      b->mutable_material()->set_friction(friction);
      v1::Body out;
      s = scenes->CreateBody(&ctx, req, &out);
      if (s.ok()) live[id] = friction;
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(unit(rng) * live.size()) % live.size());
      if (pick < 0.7 && live.size() < static_cast<size_t>(o.max_live_edits)) {
        v1::UpdateBodyRequest req;
        req.mutable_body()->set_name(absl::StrCat(parent, "/bodies/", it->first));
        req.mutable_body()->mutable_material()->set_friction(friction);
        req.mutable_update_mask()->add_paths("material");
        v1::Body out;
        s = scenes->UpdateBody(&ctx, req, &out);
        if (s.ok()) it->second = friction;
      } else {
        v1::DeleteBodyRequest req;
        req.set_name(absl::StrCat(parent, "/bodies/", it->first));
        v1::DeleteBodyResponse out;
        s = scenes->DeleteBody(&ctx, req, &out);
        if (s.ok()) {
          deleted.push_back(it->first);
          if (deleted.size() > 200) deleted.pop_front();
          live.erase(it);
        }
      }
    }
    latency.Add(Seconds(Clock::now() - t0));
    ++edits;
    if (!s.ok()) {
      ++errors;
      shared.Error(absl::StrCat("edit on ", world, ": ", s.error_message()));
    }
    if (Clock::now() >= next_check) {
      check();
      next_check += std::chrono::duration_cast<Clock::duration>(
          std::chrono::duration<double>(o.check_interval_s));
    }
  }
  check();
  std::lock_guard<std::mutex> lock(shared.mu);
  shared.report.edits += edits;
  shared.report.edit_errors += errors;
  shared.report.lost_edits += lost;
  shared.report.checks += checks;
  shared.report.edit_latency.Merge(latency);
}

// One Watch stream until the end of the run: frame intervals, frames in tick order.
void Watcher(const std::string& world, std::shared_ptr<grpc::Channel> ch,
             Clock::time_point end, Shared& shared) {
  auto sessions = v1::SessionService::NewStub(ch);
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() +
                   std::chrono::duration_cast<std::chrono::system_clock::duration>(end - Clock::now()));
  v1::WatchRequest req;
  req.set_world("worlds/" + world);
  auto reader = sessions->Watch(&ctx, req);
  v1::Frame frame;
  Histogram intervals;
  int64_t frames = 0;
  uint64_t last_tick = 0;
  bool order_error = false;
  Clock::time_point last;
  while (reader->Read(&frame)) {
    const Clock::time_point now = Clock::now();
    if (frames > 0) intervals.Add(Seconds(now - last));
    if (frames > 0 && frame.tick() < last_tick) order_error = true;
    last_tick = frame.tick();
    last = now;
    ++frames;
  }
  const grpc::Status s = reader->Finish();
  const bool failed = s.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED || order_error;
  if (failed) {
    shared.Error(absl::StrCat("watch ", world, ": ",
                              order_error ? "frames out of tick order" : s.error_message()));
  }
  std::lock_guard<std::mutex> lock(shared.mu);
  shared.report.frames += frames;
  shared.report.frame_interval.Merge(intervals);
  if (failed) ++shared.report.stream_errors;
}

// One haptic device at 1 kHz in server mode: small circles pressing the probe onto the
// ground; the round-trip time of each pose.
void Haptic(int device, const std::string& world, std::shared_ptr<grpc::Channel> ch,
            Clock::time_point end, Shared& shared) {
  v1::HapticOpen open;
  open.set_world("worlds/" + world);
  open.set_tool_body_id(absl::StrCat("probe-", device));
  open.set_device_id(absl::StrCat("load-device-", device));
  open.set_mode(v1::HAPTIC_MODE_SERVER);
  auto session = client::HapticSession::Open(ch, open);
  if (!session.ok()) {
    shared.Error(absl::StrCat("haptic open ", device, ": ", session.status().ToString()));
    std::lock_guard<std::mutex> lock(shared.mu);
    ++shared.report.stream_errors;
    return;
  }
  Histogram rtt;
  int64_t replies = 0, errors = 0, rejected = 0;
  const Clock::time_point start = Clock::now();
  uint64_t seq = 0;
  for (Clock::time_point next = start; Clock::now() < end;
       next += std::chrono::microseconds(1000)) {
    // A device samples at its own rate: after a stall it does not send the missed poses.
    if (Clock::now() - next > std::chrono::milliseconds(10)) next = Clock::now();
    std::this_thread::sleep_until(next);
    const double t = Seconds(Clock::now() - start);
    haptics::DevicePose pose;
    pose.sequence = ++seq;
    pose.client_time = t;
    pose.position = Vec3(4.0 + device + 0.02 * std::cos(t), 0.025, 0.02 * std::sin(t));
    const Clock::time_point t0 = Clock::now();
    auto reply = (*session)->Force(pose);
    rtt.Add(Seconds(Clock::now() - t0));
    if (!reply.ok()) {
      ++errors;
      shared.Error(absl::StrCat("haptic ", device, ": ", reply.status().ToString()));
      break;
    }
    ++replies;
    if (reply->rejected_pose || reply->out_of_order) ++rejected;
  }
  const absl::Status closed = (*session)->Close();
  std::lock_guard<std::mutex> lock(shared.mu);
  shared.report.haptic_replies += replies;
  shared.report.haptic_errors += errors;
  shared.report.haptic_rejected += rejected;
  shared.report.haptic_rtt.Merge(rtt);
  if (!closed.ok()) {
    ++shared.report.stream_errors;
    if (shared.report.first_errors.size() < 20) {
      shared.report.first_errors.push_back(absl::StrCat("haptic close: ", closed.ToString()));
    }
  }
}

}  // namespace

LoadReport RunLoad(const LoadOptions& o, ServerProcess& server) {
  Shared shared;
  shared.report.warmup_s = o.warmup_s;
  auto control = Channel(o, server.address(), 0);
  auto worlds = v1::WorldService::NewStub(control);

  // The worlds, fresh for this run.
  std::vector<std::string> ids;
  for (int i = 0; i < o.worlds; ++i) {
    const std::string id = WorldId(o, i);
    grpc::ClientContext ctx;
    Deadline(&ctx, 30);
    v1::CreateWorldRequest req;
    req.set_world_id(id);
    *req.mutable_scene() = LoadScene(o, i);
    v1::World out;
    const grpc::Status s = worlds->CreateWorld(&ctx, req, &out);
    if (!s.ok()) {
      shared.Error(absl::StrCat("CreateWorld ", id, ": ", s.error_message()));
      ++shared.report.edit_errors;
      continue;
    }
    ids.push_back(id);
  }
  if (ids.empty()) {
    shared.report.crash = server.Alive() ? "" : "the server process is gone";
    return shared.report;
  }
  std::vector<WorldFigures> before;
  for (const std::string& id : ids) before.push_back(Figures(*worlds, id, shared));

  const Clock::time_point start = Clock::now();
  const Clock::time_point end =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.duration_s));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < ids.size(); ++i) {
    threads.emplace_back(Editor, std::cref(o), ids[i], Channel(o, server.address(), 1),
                         end, o.seed * 1000 + static_cast<unsigned>(i), std::ref(shared));
  }
  // Watchers: 25 streams per connection.
  std::vector<std::shared_ptr<grpc::Channel>> watch_channels;
  for (int m = 0; m < o.watchers; ++m) {
    if (m % 25 == 0) watch_channels.push_back(Channel(o, server.address(), 100 + m / 25));
    threads.emplace_back(Watcher, ids[m % ids.size()], watch_channels.back(), end,
                         std::ref(shared));
  }
  for (int k = 0; k < o.haptics; ++k) {
    if (static_cast<size_t>(k % o.worlds) >= ids.size()) continue;
    threads.emplace_back(Haptic, k, ids[k % o.worlds], Channel(o, server.address(), 1000 + k),
                         end, std::ref(shared));
  }

  // Memory over time, and the server's liveness, on this thread.
  for (Clock::time_point next = start; Clock::now() < end;) {
    const double t = Seconds(Clock::now() - start);
    const long kib = server.RssKib();
    if (kib >= 0) {
      shared.report.rss.push_back({t, kib});
      std::printf("rss t=%.0fs %ld KiB\n", t, kib);
      std::fflush(stdout);
    }
    if (!server.Alive()) {
      shared.report.crash = "the server process ended during the run";
      break;
    }
    next += std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o.rss_interval_s));
    std::this_thread::sleep_until(std::min(next, end));
  }
  for (std::thread& t : threads) t.join();
  const long final_kib = server.RssKib();
  if (final_kib >= 0) shared.report.rss.push_back({Seconds(Clock::now() - start), final_kib});

  for (size_t i = 0; i < ids.size(); ++i) {
    WorldFigures after = Figures(*worlds, ids[i], shared);
    after.ticks -= before[i].ticks;
    after.overruns -= before[i].overruns;
    after.missed_ticks -= before[i].missed_ticks;
    after.divergences -= before[i].divergences;
    shared.report.worlds.push_back(after);
    grpc::ClientContext ctx;
    Deadline(&ctx);
    v1::DeleteWorldRequest req;
    req.set_name("worlds/" + ids[i]);
    v1::DeleteWorldResponse out;
    worlds->DeleteWorld(&ctx, req, &out);
  }
  if (shared.report.crash.empty() && !server.Alive()) {
    shared.report.crash = "the server process ended during the run";
  }
  return shared.report;
}

bool PrintReport(const LoadReport& r) {
  auto ms = [](double s) { return s * 1e3; };
  std::printf("\nworld               ticks  overruns  missed  divergences\n");
  for (const WorldFigures& w : r.worlds) {
    std::printf("%-16s %8llu %9llu %7llu %12llu\n", w.id.c_str(),
                static_cast<unsigned long long>(w.ticks),
                static_cast<unsigned long long>(w.overruns),
                static_cast<unsigned long long>(w.missed_ticks),
                static_cast<unsigned long long>(w.divergences));
  }
  std::printf("edits: %lld (errors %lld), lost %lld in %lld checks; latency p50 %.2f ms, "
              "p99 %.2f ms, max %.2f ms\n",
              static_cast<long long>(r.edits), static_cast<long long>(r.edit_errors),
              static_cast<long long>(r.lost_edits), static_cast<long long>(r.checks),
              ms(r.edit_latency.Quantile(0.5)), ms(r.edit_latency.Quantile(0.99)),
              ms(r.edit_latency.max()));
  std::printf("frames: %lld; interval p50 %.2f ms, p99 %.2f ms, max %.2f ms\n",
              static_cast<long long>(r.frames), ms(r.frame_interval.Quantile(0.5)),
              ms(r.frame_interval.Quantile(0.99)), ms(r.frame_interval.max()));
  std::printf("haptics: %lld replies (errors %lld, rejected %lld); RTT p50 %.3f ms, "
              "p99 %.3f ms, max %.2f ms\n",
              static_cast<long long>(r.haptic_replies), static_cast<long long>(r.haptic_errors),
              static_cast<long long>(r.haptic_rejected), ms(r.haptic_rtt.Quantile(0.5)),
              ms(r.haptic_rtt.Quantile(0.99)), ms(r.haptic_rtt.max()));
  std::printf("stream errors: %lld\n", static_cast<long long>(r.stream_errors));
  // Memory growth from the first sample after the warm-up to the last.
  long warm = -1, last = -1, peak = -1;
  for (const RssSample& s : r.rss) {
    if (s.t_s >= r.warmup_s && warm < 0) warm = s.kib;
    last = s.kib;
    peak = std::max(peak, s.kib);
  }
  if (!r.rss.empty()) {
    const double growth = warm > 0 ? 100.0 * (last - warm) / warm : 0.0;
    std::printf("rss: start %ld KiB, after warm-up (%.0f s) %ld KiB, end %ld KiB, peak %ld KiB; "
                "growth after warm-up %.2f%%\n",
                r.rss.front().kib, r.warmup_s, warm, last, peak, growth);
  } else {
    std::printf("rss: unknown (no server pid)\n");
  }
  for (const std::string& e : r.first_errors) std::printf("error: %s\n", e.c_str());
  std::printf("crashes: %d%s%s\n", r.crash.empty() ? 0 : 1, r.crash.empty() ? "" : " - ",
              r.crash.c_str());
  const bool ok = r.crash.empty() && r.lost_edits == 0 && r.edit_errors == 0 &&
                  r.stream_errors == 0 && r.haptic_errors == 0 && !r.worlds.empty();
  std::printf("RESULT: %s\n", ok ? "ok" : "FAIL");
  return ok;
}

}  // namespace ligature::load
