#include "server/world/event_tracker.h"

#include <algorithm>

namespace ligature {

void EventTracker::Update(std::vector<Touch> touches, std::vector<Overlap> overlaps, bool persist,
                          TickEvents* out) {
  ++round_;
  UpdateContacts(std::move(touches), persist, &out->contacts);
  UpdateOverlaps(std::move(overlaps), &out->triggers);
}

void EventTracker::Clear() {
  contacts_.clear();
  overlaps_.clear();
}

// New pairs begin and known ones persist, in the order the world found them; the pairs
// not seen this round end, sorted by their ids so that the order never depends on the
// map's.
void EventTracker::UpdateContacts(std::vector<Touch> touches, bool persist,
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
    live.last.body_a = e.body_a;
    live.last.body_b = e.body_b;
    live.last.layers_a = e.layers_a;
    live.last.layers_b = e.layers_b;
    live.last.peak_normal_impulse = e.peak_normal_impulse;
    if (inserted || persist) out->push_back(std::move(e));
  }
  const size_t first_end = out->size();
  for (auto it = contacts_.begin(); it != contacts_.end();) {
    if (it->second.round == round_) {
      ++it;
      continue;
    }
    ContactEvent& e = out->emplace_back(std::move(it->second.last));
    e.kind = EventKind::kContactEnd;
    contacts_.erase(it++);
  }
  std::sort(out->begin() + first_end, out->end(), [](const ContactEvent& x, const ContactEvent& y) {
    return std::tie(x.body_a, x.body_b) < std::tie(y.body_a, y.body_b);
  });
}

void EventTracker::UpdateOverlaps(std::vector<Overlap> overlaps, std::vector<TriggerEvent>* out) {
  for (Overlap& o : overlaps) {
    auto [it, inserted] = overlaps_.try_emplace({o.sensor_key, o.event.sensor_shape, o.body_key});
    LiveOverlap& live = it->second;
    live.round = round_;
    if (!inserted) continue;
    o.event.kind = EventKind::kTriggerEnter;
    live.last = o.event;
    out->push_back(std::move(o.event));
  }
  const size_t first_exit = out->size();
  for (auto it = overlaps_.begin(); it != overlaps_.end();) {
    if (it->second.round == round_) {
      ++it;
      continue;
    }
    TriggerEvent& e = out->emplace_back(std::move(it->second.last));
    e.kind = EventKind::kTriggerExit;
    overlaps_.erase(it++);
  }
  std::sort(out->begin() + first_exit, out->end(),
            [](const TriggerEvent& x, const TriggerEvent& y) {
              return std::tie(x.sensor, x.sensor_shape, x.body) <
                     std::tie(y.sensor, y.sensor_shape, y.body);
            });
}

}  // namespace ligature
