#include "server/rpc/frame_filter.h"

#include <algorithm>

namespace ligature {

namespace {

// Every point that places a body: its pose, then its rod, soft or strand points.
template <typename Fn>
void ForEachPoint(const BodyState& b, Fn fn) {
  fn(b.pose.position);
  for (const Vec3& p : b.rod_points) fn(p);
  for (const Vec3& p : b.soft_vertices) fn(p);
  for (const Vec3& p : b.strand_points) fn(p);
}

}  // namespace

bool FrameFilter::InRegion(const BodyState& b) const {
  if (!options_.region) return true;
  bool inside = false;
  ForEachPoint(b, [&](const Vec3& p) { inside = inside || options_.region->Contains(p); });
  return inside;
}

FrameFilter::Sent FrameFilter::Remember(const BodyState& b) {
  Sent s;
  s.orientation = b.pose.orientation;
  ForEachPoint(b, [&](const Vec3& p) { s.points.push_back(p); });
  return s;
}

// Moved: a point went further than the threshold, the orientation turned more than it (in
// rad), or the body's point count changed (a cut).
bool FrameFilter::Moved(const BodyState& b, const Sent& last) const {
  const double t = options_.delta_threshold;
  if (b.pose.orientation.angularDistance(last.orientation) > t) return true;
  size_t k = 0;
  bool moved = false;
  ForEachPoint(b, [&](const Vec3& p) {
    if (k < last.points.size() && (p - last.points[k]).norm() > t) moved = true;
    ++k;
  });
  return moved || k != last.points.size();
}

FrameFilter::Selection FrameFilter::Select(const Frame& frame) {
  Selection s;
  const bool deltas = options_.delta_threshold > 0.0;
  const int interval = std::max(1, options_.key_frame_interval);
  s.key_frame = !deltas || frames_since_key_ < 0 || frames_since_key_ + 1 >= interval;
  frames_since_key_ = s.key_frame ? 0 : frames_since_key_ + 1;
  s.keep.assign(frame.bodies.size(), false);
  for (size_t i = 0; i < frame.bodies.size(); ++i) {
    const BodyState& b = frame.bodies[i];
    if (!options_.only.empty() && !options_.only.contains(b.id)) continue;
    if (!InRegion(b)) continue;
    if (deltas && !s.key_frame) {
      auto it = sent_.find(b.id);
      if (it != sent_.end() && !Moved(b, it->second)) continue;
    }
    s.keep[i] = true;
    if (deltas) sent_[b.id] = Remember(b);
  }
  return s;
}

}  // namespace ligature
