// Writes the edit fuzzer's seed inputs: for each starting scene, sequences that create,
// update, join, drive, step and delete bodies, and each scene's own bodies and constraints
// as raw Edit messages; then soft bodies with constraints switched off and on, a scalpel
// stroke that cuts, rods with contact, a keyhole and a pearl, strands with a constraint,
// and a haptic session, each with snapshots restored mid-sequence.
// Usage: ligature_fuzz_seed_edits OUT_DIR

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "ligature/v1/scene_service.pb.h"
#include "server/scene/scene_library.h"
#include "tests/fuzz/edit_ops.h"
#include "tests/fuzz/fuzz_input.h"

namespace ligature::fuzz {
namespace {

void Write(const std::filesystem::path& dir, const std::string& name, const FuzzOutput& out) {
  std::ofstream f(dir / name, std::ios::binary);
  f << out.str();
}

void Vec3(FuzzOutput& o, double x, double y, double z) {
  o.SmallNumber(x);
  o.SmallNumber(y);
  o.SmallNumber(z);
}

// A sphere of radius 0.2 at height y, dynamic, resting velocities, default material.
void CreateBall(FuzzOutput& o, double y) {
  o.Byte(kCreateBody);
  o.Byte(0);  // sphere
  o.SmallNumber(0.2);
  o.Byte(1);  // dynamic
  o.Byte(0);  // no id
  Vec3(o, 0.5, y, 0.0);
  o.Byte(0);  // identity orientation
  Vec3(o, 0, 0, 0);
  Vec3(o, 0, 0, 1);
  o.Byte(0);  // default material
  o.Byte(1);  // no scalpel
}

void Step(FuzzOutput& o, int ticks) {
  o.Byte(kStep);
  o.Byte(static_cast<uint8_t>(ticks - 1));
}

// Edits every operation kind once, in an order that makes each one meaningful.
FuzzOutput Mixed(int scene) {
  FuzzOutput o;
  o.Byte(static_cast<uint8_t>(scene));
  CreateBall(o, 2.0);
  CreateBall(o, 3.0);
  Step(o, 2);
  o.Byte(kCreatePoint);
  o.Byte(0);  // first body
  Vec3(o, 0, 0.2, 0);
  o.Byte(1);  // to a second body
  o.Byte(1);
  Vec3(o, 0, -0.2, 0);
  Step(o, 4);
  o.Byte(kUpdateBody);
  o.Byte(0);
  o.Byte(3);          // well-formed name
  o.Byte(0x18);       // linear_velocity, angular_velocity
  Vec3(o, 0, 1, 0);   // pose (unused)
  o.Byte(0);
  Vec3(o, 1, 0, 0);
  Vec3(o, 0, 0, 2);
  o.Byte(0);
  o.Byte(1);
  Step(o, 3);
  o.Byte(kSettings);
  o.Byte(3);  // solver kind
  o.Byte(2);  // tunable LCP
  Step(o, 4);
  o.Byte(kDevicePose);
  o.Byte(0);
  Vec3(o, 0.1, 1.0, 0);
  o.Byte(0);
  Step(o, 2);
  o.Byte(kDeleteConstraint);
  o.Byte(0);
  o.Byte(3);
  o.Byte(kDeleteBody);
  o.Byte(1);
  o.Byte(3);
  Step(o, 4);
  return o;
}

// The scene's first bodies and constraints created again, as raw Edit messages (with ids
// left for the world to choose), then stepped.
FuzzOutput Raw(int scene) {
  FuzzOutput o;
  o.Byte(static_cast<uint8_t>(scene));
  if (kStartScenes[scene][0] == '\0') return o;
  auto proto = LoadBuiltinScene(kStartScenes[scene]);
  if (!proto.ok()) return o;
  for (int i = 0; i < proto->bodies_size() && i < 3; ++i) {
    v1::Edit e;
    *e.mutable_create_body() = proto->bodies(i);
    e.mutable_create_body()->clear_id();
    o.Byte(kRawEdit);
    o.Bytes(e.SerializeAsString());
    Step(o, 1);
  }
  for (int i = 0; i < proto->constraints_size() && i < 3; ++i) {
    v1::Edit e;
    *e.mutable_create_constraint() = proto->constraints(i);
    e.mutable_create_constraint()->clear_id();
    o.Byte(kRawEdit);
    o.Bytes(e.SerializeAsString());
    Step(o, 1);
  }
  return o;
}

void Snapshot(FuzzOutput& o, int ticks) {
  o.Byte(kSnapshot);
  o.Byte(static_cast<uint8_t>(ticks - 1));
}

// A mass-point box (0.05 m, 2 x 1 x 2 cells: 3 x 2 x 3 vertices) at (0, 1, 0).
void SoftBox(FuzzOutput& o, uint8_t model, uint8_t integrator) {
  o.Byte(kSoftBody);
  o.Byte(3 | (1 << 3) | (1 << 5));
  o.Byte(model);
  o.Byte(integrator);
  o.Byte(0);  // default material
  o.Byte(0);  // no held vertices
  Vec3(o, 0, 1, 0);
  o.Byte(0);  // identity orientation
}

// Soft bodies: a mass-point box with a self-assembling nail and a points-to-point pair,
// stepped, snapshotted mid-ramp, the pair switched off, snapshotted, switched on again.
FuzzOutput Soft(int scene, uint8_t integrator, uint8_t body) {
  FuzzOutput o;
  o.Byte(static_cast<uint8_t>(scene));
  SoftBox(o, 1, integrator);
  o.Byte(kSoftConstraint);
  o.Byte(body);  // the new soft body's place among the soft bodies
  o.Byte(1);    // nail
  o.Byte(0);    // one vertex
  o.Byte(0);    // vertex 0
  Vec3(o, -0.1, 1.1, -0.1);
  o.Byte(1);    // no followed body
  o.Byte(8 + 20);  // ramp over 20 steps
  o.Byte(kSoftConstraint);
  o.Byte(body);
  o.Byte(2);    // points-to-point
  o.Byte(1);    // two vertices
  o.Byte(5);
  o.Byte(11);
  Vec3(o, 0, 0, 0);
  o.Byte(1);
  o.Byte(8);    // at once
  Step(o, 4);
  Snapshot(o, 4);
  o.Byte(kToggleConstraint);
  o.Byte(1);    // the second constraint
  o.Byte(0);    // off
  Step(o, 3);
  Snapshot(o, 3);
  o.Byte(kToggleConstraint);
  o.Byte(1);
  o.Byte(1);    // on again
  Step(o, 2);
  Snapshot(o, 2);
  return o;
}

// The ligament's scalpel drawn across the band at three places (a cut), with snapshots.
FuzzOutput Stroke() {
  FuzzOutput o;
  o.Byte(2);  // ligament
  // Top vertices at the band's near edge (grid i, 1, 0: index i + 9), across its width.
  for (const uint8_t vertex : {13, 12, 14}) {
    o.Byte(kScalpelStroke);
    o.Byte(0);       // the scalpel
    o.Byte(0);       // the ligament
    o.Byte(vertex);
    o.Byte(4);       // 4 mm deep
    o.Byte(1);       // along +z
    o.Byte(9);       // 20 mm
    o.Byte(27);      // 31 ticks
    Snapshot(o, 2);
  }
  Step(o, 4);
  return o;
}

// Rods: two crossing rods with rod contact, one held at its start, a keyhole and a pearl,
// stepped and snapshotted, a rod removed.
FuzzOutput Rods(int scene) {
  FuzzOutput o;
  o.Byte(static_cast<uint8_t>(scene));
  for (const double z : {0.0, 0.02}) {
    o.Byte(kRod);
    o.Byte(1);  // three points
    for (int i = 0; i < 3; ++i) Vec3(o, 0, 0, z * 100);
    o.Byte(8);  // control points
    o.Byte(0);  // default radius
    o.Byte(1);  // rod contact
    o.Byte(1);  // dynamic
    o.Byte(1);  // held at its start
  }
  o.Byte(kRodConstraint);
  o.Byte(6);    // keyhole
  o.Byte(1);    // the second rod
  o.SmallNumber(2.0);  // u = 0.1
  o.Byte(0);    // no b, no flags
  Vec3(o, 0.1, 1.0, 0.02);
  Vec3(o, 1, 0, 0);
  o.SmallNumber(0);
  o.Byte(kRodConstraint);
  o.Byte(11);   // pearl
  o.Byte(0);
  o.SmallNumber(1.0);  // u = 0.05
  o.SmallNumber(1.0);  // 0.1 kg
  o.SmallNumber(0.5);  // 5 mm
  o.SmallNumber(1.0);  // friction 0.1
  o.SmallNumber(1.0);  // 0.1 m/s
  Step(o, 4);
  Snapshot(o, 4);
  Step(o, 4);
  Snapshot(o, 2);
  o.Byte(kDeleteBody);
  o.Byte(0);
  o.Byte(3);
  Step(o, 2);
  return o;
}

// Strands: a five-segment chain following a body, a point constraint on its tip, stepped
// and snapshotted.
FuzzOutput Strands(int scene) {
  FuzzOutput o;
  o.Byte(static_cast<uint8_t>(scene));
  o.Byte(kStrand);
  o.Byte(4);           // five segments
  o.Byte(2);           // 3 cm
  o.SmallNumber(1.0);  // bend stiffness 1e-3
  o.SmallNumber(1.0);  // damping 1e-4
  o.Byte(1);           // follows a body
  o.Byte(0);
  Vec3(o, 0, 1.5, 0);
  o.Byte(0);
  Step(o, 3);
  o.Byte(kStrandConstraint);
  o.Byte(1);           // point
  o.Byte(0);           // the first strand
  o.Byte(5);           // segment 4
  o.Byte(0);           // joint, world target, nothing else
  Vec3(o, 0.05, 1.4, 0);
  o.SmallNumber(1.0);
  Step(o, 4);
  Snapshot(o, 4);
  Step(o, 2);
  return o;
}

// Haptics: the channel on a dynamic body, device poses around it with ticks between,
// snapshotted while the session holds the tool.
FuzzOutput Haptic(int scene, uint8_t ball) {
  FuzzOutput o;
  o.Byte(static_cast<uint8_t>(scene));
  CreateBall(o, 1.0);
  o.Byte(kHapticAttach);
  o.Byte(ball);  // the new ball's place among the bodies
  o.Byte(1);  // attach, not detach
  o.SmallNumber(0);  // default stiffness
  for (int k = 0; k < 6; ++k) {
    o.Byte(kHapticPose);
    Vec3(o, 5.0, 10.0 - k * 0.1, 0);
    o.Byte(0);  // identity orientation
    o.Byte(1 | (2 << 2));  // next sequence, 1 ms later
    if (k % 2) Step(o, 1);
  }
  Snapshot(o, 3);
  o.Byte(kHapticPose);
  Vec3(o, 5.0, 9.0, 0);
  o.Byte(0);
  o.Byte(1 | (2 << 2));
  Step(o, 2);
  return o;
}

}  // namespace
}  // namespace ligature::fuzz

int main(int argc, char** argv) {
  using namespace ligature::fuzz;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path dir(argv[1]);
  std::filesystem::create_directories(dir);
  for (int s = 0; s < kStartSceneCount; ++s) {
    const std::string scene = kStartScenes[s][0] ? kStartScenes[s] : "empty";
    Write(dir, absl::StrCat("seed-mixed-", scene), Mixed(s));
    Write(dir, absl::StrCat("seed-raw-", scene), Raw(s));
  }
  Write(dir, "seed-soft-empty-verlet", Soft(0, 6, 0));
  Write(dir, "seed-soft-tissue-implicit", Soft(1, 2, 2));
  Write(dir, "seed-stroke-ligament", Stroke());
  Write(dir, "seed-rods-empty", Rods(0));
  Write(dir, "seed-rods-bow", Rods(5));
  Write(dir, "seed-strands-default", Strands(6));
  Write(dir, "seed-haptic-empty", Haptic(0, 0));
  Write(dir, "seed-haptic-tissue", Haptic(1, 3));
  return 0;
}
