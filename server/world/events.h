#pragma once
// What happened between bodies during a tick: contacts that began, persisted and ended, and
// bodies that entered and left sensor shapes. A world makes them while reporting is on
// (World::SetEventReporting) and hands them out once per tick (World::TakeEvents).

#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "server/math/types.h"

namespace ligature {

enum class EventKind : uint8_t {
  kContactBegin = 1,
  kContactPersist = 2,
  kContactEnd = 3,
  kTriggerEnter = 4,
  kTriggerExit = 5,
};

struct ContactEventPoint {
  Vec3 position = Vec3::Zero();  // m, world
  Vec3 normal = Vec3::UnitY();   // unit, from A to B
  double normal_impulse = 0.0;   // N s over the tick
};

// A contact between two bodies over all of their points in the tick.
struct ContactEvent {
  EventKind kind = EventKind::kContactBegin;
  std::string body_a;
  std::string body_b;
  uint32_t layers_a = 1;  // the bodies' layers (CollisionFilter.layers)
  uint32_t layers_b = 1;
  double normal_impulse = 0.0;  // N s, the points' sum
  Vec3 impulse = Vec3::Zero();  // N s, on B
  double relative_speed = 0.0;  // m/s, where the bodies approach fastest, before the solve
  double normal_speed = 0.0;    // m/s, its part along the normal towards A
  // The most loaded first, at most kMaxPoints (held inline: no allocation per pair and tick).
  absl::InlinedVector<ContactEventPoint, 4> points;
  int point_count = 0;
  double peak_normal_impulse = 0.0;  // N s, the largest of one tick over the contact so far

  static constexpr int kMaxPoints = 4;
};

// A body entered or left a sensor shape.
struct TriggerEvent {
  EventKind kind = EventKind::kTriggerEnter;
  std::string sensor;    // the sensor's body
  int sensor_shape = 0;  // its child index in a compound, else 0
  std::string body;
  uint32_t sensor_layers = 1;
  uint32_t body_layers = 1;
};

struct TickEvents {
  uint64_t tick = 0;      // the tick they happened during
  double sim_time = 0.0;  // s, at its end
  std::vector<ContactEvent> contacts;
  std::vector<TriggerEvent> triggers;

  bool empty() const { return contacts.empty() && triggers.empty(); }
  size_t size() const { return contacts.size() + triggers.size(); }
};

// What a world reports: nothing, contact begin and end events and trigger events, or also
// a persist event for every touching pair at every tick.
struct EventReporting {
  bool enabled = false;
  bool persist = false;
  bool operator==(const EventReporting&) const = default;
};

}  // namespace ligature
