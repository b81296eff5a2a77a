// rigid/spheres375: 375 spheres (r 0.1 m, 1 kg) dropped into a 2 m x 2 m box and timed once
// settled; ours against Bullet, interleaved. The seed paper's figure for its 375-sphere
// scene is 0.2 s per frame (840 contacts).

#include "tests/bench/peers/bullet_spheres.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/ligature_spheres.h"
#include "tests/bench/rigid/sphere_pile.h"

namespace ligature::bench {
namespace {

// One layout for both engines: 5 x 5 columns x 15 layers, 0.25 m apart, lowest layer
// 0.15 m up, with up to 1 cm of fixed jitter in x and z.
SpherePile Spheres375() {
  SpherePile pile;
  pile.centers = GridCenters(/*columns=*/5, /*layers=*/15, /*spacing=*/0.25,
                             /*first_height=*/0.15, /*jitter=*/0.01);
  pile.radius = 0.1;
  pile.mass = 1.0;
  pile.friction = 0.5;
  pile.restitution = 0.0;
  pile.half_width = 1.0;
  pile.wall_height = 2.0;
  pile.dt = 0.01;
  pile.iterations = 10;
  return pile;
}

StepBench MakeBench() {
  StepBench bench;
  bench.name = "rigid/spheres375";
  bench.metric = "step_ms";
  bench.paper = 200.0;
  bench.paper_source = "mendoza-tunable-lcp-cutting-haptics spheres, 375 solids, 840 contacts";
  bench.ours = [] { return MakeLigatureSpheres(Spheres375()); };
  bench.peer_name = BulletPeerName();
  bench.peer = [] { return MakeBulletSpheres(Spheres375()); };
  bench.settle_steps = 300;
  bench.timed_steps = 1000;
  bench.quick_timed_steps = 200;
  bench.chunk_steps = 50;
  bench.setup = "375 spheres r 0.1 in 2 m box, dt 0.01, 10 iterations, friction 0.5";
  return bench;
}

const Registrar kRegistrar(MakeBench());

}  // namespace
}  // namespace ligature::bench
