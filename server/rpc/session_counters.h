#pragma once
// Counters of the frame streams (Watch and Interact), for monitoring. Plain atomics: the
// streams update them, the metrics module reads them; nothing here knows how they are
// published.

#include <atomic>
#include <cstdint>

namespace ligature {

struct StreamCounters {
  std::atomic<int64_t> open{0};              // streams sending frames now
  std::atomic<uint64_t> frames_sent{0};
  // Frames a stream skipped because a newer one was out by the time it could send (a slow
  // client, or a rate limit below the world's rate): the newest frame only is sent.
  std::atomic<uint64_t> frames_conflated{0};
};

struct SessionCounters {
  StreamCounters watch;
  StreamCounters interact;
  std::atomic<uint64_t> device_poses{0};  // poses received on Interact streams
};

}  // namespace ligature
