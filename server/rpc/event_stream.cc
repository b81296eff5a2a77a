#include "server/rpc/event_stream.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "server/scene/scene_proto.h"

namespace ligature {

absl::StatusOr<EventFilter> MakeEventFilter(const WorldHost& host,
                                            const v1::WatchEventsRequest& req) {
  EventFilter filter;
  const std::shared_ptr<const Frame> frame = host.LatestFrame();
  absl::flat_hash_set<std::string> present;
  for (const BodyState& b : frame->bodies) present.insert(b.id);
  for (int i = 0; i < req.body_ids_size(); ++i) {
    const std::string field = absl::StrCat("body_ids[", i, "]");
    if (absl::Status s = ValidateId(req.body_ids(i), field); !s.ok()) return s;
    if (!present.contains(req.body_ids(i))) {
      return absl::NotFoundError(absl::StrCat(field, ": body ", req.body_ids(i), " not found"));
    }
    filter.bodies.insert(req.body_ids(i));
  }
  if (req.has_layer_mask()) {
    if (req.layer_mask() == 0) {
      return absl::InvalidArgumentError("layer_mask: 0 selects no layer; leave it unset for all");
    }
    filter.layer_mask = req.layer_mask();
  }
  if (!std::isfinite(req.min_impulse()) || req.min_impulse() < 0.0) {
    return absl::InvalidArgumentError("min_impulse: must be finite and >= 0");
  }
  filter.min_impulse = req.min_impulse();
  if (req.kinds_size() > 0) filter.kinds = 0;
  for (int i = 0; i < req.kinds_size(); ++i) {
    const int kind = req.kinds(i);
    if (kind < v1::CONTACT_BEGIN || kind > v1::TRIGGER_EXIT) {
      return absl::InvalidArgumentError(
          absl::StrCat("kinds[", i, "]: must be a contact or trigger event kind"));
    }
    filter.kinds |= 1u << kind;
  }
  return filter;
}

namespace {

v1::EventKind KindToProto(EventKind kind) { return static_cast<v1::EventKind>(kind); }

void ContactEventToProto(const ContactEvent& e, v1::ContactEvent* out) {
  out->set_kind(KindToProto(e.kind));
  out->set_body_a(e.body_a);
  out->set_body_b(e.body_b);
  out->set_normal_impulse(e.normal_impulse);
  Vec3ToProto(e.impulse, out->mutable_impulse());
  out->set_relative_speed(e.relative_speed);
  out->set_normal_speed(e.normal_speed);
  for (const ContactEventPoint& p : e.points) {
    v1::ContactEventPoint* q = out->add_points();
    Vec3ToProto(p.position, q->mutable_position());
    Vec3ToProto(p.normal, q->mutable_normal());
    q->set_normal_impulse(p.normal_impulse);
  }
  out->set_point_count(e.point_count);
  out->set_peak_normal_impulse(e.peak_normal_impulse);
}

}  // namespace

void TickEventsToProto(const std::string& world, const TickEvents& tick, const EventFilter& filter,
                       v1::WorldEvents* out) {
  out->Clear();
  out->set_world(world);
  out->set_tick(tick.tick);
  out->set_sim_time(tick.sim_time);
  for (const ContactEvent& e : tick.contacts) {
    if (filter.Passes(e)) ContactEventToProto(e, out->add_contacts());
  }
  for (const TriggerEvent& e : tick.triggers) {
    if (!filter.Passes(e)) continue;
    v1::TriggerEvent* t = out->add_triggers();
    t->set_kind(KindToProto(e.kind));
    t->set_sensor(e.sensor);
    t->set_sensor_shape(e.sensor_shape);
    t->set_body(e.body);
  }
}

absl::Status StreamEvents(WorldHost& host, const EventFilter& filter,
                          const std::function<bool(const v1::WorldEvents&)>& write,
                          const std::function<absl::Status()>& should_stop,
                          const std::atomic<bool>& server_stopping, EventStreamCounters* counters) {
  EventLog& log = host.events();
  // The stream is a reader of the log, and counts as open, until it returns.
  struct Reader {
    EventLog& log;
    uint64_t id;
    EventStreamCounters* counters;
    ~Reader() {
      log.Unsubscribe(id);
      counters->open.fetch_sub(1, std::memory_order_relaxed);
    }
  };
  uint64_t last_tick = 0;
  Reader reader{log, log.Subscribe(filter, &last_tick), counters};
  counters->open.fetch_add(1, std::memory_order_relaxed);
  // The first message, at once and empty, tells the client from which tick on it sees
  // events (a client that steps the world itself waits for it).
  v1::WorldEvents message;
  message.set_world(host.name());
  message.set_tick(last_tick);
  if (!write(message)) return absl::CancelledError("the client went away");
  // How often a quiet stream checks for cancellation.
  constexpr absl::Duration kPoll = absl::Milliseconds(100);
  while (true) {
    if (absl::Status s = should_stop(); !s.ok()) return s;
    EventLog::Read read = log.Next(reader.id, kPoll);
    if (!read.open) {
      if (server_stopping.load()) return absl::UnavailableError("the server is shutting down");
      return absl::NotFoundError(absl::StrCat(host.name(), " was deleted"));
    }
    // The loss rides on the next message sent; with nothing to send, on a message of its
    // own.
    uint64_t dropped = read.dropped;
    counters->events_dropped.fetch_add(dropped, std::memory_order_relaxed);
    for (const std::shared_ptr<const TickEvents>& tick : read.ticks) {
      TickEventsToProto(host.name(), *tick, filter, &message);
      last_tick = tick->tick;
      const int events = message.contacts_size() + message.triggers_size();
      if (events == 0) continue;
      message.set_dropped(std::exchange(dropped, 0));
      if (!write(message)) return absl::CancelledError("the client went away");
      counters->events_sent.fetch_add(events, std::memory_order_relaxed);
    }
    if (dropped > 0) {
      message.Clear();
      message.set_world(host.name());
      message.set_tick(last_tick);
      message.set_dropped(dropped);
      if (!write(message)) return absl::CancelledError("the client went away");
    }
  }
}

}  // namespace ligature
