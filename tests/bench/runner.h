#pragma once
// Runs one step benchmark: builds every side, settles them, times interleaved chunks and
// formats the result lines.

#include "tests/bench/registry.h"

namespace ligature::bench {

RunResult RunStepBench(const StepBench& bench, const RunOptions& options);

}  // namespace ligature::bench
