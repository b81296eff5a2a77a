#include "server/host/event_log.h"

#include <algorithm>
#include <utility>

namespace ligature {

bool EventFilter::Passes(const ContactEvent& e) const {
  if (!Wants(e.kind)) return false;
  const double impulse =
      e.kind == EventKind::kContactEnd ? e.peak_normal_impulse : e.normal_impulse;
  if (impulse < min_impulse) return false;
  if (((e.layers_a | e.layers_b) & layer_mask) == 0) return false;
  return bodies.empty() || bodies.contains(e.body_a) || bodies.contains(e.body_b);
}

bool EventFilter::Passes(const TriggerEvent& e) const {
  if (!Wants(e.kind)) return false;
  if (((e.sensor_layers | e.body_layers) & layer_mask) == 0) return false;
  return bodies.empty() || bodies.contains(e.sensor) || bodies.contains(e.body);
}

size_t EventFilter::Count(const TickEvents& events) const {
  size_t n = 0;
  for (const ContactEvent& e : events.contacts) n += Passes(e);
  for (const TriggerEvent& e : events.triggers) n += Passes(e);
  return n;
}

void EventLog::Append(uint64_t tick, TickEvents events) {
  absl::MutexLock lock(&mu_);
  tick_ = tick;
  if (closed_ || readers_.empty() || events.empty()) return;  // nothing to keep for anyone
  events_kept_ += events.size();
  entries_.push_back({next_sequence_++, std::make_shared<const TickEvents>(std::move(events))});
  while (entries_.size() > 1 &&
         (entries_.size() > limits_.max_ticks || events_kept_ > limits_.max_events)) {
    EvictOldest();
  }
}

// The oldest tick goes: the readers that had not read it lose its events that they want.
void EventLog::EvictOldest() {
  const Entry& oldest = entries_.front();
  for (auto& [id, reader] : readers_) {
    if (reader.next > oldest.sequence) continue;
    reader.dropped += reader.filter.Count(*oldest.events);
    reader.next = oldest.sequence + 1;
  }
  events_kept_ -= oldest.events->size();
  entries_.pop_front();
}

EventReporting EventLog::Reporting() const {
  absl::MutexLock lock(&mu_);
  EventReporting r;
  r.enabled = !readers_.empty();
  for (const auto& [id, reader] : readers_) {
    r.persist |= reader.filter.Wants(EventKind::kContactPersist);
  }
  return r;
}

uint64_t EventLog::Subscribe(EventFilter filter, uint64_t* after_tick) {
  absl::MutexLock lock(&mu_);
  if (after_tick != nullptr) *after_tick = tick_;
  const uint64_t id = next_reader_++;
  readers_[id] = Reader{std::move(filter), next_sequence_, 0};
  return id;
}

void EventLog::Unsubscribe(uint64_t reader) {
  absl::MutexLock lock(&mu_);
  readers_.erase(reader);
  DropRead();
}

// Ticks every reader has read go at once.
void EventLog::DropRead() {
  uint64_t needed = next_sequence_;
  for (const auto& [id, r] : readers_) needed = std::min(needed, r.next);
  while (!entries_.empty() && entries_.front().sequence < needed) {
    events_kept_ -= entries_.front().events->size();
    entries_.pop_front();
  }
}

namespace {

// What a reader waits for: something to read or lose, or the log's end (under the lock,
// which the condition's caller holds).
struct Waiting {
  const bool* closed;
  const uint64_t* next;
  const uint64_t* dropped;
  const uint64_t* appended;
};
bool HasNews(Waiting* w) { return *w->closed || *w->dropped > 0 || *w->next < *w->appended; }

}  // namespace

EventLog::Read EventLog::Next(uint64_t reader, absl::Duration timeout) {
  absl::MutexLock lock(&mu_);
  Read out;
  auto it = readers_.find(reader);
  if (it == readers_.end()) {
    out.open = false;
    return out;
  }
  Reader* r = &it->second;
  Waiting waiting{&closed_, &r->next, &r->dropped, &next_sequence_};
  mu_.AwaitWithTimeout(absl::Condition(&HasNews, &waiting), timeout);
  out.open = !closed_;
  out.dropped = std::exchange(r->dropped, 0);
  for (const Entry& e : entries_) {
    if (e.sequence >= r->next) out.ticks.push_back(e.events);
  }
  r->next = next_sequence_;
  DropRead();
  return out;
}

void EventLog::Close() {
  absl::MutexLock lock(&mu_);
  closed_ = true;
}

}  // namespace ligature
