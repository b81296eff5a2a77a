#pragma once
// Runs one step benchmark: builds both sides, settles them, times interleaved chunks and
// formats the result line.

#include <string>

#include "tests/bench/registry.h"

namespace ligature::bench {

struct RunOptions {
  bool quick = false;
  // With --quick, stop adding timed chunks once a benchmark has used this much wall time,
  // so a slow side cannot push the whole quick run past its one-minute budget.
  double quick_budget_s = 20.0;
};

struct RunResult {
  std::string json_line;  // the stdout line, without a newline
  bool ok = true;         // false when a side failed to build
};

RunResult RunStepBench(const StepBench& bench, const RunOptions& options);

}  // namespace ligature::bench
