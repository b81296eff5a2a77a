#include "server/world/event_tracker.h"

#include <algorithm>

namespace ligature {

void EventTracker::Update(std::vector<Touch> touches, std::vector<Overlap> overlaps, bool persist,
                          const Rests& rests, TickEvents* out) {
  ++round_;
  UpdateContacts(std::move(touches), persist, rests, &out->contacts);
  UpdateOverlaps(std::move(overlaps), rests, &out->triggers);
}

void EventTracker::Clear() {
  contacts_.clear();
  overlaps_.clear();
}

namespace {

// Ends the pairs of `live` not seen in `round` (their last event, of kind `kind`, appended
// to `out`) and sorts those appended by `less`, so that their order never depends on the
// map's.
template <typename Map, typename Event, typename Less>
void EndUnseen(Map& live, uint64_t round, EventKind kind, std::vector<Event>* out, Less less) {
  const size_t first = out->size();
  for (auto it = live.begin(); it != live.end();) {
    if (it->second.round == round) {
      ++it;
      continue;
    }
    Event& e = out->emplace_back(std::move(it->second.last));
    e.kind = kind;
    live.erase(it++);
  }
  std::sort(out->begin() + first, out->end(), less);
}

// Marks seen in `round` the pairs of `live` both of whose bodies (`bodies` of a key) rest.
template <typename Map, typename Bodies>
void KeepResting(Map& live, uint64_t round, const EventTracker::Rests& rests, Bodies bodies) {
  if (!rests) return;
  for (auto& [keys, pair] : live) {
    const auto [a, b] = bodies(keys);
    if (rests(a) && rests(b)) pair.round = round;
  }
}

}  // namespace

// New pairs begin and known ones persist, in the order the world found them; then the pairs
// not seen this round end, by their ids, but for those of resting bodies.
void EventTracker::UpdateContacts(std::vector<Touch> touches, bool persist, const Rests& rests,
                                  std::vector<ContactEvent>* out) {
  for (Touch& t : touches) {
    auto [it, inserted] = contacts_.try_emplace({t.key_a, t.key_b});
    LiveContact& live = it->second;
    if (!inserted && live.round == round_) continue;  // listed twice: the first counts
    ContactEvent& e = t.event;
    e.kind = inserted ? EventKind::kContactBegin : EventKind::kContactPersist;
    e.peak_normal_impulse =
        std::max(inserted ? 0.0 : live.last.peak_normal_impulse, e.normal_impulse);
    live.round = round_;
    // A key's bodies stay the same; their layers may change.
    if (inserted) {
      live.last.body_a = e.body_a;
      live.last.body_b = e.body_b;
    }
    live.last.layers_a = e.layers_a;
    live.last.layers_b = e.layers_b;
    live.last.peak_normal_impulse = e.peak_normal_impulse;
    if (inserted || persist) out->push_back(std::move(e));
  }
  KeepResting(contacts_, round_, rests,
              [](const auto& keys) { return std::pair(keys.first, keys.second); });
  EndUnseen(contacts_, round_, EventKind::kContactEnd, out,
            [](const ContactEvent& x, const ContactEvent& y) {
              return std::tie(x.body_a, x.body_b) < std::tie(y.body_a, y.body_b);
            });
}

// New overlaps enter, in the order the world found them; then the overlaps not seen this
// round exit, by their ids, but for those of resting bodies.
void EventTracker::UpdateOverlaps(std::vector<Overlap> overlaps, const Rests& rests,
                                  std::vector<TriggerEvent>* out) {
  for (Overlap& o : overlaps) {
    auto [it, inserted] = overlaps_.try_emplace({o.sensor_key, o.event.sensor_shape, o.body_key});
    LiveOverlap& live = it->second;
    live.round = round_;
    if (!inserted) continue;
    o.event.kind = EventKind::kTriggerEnter;
    live.last = o.event;
    out->push_back(std::move(o.event));
  }
  KeepResting(overlaps_, round_, rests,
              [](const auto& keys) { return std::pair(std::get<0>(keys), std::get<2>(keys)); });
  EndUnseen(overlaps_, round_, EventKind::kTriggerExit, out,
            [](const TriggerEvent& x, const TriggerEvent& y) {
              return std::tie(x.sensor, x.sensor_shape, x.body) <
                     std::tie(y.sensor, y.sensor_shape, y.body);
            });
}

}  // namespace ligature
