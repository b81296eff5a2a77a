#pragma once
// What one Watch stream sends of each frame: bodies in its region of interest, and with
// delta frames only the bodies that moved more than a threshold since this stream last sent
// them, with a key frame (every body in the region) every few frames. One per stream; not
// thread-safe.

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "server/world/frame.h"

namespace ligature {

// An axis-aligned box, world frame (m).
struct Region {
  Vec3 min = Vec3::Zero();
  Vec3 max = Vec3::Zero();
  bool Contains(const Vec3& p) const {
    return (p.array() >= min.array()).all() && (p.array() <= max.array()).all();
  }
};

struct FrameFilterOptions {
  absl::flat_hash_set<std::string> only;  // body ids; empty: all
  std::optional<Region> region;           // a body is in it when any of its points is
  double delta_threshold = 0.0;  // m (and rad for turns); 0: every frame is a key frame
  int key_frame_interval = 30;   // with deltas: a key frame every this many frames
};

class FrameFilter {
 public:
  explicit FrameFilter(FrameFilterOptions options) : options_(std::move(options)) {}

  struct Selection {
    std::vector<bool> keep;  // per frame.bodies entry
    bool key_frame = true;
  };
  // The bodies of `frame` to send; remembers what it selected as sent.
  Selection Select(const Frame& frame);

  bool active() const {
    return !options_.only.empty() || options_.region || options_.delta_threshold > 0.0;
  }

 private:
  struct Sent {
    Quat orientation;
    std::vector<Vec3> points;  // pose position, then rod, soft and strand points
  };
  bool InRegion(const BodyState& b) const;
  bool Moved(const BodyState& b, const Sent& last) const;
  static Sent Remember(const BodyState& b);

  FrameFilterOptions options_;
  absl::flat_hash_map<std::string, Sent> sent_;
  int frames_since_key_ = -1;  // the first frame is a key frame
};

}  // namespace ligature
