#pragma once
// Turns each tick's touching body pairs and sensor overlaps into events by comparing them
// with the last tick's: a pair that is new begins (or enters), one still there persists, and
// one gone ends (or exits). Bodies are told apart by keys the world gives (stable while a
// body exists), so that ids need not be hashed for every contact.

#include <cstdint>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/world/events.h"

namespace ligature {

class EventTracker {
 public:
  // A pair of bodies pushing on each other this tick and the event it makes (its kind and
  // peak are the tracker's to set).
  struct Touch {
    uint64_t key_a = 0;
    uint64_t key_b = 0;
    ContactEvent event;
  };
  // A body overlapping a sensor shape this tick (the event's kind is the tracker's to set).
  struct Overlap {
    uint64_t sensor_key = 0;
    uint64_t body_key = 0;
    TriggerEvent event;
  };

  // Appends to `out` this tick's begin events (and persist events when `persist`), then the
  // end events of last tick's pairs not touching now, by body ids; likewise enter and exit
  // events for the overlaps. A pair both of whose bodies rest (`rests` of their keys: they
  // did not move, so nobody looked at them) stays as it was, without events; without
  // `rests`, no body does.
  using Rests = std::function<bool(uint64_t key)>;
  void Update(std::vector<Touch> touches, std::vector<Overlap> overlaps, bool persist,
              const Rests& rests, TickEvents* out);
  // Forgets every pair (reporting was switched off): the next Update begins them again.
  void Clear();
  size_t live_contacts() const { return contacts_.size(); }
  size_t live_overlaps() const { return overlaps_.size(); }

 private:
  void UpdateContacts(std::vector<Touch> touches, bool persist, const Rests& rests,
                      std::vector<ContactEvent>* out);
  void UpdateOverlaps(std::vector<Overlap> overlaps, const Rests& rests,
                      std::vector<TriggerEvent>* out);

  // What an end event needs of a live pair, and the last round it was seen in.
  struct LiveContact {
    ContactEvent last;  // its ids and layers; its peak so far
    uint64_t round = 0;
  };
  struct LiveOverlap {
    TriggerEvent last;
    uint64_t round = 0;
  };
  uint64_t round_ = 0;
  absl::flat_hash_map<std::pair<uint64_t, uint64_t>, LiveContact> contacts_;
  absl::flat_hash_map<std::tuple<uint64_t, int, uint64_t>, LiveOverlap> overlaps_;
};

}  // namespace ligature
