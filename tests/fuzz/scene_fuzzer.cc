// Scene loading: bytes -> ligature.v1.Scene (binary, text or JSON, as scene files and
// CreateWorld carry it) -> the validation and world building CreateWorld runs -> a few
// ticks under the divergence guard -> a snapshot restored into a copy that must step
// bit-identically. Input: one byte picking the format, then the scene.

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/host/world_host.h"
#include "tests/fuzz/world_checks.h"

namespace ligature::fuzz {
namespace {

// Small enough that one input runs in milliseconds; the limits are the server's own check.
constexpr int kMaxBodies = 512;
constexpr int kMaxConstraints = 512;
constexpr int kTicks = 3;

// The scene in the format the first byte picks, or nullopt when it does not parse.
std::optional<v1::Scene> Decode(const uint8_t* data, size_t size) {
  if (size == 0) return std::nullopt;
  const std::string payload(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 3) {
    case 0: {
      v1::Scene scene;
      if (!scene.ParseFromString(payload)) return std::nullopt;
      return scene;
    }
    case 1: {
      auto scene = ParseScene(payload, "fuzz.textproto");
      if (!scene.ok()) return std::nullopt;
      return *scene;
    }
    default: {
      auto scene = ParseScene(payload, "fuzz.json");
      if (!scene.ok()) return std::nullopt;
      return *scene;
    }
  }
}

// Elements a scene's deformable bodies would hold (tetrahedra, rod control points, strand
// points), estimated from the request. Valid scenes may be far bigger than a fuzz input
// should step in milliseconds; those are left out (the limits are the server's design, not
// a fault).
double DeformableSize(const v1::Scene& scene) {
  auto n = [](int64_t v) { return std::abs(static_cast<double>(v)); };
  double total = 0;
  for (const v1::Body& b : scene.bodies()) {
    const v1::SoftBody& s = b.soft();
    total += 6.0 * n(s.box().cells_x()) * n(s.box().cells_y()) * n(s.box().cells_z());
    total += 48.0 * n(s.sphere().resolution()) * n(s.sphere().resolution()) *
             n(s.sphere().resolution());
    total += 6.0 * n(s.cylinder().rings()) * n(s.cylinder().around()) * n(s.cylinder().layers());
    total += s.tets().tets_size() / 4.0 + s.gmsh().size() / 40.0;
    total += n(b.rod().control_points()) + b.rod().points_size() + b.strand().points_size();
  }
  return total;
}
constexpr double kMaxDeformableSize = 3000;

void Run(const uint8_t* data, size_t size) {
  auto proto = Decode(data, size);
  if (!proto) return;
  if (DeformableSize(*proto) > kMaxDeformableSize) return;
  auto scene = SceneFromProto(*proto, FuzzAssets());
  if (!scene.ok()) {
    Require(scene.status().code() == absl::StatusCode::kInvalidArgument,
            "scene refused with a code other than INVALID_ARGUMENT:",
            scene.status().ToString());
    return;
  }
  WorldLimits limits;
  limits.max_bodies = kMaxBodies;
  limits.max_constraints = kMaxConstraints;
  auto world = World::FromScene("worlds/fuzz", *scene, limits);
  if (!world.ok()) return;
  CheckWorld(**world);
  CheckExportRoundTrip(**world);
  // Step under the guard, as the scheduler does, paused or not.
  WorldHost host(std::move(*world));
  for (int i = 0; i < kTicks; ++i) {
    host.Enqueue([&host](World* w) {
      host.GuardedStep(*w);
      CheckWorld(*w);
    });
    host.RunTick();
  }
  // The stepped world's snapshot restores, and the copy steps bit-identically.
  host.Enqueue([&limits](World* w) { CheckSnapshotRoundTrip(w, limits, 1, nullptr); });
  host.RunTick();
  host.Close();
}

}  // namespace
}  // namespace ligature::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ligature::fuzz::Run(data, size);
  return 0;
}
