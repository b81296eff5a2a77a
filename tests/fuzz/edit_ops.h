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
  // Soft bodies: a box or sphere mesh (model, integrator, cells, size, pose, stiffness,
  // held vertices, cutting); a local constraint on one (body pick, kind, vertex count and
  // vertices, goal, followed body, self-assembly steps); a constraint switched off or on
  // (constraint pick, on); a scalpel stroke over a cuttable body (scalpel pick, body pick,
  // vertex pick, depth, direction, length, ticks), a blade made first when there is none.
  kSoftBody = 9,
  kSoftConstraint = 10,
  kToggleConstraint = 11,
  kScalpelStroke = 12,
  // Rods: a rod (point count and points, control points, radius, kind, rod contact, held
  // at its start or not); a rod constraint or pearl (kind, rod picks, u's, target,
  // direction, distance, flags, friction, followed body).
  kRod = 13,
  kRodConstraint = 14,
  // Strands: a chain (segments, length, stiffness, pose, followed body, rest shape under
  // gravity); a strand constraint (kind, strand pick, segment, point, target, follow, joint,
  // max bend).
  kStrand = 15,
  kStrandConstraint = 16,
  // Haptics: the session's channel attached to a body (body pick; one in four detaches);
  // one device pose through the haptic loop (position, orientation, sequence step, time
  // step), its coupling handed to the world.
  kHapticAttach = 17,
  kHapticPose = 18,
  // A snapshot of the world restored into a new world: the copy captures the same bytes
  // and, stepped beside the original (ticks - 1 of 4), stays bit-identical; the world then
  // takes the restored state (RestoreSnapshotInto) and the sequence goes on.
  kSnapshot = 19,
  kOpCount = 20,
};

// Scenes an input may start from (built-in scene names; "" is an empty world). Not the
// braid: its long strands step some hundred times slower under the sanitizers (0.25 s a
// tick), so sequences on it time out; strands come from kStrand.
inline constexpr const char* kStartScenes[] = {"", "tissue", "ligament",
                                               "donkey_ear", "necklace", "bow", "default"};
inline constexpr int kStartSceneCount = sizeof(kStartScenes) / sizeof(kStartScenes[0]);

}  // namespace ligature::fuzz
