#include "server/rpc/frame_stream.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "absl/base/casts.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "server/rpc/frame_proto.h"
#include "server/scene/scene_proto.h"

namespace ligature {

absl::StatusOr<FrameStreamOptions> MakeFrameStreamOptions(
    const Frame& latest, double max_rate_hz,
    const google::protobuf::RepeatedPtrField<std::string>& body_ids) {
  FrameStreamOptions options;
  if (!std::isfinite(max_rate_hz) || max_rate_hz < 0.0 || max_rate_hz > 10000.0) {
    return absl::InvalidArgumentError("max_rate_hz: must be in [0, 10000]");
  }
  options.max_rate_hz = max_rate_hz;
  absl::flat_hash_set<std::string> present;
  for (const BodyState& b : latest.bodies) present.insert(b.id);
  for (int i = 0; i < body_ids.size(); ++i) {
    // A malformed id is a bad argument, as in Interact's poses; a well-formed one may be absent.
    const std::string field = absl::StrCat("body_ids[", i, "]");
    if (absl::Status s = ValidateId(body_ids[i], field); !s.ok()) return s;
    if (!present.contains(body_ids[i])) {
      return absl::NotFoundError(
          absl::StrCat("body_ids[", i, "]: body ", body_ids[i], " not found"));
    }
    options.only.insert(body_ids[i]);
  }
  return options;
}

absl::Status AddWatchFilter(const v1::WatchRequest& req, FrameStreamOptions* options) {
  FrameFilterOptions& f = options->filter;
  if (req.has_region()) {
    auto lo = Vec3FromProto(req.region().min(), "region.min");
    if (!lo.ok()) return lo.status();
    auto hi = Vec3FromProto(req.region().max(), "region.max");
    if (!hi.ok()) return hi.status();
    if (!(hi->array() >= lo->array()).all()) {
      return absl::InvalidArgumentError("region.max: must be >= region.min in every axis");
    }
    f.region = Region{*lo, *hi};
  }
  if (!std::isfinite(req.delta_threshold()) || req.delta_threshold() < 0.0) {
    return absl::InvalidArgumentError("delta_threshold: must be finite and >= 0");
  }
  f.delta_threshold = req.delta_threshold();
  if (req.key_frame_interval() < 0 || req.key_frame_interval() > 100000) {
    return absl::InvalidArgumentError("key_frame_interval: must be in [0, 100000]");
  }
  f.key_frame_interval = req.key_frame_interval() == 0 ? 30 : req.key_frame_interval();
  return absl::OkStatus();
}

// Drops from `message` the bodies the filter did not select.
static void KeepSelected(const Frame& frame, const FrameFilter::Selection& s,
                         v1::Frame* message) {
  absl::flat_hash_set<std::string> kept;
  for (size_t i = 0; i < frame.bodies.size(); ++i) {
    if (s.keep[i]) kept.insert(frame.bodies[i].id);
  }
  auto* bodies = message->mutable_bodies();
  int out = 0;
  for (int i = 0; i < bodies->size(); ++i) {
    if (!kept.contains(bodies->Get(i).id())) continue;
    if (out != i) bodies->SwapElements(out, i);
    ++out;
  }
  bodies->DeleteSubrange(out, bodies->size() - out);
}

void BuildFrameMessage(const Frame& frame, const FrameStreamOptions& options, FrameFilter* filter,
                       v1::Frame* message) {
  FrameToProto(frame, options.only, message);
  message->set_key_frame(true);
  if (filter == nullptr || !filter->active()) return;
  const FrameFilter::Selection selection = filter->Select(frame);
  KeepSelected(frame, selection, message);
  message->set_key_frame(selection.key_frame);
}

std::optional<std::string> SharedViewKey(const FrameStreamOptions& options) {
  if (options.filter.delta_threshold > 0.0) return std::nullopt;
  // Sorted ids, then the region's corners bit for bit: equal keys, equal messages.
  std::vector<std::string> ids(options.only.begin(), options.only.end());
  std::sort(ids.begin(), ids.end());
  std::string key = absl::StrJoin(ids, ",");
  if (options.filter.region) {
    const Region& r = *options.filter.region;
    absl::StrAppend(&key, "|");
    for (const Vec3* v : {&r.min, &r.max}) {
      for (int i = 0; i < 3; ++i) absl::StrAppend(&key, absl::bit_cast<uint64_t>((*v)[i]), ";");
    }
  }
  return key;
}

absl::Status StreamFrames(const WorldHost& host, const FrameStreamOptions& options,
                          const std::function<bool(const v1::Frame&)>& write,
                          const std::function<absl::Status()>& should_stop,
                          const std::atomic<bool>& server_stopping,
                          StreamCounters* counters) {
  using Clock = std::chrono::steady_clock;
  // The stream counts as open until it returns.
  StreamCounters unused;
  StreamCounters& count = counters != nullptr ? *counters : unused;
  count.open.fetch_add(1, std::memory_order_relaxed);
  struct CloseCount {
    StreamCounters& count;
    ~CloseCount() { count.open.fetch_sub(1, std::memory_order_relaxed); }
  } close_count{count};
  // How often a quiet stream checks for cancellation.
  constexpr auto kPoll = std::chrono::milliseconds(100);
  uint64_t seen = 0;
  Clock::time_point next_send = Clock::now();
  FrameFilter filter(options.filter);
  v1::Frame message;
  while (true) {
    if (absl::Status s = should_stop(); !s.ok()) return s;
    uint64_t version = 0;
    bool open = true;
    std::shared_ptr<const Frame> frame =
        host.WaitForFrame(seen, absl::FromChrono(kPoll), &version, &open);
    if (!open) {
      if (server_stopping.load()) return absl::UnavailableError("the server is shutting down");
      return absl::NotFoundError(absl::StrCat(host.name(), " was deleted"));
    }
    if (version == seen) continue;  // timed out: check for cancellation and wait again

    // Hold to the rate limit, then send whatever is newest by then.
    const double rate = options.max_rate_hz > 0.0 ? options.max_rate_hz : host.rate_hz();
    if (Clock::now() < next_send) {
      while (Clock::now() < next_send) {
        std::this_thread::sleep_until(std::min(next_send, Clock::now() + kPoll));
        if (absl::Status s = should_stop(); !s.ok()) return s;
      }
      frame = host.WaitForFrame(version, absl::ZeroDuration(), &version, &open);
    }
    // Publications between the last frame sent and this one were skipped (conflated).
    if (seen != 0 && version > seen + 1) {
      count.frames_conflated.fetch_add(version - seen - 1, std::memory_order_relaxed);
    }
    seen = version;
    BuildFrameMessage(*frame, options, &filter, &message);
    count.frames_encoded.fetch_add(1, std::memory_order_relaxed);  // by the write
    if (!write(message)) return absl::CancelledError("the client went away");
    count.frames_sent.fetch_add(1, std::memory_order_relaxed);
    const auto period = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(1.0 / rate));
    next_send = std::max(next_send + period, Clock::now() - period);
  }
}

}  // namespace ligature
