#pragma once
// The loss rig of the haptics benchmarks: a network namespace of their own (unshare --net,
// with --map-root-user when not root) whose loopback drops packets at random, every packet
// each way, by an nftables `numgen random` rule (this kernel has no netem). Server and
// client both run inside it, and nothing leaves it.
//
// A benchmark that needs the rig runs this executable again inside a new namespace
// (RunInLossRig), with kLossRigEnv set so that the child knows it is inside; the child
// prints the result lines, which the parent passes on.

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace ligature::bench {

inline constexpr char kLossRigEnv[] = "LIGATURE_BENCH_IN_LOSS_RIG";

// True in the child that runs inside the rig.
bool InLossRig();

// Runs `ligature-bench --filter ^bench$ [--quick]` inside a fresh namespace and returns its
// result lines; UNAVAILABLE saying why when the namespace cannot be made or the run fails.
absl::StatusOr<std::vector<std::string>> RunInLossRig(const std::string& bench, bool quick);

// Inside the rig: brings loopback up (first call) and drops `percent` % of the packets on it
// at random (0: none).
absl::Status SetLoss(double percent);

}  // namespace ligature::bench
