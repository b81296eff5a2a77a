#pragma once
// One-line renderings of a Frame: human-readable text and JSON.

#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/frame.pb.h"

namespace ligature::client {

struct FrameTextOptions {
  // Bodies listed in full; the rest are summarised as "(+N more)". Negative lists all.
  int max_bodies = 8;
};

// A single line such as
//   worlds/demo tick=120 t=2.000s step=0.153ms solver[iters=20 residual=1.2e-08 rows=36
//   contacts=12] asleep=1 ball p=(0.000,0.498,0.000) v=(0.000,0.000,0.000) asleep
// (shown wrapped here; the result contains no newline). The sleepers' count and marks come
// only when some body sleeps.
std::string FormatFrameText(const ligature::v1::Frame& frame, const FrameTextOptions& options = {});

// The frame as compact proto3 JSON on one line (default-valued fields omitted).
absl::StatusOr<std::string> FormatFrameJson(const ligature::v1::Frame& frame);

}  // namespace ligature::client
