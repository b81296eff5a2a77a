#pragma once
// The edit operations the edit fuzzer decodes from its bytes, and their encoding, shared
// with the seed generator.

#include <cstdint>

namespace ligature::fuzz {

// Input: one byte picking the starting scene (kStartScenes), then operations, each an op
// byte (EditOp, modulo kOpCount) followed by its arguments.
enum EditOp : uint8_t {
  kCreateBody = 0,        // shape, kind, id, pose, velocities, material
  kUpdateBody = 1,        // body pick, name form, mask bits, values
  kDeleteBody = 2,        // body pick, name form
  kRawEdit = 3,           // a ligature.v1.Edit, binary, length first
  kDeleteConstraint = 4,  // constraint pick, name form
  kCreatePoint = 5,       // a point constraint: two body picks, two anchors
  kSettings = 6,          // field, value
  kStep = 7,              // ticks - 1 (of 4)
  kDevicePose = 8,        // body pick, pose
  kOpCount = 9,
};

// Scenes an input may start from (built-in scene names; "" is an empty world).
inline constexpr const char* kStartScenes[] = {"", "tissue", "ligament",
                                               "donkey_ear", "necklace", "bow", "default"};
inline constexpr int kStartSceneCount = sizeof(kStartScenes) / sizeof(kStartScenes[0]);

}  // namespace ligature::fuzz
