#pragma once
// The servers of the world/viewers benchmark in a process of their own (see ChildProcess),
// so that its CPU time is theirs alone: a ligatured server with one world, "crowd", made
// from a built-in scene, and the two floors (fanout_floors.h) serving the same world's frames.
// It prints "ports <ligatured> <bare gRPC> <plain TCP>" and serves until its stdin closes.
// Given a NATS url after the scene ("default nats://127.0.0.1:4222"), the server publishes
// the world's frames there. A viewer gateway (ligature-gateway's Gateway) runs in a child of
// its own the same way, printing "port <gateway>".

#include <string>

namespace ligature::bench {

inline constexpr char kServeCrowdEnv[] = "LIGATURE_BENCH_SERVE_CROWD";
inline constexpr char kServeGatewayEnv[] = "LIGATURE_BENCH_SERVE_GATEWAY";

// The children's sides; they return the exit code. `spec` is "SCENE [NATS_URL]".
int ServeCrowdWorld(const std::string& spec);
int ServeGateway(const std::string& nats_url);

}  // namespace ligature::bench
