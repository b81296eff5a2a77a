#pragma once
// The server of the world/viewers benchmark in a process of its own (see ChildProcess), so
// that its CPU time is the server's alone: a ligatured server with one world, "crowd", made
// from a built-in scene. It prints "port <port>" and serves until its stdin closes.

#include <string>

namespace ligature::bench {

inline constexpr char kServeCrowdEnv[] = "LIGATURE_BENCH_SERVE_CROWD";

// The child's side; returns the exit code.
int ServeCrowdWorld(const std::string& scene);

}  // namespace ligature::bench
