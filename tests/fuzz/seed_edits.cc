// Writes the edit fuzzer's seed inputs: for each starting scene, sequences that create,
// update, join, drive, step and delete bodies, and each scene's own bodies and constraints
// as raw Edit messages. Usage: ligature_fuzz_seed_edits OUT_DIR

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "ligature/v1/scene_service.pb.h"
#include "server/world/scene_library.h"
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
  return 0;
}
