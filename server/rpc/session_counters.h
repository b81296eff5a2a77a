#pragma once
// Counters of the frame streams (Watch and Interact), the event streams and the haptic
// streams, for
// monitoring. Plain atomics: the streams update them, the operations folder's metrics read
// them; nothing here knows how they are published.

#include <atomic>
#include <cstdint>

#include "server/haptics/latency_histogram.h"

namespace ligature {

struct StreamCounters {
  std::atomic<int64_t> open{0};              // streams sending frames now
  std::atomic<uint64_t> frames_sent{0};
  // Frames a stream skipped because a newer one was out by the time it could send (a slow
  // client, or a rate limit below the world's rate): the newest frame only is sent.
  std::atomic<uint64_t> frames_conflated{0};
  // Frames serialized for sending: once per publication and view however many streams share
  // it (Watch), once per frame sent on streams with delta frames and on Interact.
  std::atomic<uint64_t> frames_encoded{0};
};

// The event streams (WatchEvents).
struct EventStreamCounters {
  std::atomic<int64_t> open{0};
  std::atomic<uint64_t> events_sent{0};
  // Events a stream lost because it fell too far behind its world (each one also reported
  // to that stream in WorldEvents.dropped).
  std::atomic<uint64_t> events_dropped{0};
};

// The frames published to a NATS server for gateways (FramePublisher).
struct PublishCounters {
  std::atomic<int64_t> connected{0};  // 1 while connected to the broker
  std::atomic<uint64_t> frames_published{0};
  // Frames not published: the broker was away, or the client could not take them.
  std::atomic<uint64_t> publish_failures{0};
};

struct SessionCounters {
  StreamCounters watch;
  StreamCounters interact;
  EventStreamCounters events;
  PublishCounters publish;
  std::atomic<uint64_t> device_poses{0};  // poses received on Interact streams
};

// Timing of the haptic streams of one kind (server or remote mode): round trip from a
// pose's arrival to the start of its reply's write, and the poses' inter-arrival jitter.
struct HapticTiming {
  haptics::LatencyHistogram round_trip;
  haptics::LatencyHistogram jitter;
};

// The haptic datagram port: what it received, taken or dropped by reason, and what it
// could not send.
struct DatagramCounters {
  std::atomic<uint64_t> taken{0};
  std::atomic<uint64_t> malformed{0};        // a bad header (or one sent the server's way)
  std::atomic<uint64_t> unknown_session{0};  // a well-formed header naming no open session
  std::atomic<uint64_t> forged{0};           // its tag does not verify under the session's key
  std::atomic<uint64_t> replayed{0};         // an authentic datagram seen before
  std::atomic<uint64_t> stale{0};            // older than the newest taken
  std::atomic<uint64_t> bad_payload{0};      // authentic, but not a pose or a close
  std::atomic<uint64_t> send_failures{0};    // replies not sealed, or that the socket refused
};

// Counters of the haptic streams, for monitoring.
struct HapticCounters {
  std::atomic<int64_t> open{0};
  std::atomic<uint64_t> poses{0};
  std::atomic<uint64_t> rejected{0};
  std::atomic<uint64_t> watchdog_trips{0};
  std::atomic<uint64_t> datagram_poses{0};  // of `poses`, those that came by datagram
  DatagramCounters datagrams;
  HapticTiming server_mode;
  HapticTiming remote_mode;
};

}  // namespace ligature
