// Sleeping: islands of dynamic rigid bodies (joined by contacts and joints) that have all
// been at rest for the world's time to sleep stop being simulated; they keep their pose,
// have no velocity and meet awake bodies as static ones would, until something wakes them.
// An island wakes as a whole: when an awake body or a moving kinematic body touches one
// of its bodies (before that tick's contacts are found, so the hit is solved at once),
// when a deformable body pushes one, and on edits, drive targets and haptic attachment.

#include <algorithm>
#include <cmath>
#include <limits>

#include "server/collision/placed_shape.h"
#include "server/math/union_find.h"
#include "server/world/world.h"

namespace ligature {

// Kinematic bodies that move this tick push what they touch; resting ones are like static.
bool World::MovingKinematic(uint32_t i) const {
  return bodies_.kind[i] == BodyKind::kKinematic &&
         (!bodies_.linear_velocity[i].isZero() || !bodies_.angular_velocity[i].isZero());
}

// Every sleeping body of the given islands wakes, its rest time starting again.
void World::WakeIslands(std::vector<uint32_t>* islands) {
  if (islands->empty()) return;
  std::sort(islands->begin(), islands->end());
  islands->erase(std::unique(islands->begin(), islands->end()), islands->end());
  for (int i = 0; i < bodies_.size(); ++i) {
    const uint32_t island = bodies_.sleep_island[i];
    if (island != 0 && std::binary_search(islands->begin(), islands->end(), island)) {
      bodies_.sleep_island[i] = 0;
      bodies_.rest_time[i] = 0.0;
    }
  }
  islands->clear();
}

void World::WakeBody(uint32_t i) {
  bodies_.rest_time[i] = 0.0;
  if (!bodies_.IsAsleep(i)) return;
  std::vector<uint32_t> islands{bodies_.sleep_island[i]};
  WakeIslands(&islands);
}

// An edit of body i: it and every sleeping body whose bounds come within the contact
// margin of its own (what may rest on it or hold it up) wake with their islands.
void World::WakeNear(uint32_t i) {
  auto bounds = [&](uint32_t j, double grow) {
    const Transform pose{bodies_.position[j], bodies_.orientation[j]};
    Aabb box = PlaceShape(bodies_.shapes[j][0], pose, grow).bounds;
    for (size_t k = 1; k < bodies_.shapes[j].size(); ++k) {
      box.Enclose(PlaceShape(bodies_.shapes[j][k], pose, grow).bounds);
    }
    return box;
  };
  WakeBody(i);
  const Aabb near = bounds(i, settings_.contact_margin);
  std::vector<uint32_t> islands;
  for (int j = 0; j < bodies_.size(); ++j) {
    if (bodies_.IsAsleep(j) && bounds(j, 0.0).Overlaps(near)) {
      islands.push_back(bodies_.sleep_island[j]);
    }
  }
  WakeIslands(&islands);
}

void World::WakeJointBodies(const Joint& j) {
  for (const BodyHandle& h : {j.body_a, j.body_b}) {
    if (!h.IsNull() && bodies_.IsValid(h)) WakeBody(bodies_.Index(h));
  }
}

bool World::AnyAsleep() const {
  return std::any_of(bodies_.sleep_island.begin(), bodies_.sleep_island.end(),
                     [](uint32_t island) { return island != 0; });
}

void World::WakeAll() {
  for (int i = 0; i < bodies_.size(); ++i) {
    bodies_.sleep_island[i] = 0;
    bodies_.rest_time[i] = 0.0;
  }
}

// Within DetectCollisions, once the broadphase has its pairs: the sleepers that an awake
// body or a moving kinematic body touches (a contact within the pair's margin) or holds by
// a joint wake with their islands. Woken bodies move, so the broadphase looks again, and
// they are awake bodies touching the next sleepers: the pass repeats until nothing more
// wakes.
void World::WakeTouchedSleepers() {
  if (!AnyAsleep()) return;
  const auto sleeper = [&](uint32_t a, uint32_t b) -> int64_t {
    if (bodies_.IsAsleep(a) && !Rests(b)) return a;
    if (bodies_.IsAsleep(b) && !Rests(a)) return b;
    return -1;
  };
  std::vector<uint32_t> islands;
  std::vector<RigidContact> touch;
  for (;;) {
    for (const auto& [a, b] : step_.pairs) {
      const int64_t s = sleeper(a, b);
      if (s < 0 || IsJointedPair(a, b)) continue;
      touch.clear();
      if (CollidePair(a, b, &touch)) islands.push_back(bodies_.sleep_island[s]);
    }
    for (const Joint& j : constraints_.joints()) {
      if (j.body_a.IsNull() || j.body_b.IsNull()) continue;
      const int64_t s = sleeper(bodies_.Index(j.body_a), bodies_.Index(j.body_b));
      if (s >= 0) islands.push_back(bodies_.sleep_island[s]);
    }
    if (islands.empty()) break;
    WakeIslands(&islands);
    FindCandidatePairs();
  }
}

// The sleep stage, last in the step: which bodies something outside the rigid solve keeps
// awake this tick (and wakes), each awake body's rest time, and the islands that fall
// asleep.
void World::UpdateSleep() {
  const int n = bodies_.size();
  const SleepSettings& s = settings_.sleep;
  if (!s.enabled) {
    if (AnyAsleep()) WakeAll();
    stats_.sleeping_bodies = 0;
    return;
  }
  std::vector<uint8_t>& keep = step_.keep_awake;
  keep.assign(n, 0);
  MarkKeptAwake(&keep);
  std::vector<uint32_t> islands;
  for (int i = 0; i < n; ++i) {
    if (keep[i] && bodies_.IsAsleep(i)) islands.push_back(bodies_.sleep_island[i]);
  }
  WakeIslands(&islands);

  // Rest times of the awake bodies.
  const double h = settings_.dt();
  for (int i = 0; i < n; ++i) {
    if (!bodies_.Moves(i)) continue;
    const bool at_rest = !keep[i] && bodies_.linear_velocity[i].norm() <= s.linear_speed &&
                         bodies_.angular_velocity[i].norm() <= s.angular_speed;
    bodies_.rest_time[i] = at_rest ? bodies_.rest_time[i] + h : 0.0;
  }

  // Islands: awake bodies joined by this tick's contacts and joints; each sleeps once its
  // least rested body has rested long enough.
  UnionFind groups(n);
  for (const RigidContact& c : step_.contacts) {
    if (bodies_.Moves(c.a) && bodies_.Moves(c.b)) groups.Unite(c.a, c.b);
  }
  for (const Joint& j : constraints_.joints()) {
    if (j.body_a.IsNull() || j.body_b.IsNull()) continue;
    const uint32_t a = bodies_.Index(j.body_a), b = bodies_.Index(j.body_b);
    if (bodies_.Moves(a) && bodies_.Moves(b)) groups.Unite(a, b);
  }
  std::vector<double> least(n, std::numeric_limits<double>::infinity());
  for (int i = 0; i < n; ++i) {
    if (!bodies_.Moves(i)) continue;
    double& l = least[groups.Find(i)];
    l = std::min(l, bodies_.rest_time[i]);
  }
  std::vector<uint32_t> island_of_root(n, 0);
  int sleeping = 0;
  for (int i = 0; i < n; ++i) {
    if (bodies_.IsAsleep(i)) ++sleeping;
    if (!bodies_.Moves(i)) continue;
    const int root = groups.Find(i);
    if (least[root] < s.time_to_sleep) continue;
    if (island_of_root[root] == 0) {
      island_of_root[root] = next_sleep_island_;
      next_sleep_island_ = next_sleep_island_ == UINT32_MAX ? 1 : next_sleep_island_ + 1;
    }
    bodies_.sleep_island[i] = island_of_root[root];
    bodies_.linear_velocity[i].setZero();
    bodies_.angular_velocity[i].setZero();
    ++sleeping;
  }
  stats_.sleeping_bodies = sleeping;
}

// What keeps a body awake this tick besides its own motion: a haptic session driving it,
// rod or soft constraints following it, a deformable body pushing it, a moving kinematic
// body touching it or jointed to it, and a drive commanding motion of its joint.
void World::MarkKeptAwake(std::vector<uint8_t>* keep) const {
  std::vector<uint8_t>& k = *keep;
  auto mark_id = [&](const std::string& id) {
    auto it = body_ids_.find(id);
    if (it != body_ids_.end() && bodies_.IsValid(it->second)) k[bodies_.Index(it->second)] = 1;
  };
  for (const std::string& id : haptic_tools_.BodyIds()) mark_id(id);
  if (!rods_.empty() || !soft_.empty()) {
    for (const RodConstraint& c : rods_.constraints()) mark_id(c.desc.follow_body);
    for (const SoftConstraintDesc& c : soft_.constraints()) mark_id(c.follow_body);
    for (const RodWorld::BeadPush& b : rods_.BeadPushes()) mark_id(b.body);
    for (const SoftWorld::Push& p : soft_.pushes()) k[p.body] = 1;
    for (const RodContact& c : rods_.contacts()) k[c.body] = 1;
    for (const ContactRecord& r : step_.last_contacts) {
      if ((r.soft || r.rod) && !r.soft_b) k[r.b] = 1;
    }
  }
  for (const RigidContact& c : step_.contacts) {
    if (MovingKinematic(c.a)) k[c.b] = 1;
    if (MovingKinematic(c.b)) k[c.a] = 1;
  }
  for (const Joint& j : constraints_.joints()) {
    const uint32_t a = j.body_a.IsNull() ? kWorldBody : bodies_.Index(j.body_a);
    const uint32_t b = j.body_b.IsNull() ? kWorldBody : bodies_.Index(j.body_b);
    const bool driven = j.params.DrivesMotion();
    if (a != kWorldBody && b != kWorldBody) {
      if (driven || MovingKinematic(a)) k[b] = 1;
      if (driven || MovingKinematic(b)) k[a] = 1;
    } else if (driven) {
      k[a != kWorldBody ? a : b] = 1;
    }
  }
}

}  // namespace ligature
