// Contact and trigger events: the stage that makes a tick's events from the solve's contact
// record and the sensors' overlaps, and what it needs to tell bodies apart from tick to tick.

#include <algorithm>
#include <string_view>

#include "absl/hash/hash.h"
#include "server/world/world.h"

namespace ligature {

namespace {

// A body's key for the event tracker: a rigid body's handle (its slot, below 2^31, and its
// generation), or for a rod or a soft body a hash of its kind and id with the top bit set.
uint64_t RigidEventKey(const RigidBodies& bodies, uint32_t index) {
  const BodyHandle h = bodies.HandleAt(index);
  return (static_cast<uint64_t>(h.slot) << 32) | h.generation;
}

// The rigid body a key names (a null handle for a rod's or a soft body's key).
BodyHandle RigidOfEventKey(uint64_t key) {
  if (key >> 63) return {};
  return {static_cast<uint32_t>(key >> 32), static_cast<uint32_t>(key)};
}

uint64_t DeformableEventKey(int kind, std::string_view id) {
  return (uint64_t{1} << 63) | (absl::Hash<std::pair<int, std::string_view>>{}({kind, id}) >> 1);
}

}  // namespace

void World::SetEventReporting(const EventReporting& reporting) {
  if (!reporting.enabled) {
    events_.Clear();
    tick_events_ = {};
  }
  reporting_ = reporting;
}

// The speeds of each recorded contact before the solve: the solve has not yet changed the
// rigid bodies' velocities (the correction motion does), nor the soft bodies' vertices'.
// A rod's point and a soft body's surface have no single velocity here: their contacts
// keep zero speeds.
void World::RecordContactSpeeds() {
  const bool speculative = settings_.solver.kind == SolverKind::kGaussSeidel;
  const std::vector<Vec3>& positions = speculative ? bodies_.position : step_.free_position;
  const auto rigid_velocity = [&](uint32_t i, const Vec3& p) -> Vec3 {
    return bodies_.linear_velocity[i] + bodies_.angular_velocity[i].cross(p - positions[i]);
  };
  for (ContactRecord& r : step_.last_contacts) {
    if (r.rod || r.soft_b) continue;
    const Vec3& p = r.contact.position;
    Vec3 va = Vec3::Zero();
    if (r.soft) {
      const std::vector<Vec3>& v = soft_.bodies()[r.a].velocities();
      if (r.vertex < 0 || r.vertex >= static_cast<int>(v.size())) continue;
      va = v[r.vertex];
    } else {
      va = rigid_velocity(r.a, p);
    }
    const Vec3 relative = rigid_velocity(r.b, p) - va;
    r.relative_speed = relative.norm();
    r.normal_speed = -relative.dot(r.contact.normal);
  }
}

// Each pair of bodies whose contacts touched this tick, once, in the order of its first
// point in the record, with its points' impulses summed, its most loaded points and the
// speeds where it approached fastest. A point touches when the solve pushed on it, or when
// its bodies lay within kTouchSlop of each other where the contact was found (a resting
// body that the solve left a hair above its support one tick still touches it).
std::vector<EventTracker::Touch> World::TouchingPairs() const {
  constexpr double kTouchSlop = 1e-4;  // m
  // One side of a recorded contact: its key, id and layers.
  struct Side {
    uint64_t key;
    std::string_view id;
    uint32_t layers;
  };
  const auto side = [&](bool soft, bool rod, uint32_t i) -> Side {
    if (soft) {
      const SoftBodyDesc& desc = soft_.bodies()[i].desc;
      return {DeformableEventKey(1, desc.id), desc.id, desc.collision.layers};
    }
    if (rod) {
      const RodDesc& desc = rods_.rods()[i].desc;
      return {DeformableEventKey(2, desc.id), desc.id, desc.collision.layers};
    }
    return {RigidEventKey(bodies_, i), bodies_.id[i], bodies_.collision[i].layers};
  };
  std::vector<EventTracker::Touch> touches;
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, size_t> index;
  touches.reserve(step_.last_contacts.size());
  index.reserve(step_.last_contacts.size());
  for (const ContactRecord& r : step_.last_contacts) {
    if (!(r.normal_impulse > 0.0) && !(r.contact.distance <= kTouchSlop)) continue;
    const Side a = side(r.soft, r.rod, r.a);
    const Side b = side(r.soft_b, false, r.b);
    auto [it, inserted] = index.try_emplace({a.key, b.key}, touches.size());
    if (inserted) {
      EventTracker::Touch& t = touches.emplace_back();
      t.key_a = a.key;
      t.key_b = b.key;
      t.event.body_a = a.id;
      t.event.body_b = b.id;
      t.event.layers_a = a.layers;
      t.event.layers_b = b.layers;
    }
    ContactEvent& e = touches[it->second].event;
    e.normal_impulse += r.normal_impulse;
    e.impulse += r.impulse;
    ++e.point_count;
    e.points.push_back({r.contact.position, r.contact.normal, r.normal_impulse});
    if (inserted || r.normal_speed > e.normal_speed) {
      e.normal_speed = r.normal_speed;
      e.relative_speed = r.relative_speed;
    }
  }
  // Each pair keeps its most loaded points.
  for (EventTracker::Touch& t : touches) {
    auto& p = t.event.points;
    const size_t kept = std::min<size_t>(p.size(), ContactEvent::kMaxPoints);
    std::partial_sort(p.begin(), p.begin() + kept, p.end(),
                      [](const ContactEventPoint& x, const ContactEventPoint& y) {
                        return x.normal_impulse > y.normal_impulse;
                      });
    p.resize(kept);
  }
  return touches;
}

// The sensor overlaps found this tick, with the sensor shape's layers and the body's.
std::vector<EventTracker::Overlap> World::SensorOverlaps() const {
  std::vector<EventTracker::Overlap> out;
  out.reserve(step_.sensor_overlaps.size());
  for (const SensorOverlap& o : step_.sensor_overlaps) {
    EventTracker::Overlap& e = out.emplace_back();
    e.sensor_key = RigidEventKey(bodies_, o.sensor);
    e.body_key = RigidEventKey(bodies_, o.body);
    e.event.sensor = bodies_.id[o.sensor];
    e.event.sensor_shape = o.shape;
    e.event.body = bodies_.id[o.body];
    e.event.sensor_layers = bodies_.ChildFilter(o.sensor, o.shape).layers;
    e.event.body_layers = bodies_.collision[o.body].layers;
  }
  return out;
}

// The stage: this tick's events, against the pairs known from the ticks before.
void World::ReportEvents() {
  tick_events_ = {};
  if (!reporting_.enabled) return;
  tick_events_.tick = tick_;
  tick_events_.sim_time = sim_time_;
  // Pairs of bodies that did not move keep their contacts and overlaps: while some bodies
  // sleep, nothing looks for those pairs (a sleeper wakes touching what it touched).
  EventTracker::Rests rests;
  if (AnyAsleep()) {
    rests = [this](uint64_t key) {
      const BodyHandle h = RigidOfEventKey(key);
      return bodies_.IsValid(h) && Rests(bodies_.Index(h));
    };
  }
  events_.Update(TouchingPairs(), SensorOverlaps(), reporting_.persist, rests, &tick_events_);
}

}  // namespace ligature
