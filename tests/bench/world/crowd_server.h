#pragma once
// The servers of the world/viewers benchmark in a process of their own (see ChildProcess),
// so that its CPU time is theirs alone: a ligatured server with one world, "crowd", made
// from a built-in scene, and the two floors (fanout_floors.h) serving the same world's frames.
// It prints "ports <ligatured> <bare gRPC> <plain TCP>" and serves until its stdin closes.

#include <string>

namespace ligature::bench {

inline constexpr char kServeCrowdEnv[] = "LIGATURE_BENCH_SERVE_CROWD";

// The child's side; returns the exit code.
int ServeCrowdWorld(const std::string& scene);

}  // namespace ligature::bench
