#pragma once
// A load run: N worlds ticking on their own, an editor per world making random edits at a
// rate and checking that every acknowledged edit shows in the world, M watchers streaming
// frames, K haptic devices at 1 kHz, and the server's memory sampled over time.

#include <string>
#include <vector>

#include "clients/cpp/load/histogram.h"
#include "clients/cpp/load/load_options.h"
#include "clients/cpp/load/server_process.h"

namespace ligature::load {

struct WorldFigures {
  std::string id;
  uint64_t ticks = 0;        // over the run
  uint64_t overruns = 0;     // steps longer than the tick period, over the run
  uint64_t missed_ticks = 0; // ticks skipped because the world fell behind, over the run
  uint64_t divergences = 0;
};

struct RssSample {
  double t_s = 0;
  long kib = 0;
};

struct LoadReport {
  std::vector<WorldFigures> worlds;
  int64_t edits = 0;
  int64_t edit_errors = 0;   // edits the server refused or that failed in transport
  int64_t lost_edits = 0;    // acknowledged but not reflected in the world
  int64_t checks = 0;        // world-content checks made
  Histogram edit_latency;
  int64_t frames = 0;
  int64_t stream_errors = 0; // watch or haptic streams that ended with an error
  Histogram frame_interval;
  int64_t haptic_replies = 0;
  int64_t haptic_errors = 0;
  int64_t haptic_rejected = 0;  // replies flagged rejected_pose or out_of_order
  Histogram haptic_rtt;
  std::vector<RssSample> rss;
  double warmup_s = 0;
  std::string crash;         // "" when the server stayed up and stopped cleanly
  std::vector<std::string> first_errors;  // a few error messages, for the log
};

// Runs the load against `server` (which Stop() is not called on).
LoadReport RunLoad(const LoadOptions& options, ServerProcess& server);

// Prints the report; returns true when there was no crash, no lost edit and no error.
bool PrintReport(const LoadReport& report);

}  // namespace ligature::load
