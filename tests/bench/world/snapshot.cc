// snapshot/<scene>: what a world snapshot costs. On a built-in scene settled for a while:
// copy_ms, the World copy the periodic writer takes on the world's thread (all the tick
// waits for); save_ms, capture and serialization (SaveSnapshot does it on the world's
// thread, the writer on its own); restore_ms, parsing, validating and rebuilding a world
// from the bytes. The notes give the snapshot's size. No peer.

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/world/world.h"
#include "server/snapshot/world_snapshot.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

double Ms(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string Line(const std::string& name, const std::string& metric,
                 const std::vector<double>& ms, const std::string& notes) {
  return JsonLine()
      .String("bench", name)
      .String("metric", metric)
      .Number("median", Median(ms))
      .Number("p99", Percentile(ms, 99.0))
      .Integer("n", static_cast<long long>(ms.size()))
      .Number("paper", std::nullopt)
      .String("peer", std::nullopt)
      .Number("peer_median", std::nullopt)
      .Number("ratio", std::nullopt)
      .String("notes", notes)
      .Finish();
}

Benchmark MakeSnapshotBench(const std::string& scene, int settle_steps) {
  const std::string name = absl::StrCat("snapshot/", scene);
  return Benchmark{name, [name, scene, settle_steps](const RunOptions& options) {
    RunResult result;
    absl::StatusOr<SceneDesc> desc = LoadScene(scene);
    absl::StatusOr<std::unique_ptr<World>> world =
        desc.ok() ? World::FromScene("bench", *desc, WorldLimits{})
                  : absl::StatusOr<std::unique_ptr<World>>(desc.status());
    if (!world.ok()) {
      result.ok = false;
      result.json_lines.push_back(
          Line(name, "save_ms", {}, absl::StrCat("failed: ", world.status().message())));
      return result;
    }
    std::fprintf(stderr, "[%s] settling %d steps\n", name.c_str(), settle_steps);
    for (int i = 0; i < settle_steps; ++i) (*world)->Step();
    const int n = options.quick ? 20 : 200;
    std::vector<double> copy_ms, save_ms, restore_ms;
    size_t bytes = 0;
    bool restored_ok = true;
    for (int i = 0; i < n; ++i) {
      // One step between repetitions, so every snapshot is of a new state.
      (*world)->Step();
      auto t0 = std::chrono::steady_clock::now();
      auto copy = std::make_unique<World>(**world);
      auto t1 = std::chrono::steady_clock::now();
      const std::string snapshot = SerializeSnapshot(**world);
      auto t2 = std::chrono::steady_clock::now();
      absl::StatusOr<std::unique_ptr<World>> back =
          WorldFromSnapshotBytes(snapshot, "restored", WorldLimits{});
      auto t3 = std::chrono::steady_clock::now();
      restored_ok = restored_ok && back.ok();
      copy_ms.push_back(Ms(t1 - t0));
      save_ms.push_back(Ms(t2 - t1));
      restore_ms.push_back(Ms(t3 - t2));
      bytes = snapshot.size();
    }
    const std::string notes = absl::StrCat(
        "built-in scene ", scene, ", bodies=", (*world)->body_count(), ", tick=",
        (*world)->tick(), ", snapshot_bytes=", bytes, ", restored=", restored_ok ? "ok" : "FAILED");
    result.ok = restored_ok;
    result.json_lines.push_back(Line(name, "copy_ms", copy_ms, notes));
    result.json_lines.push_back(Line(name, "save_ms", save_ms, notes));
    result.json_lines.push_back(Line(name, "restore_ms", restore_ms, notes));
    return result;
  }};
}

const Registrar kOrgan(MakeSnapshotBench("organ", 100));
const Registrar kSpheres(MakeSnapshotBench("spheres375", 100));
const Registrar kHair(MakeSnapshotBench("hair", 50));

}  // namespace
}  // namespace ligature::bench
