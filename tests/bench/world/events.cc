// world/events: what contact events cost a world step. The 375-sphere pile (the built-in
// spheres375: about 1,100 contacts) with events reported and taken every step, as a host
// with a reader does, against the same world reporting nothing, in the same run. Two
// variants: begin and end events only (what a reader gets by default), and a persist event
// for every touching pair at every tick as well (a reader that asks for persist). Both sides
// run the scene's own solver settings with tolerance 0 (every iteration); the events are
// deterministic, so both worlds stay in the same contact state.

#include "absl/strings/str_cat.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_scene.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {
namespace {

SceneFactory Pile(EventReporting events) {
  return [events]() -> absl::StatusOr<std::unique_ptr<SteppedScene>> {
    absl::StatusOr<SceneDesc> scene = LoadScene("spheres375");
    if (!scene.ok()) return scene.status();
    scene->settings.solver.tolerance = 0.0;
    return MakeReportingScene(*scene, events);
  };
}

StepBench Make() {
  StepBench bench;
  bench.name = "world/events";
  bench.setup =
      "spheres375 (375 spheres resting in a box), its solver and iterations, tolerance 0; "
      "ours reports events and takes them every step, the peer is the same world reporting "
      "none";
  bench.settle_steps = 200;
  bench.timed_steps = 1000;
  bench.quick_timed_steps = 100;
  bench.chunk_steps = 50;
  bench.ours.push_back({"begin and end events", Pile({.enabled = true})});
  bench.ours.push_back(
      {"begin, end and persist events", Pile({.enabled = true, .persist = true})});
  bench.peers.push_back({"ligature, events off", Pile({})});
  return bench;
}

const Registrar kEvents(Make());

}  // namespace
}  // namespace ligature::bench
