// The four rigid scenes of the tunable-LCP paper's Table I (mendoza et al.), each from its
// scene file under server/scenes/, timed once settled: ours with both solvers at equal
// iterations (and, where the scene sets a tolerance, with it) against Bullet, ODE and
// MuJoCo, interleaved. `paper` is the paper's time per frame in ms.

#include "tests/bench/registry.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {
namespace {

constexpr char kPaper[] = "mendoza-tunable-lcp-cutting-haptics Table I ";

// 375 spheres dropped into a box, timed as a settled pile.
const Registrar kSpheres(MakeSceneBench({
    .scene = "spheres375",
    .paper = 200.0,
    .paper_source = std::string(kPaper) + "spheres, 375 solids, 840 contacts, 0.2 s",
    .setup = "375 spheres r 0.1 in a 2 m box on a plane",
    .settle_steps = 300,
}));

// 105 jacks (three crossed capsules each) dropped into a box, timed as a settled pile.
const Registrar kJacks(MakeSceneBench({
    .scene = "jacks105",
    .paper = 100.0,
    .paper_source = std::string(kPaper) + "jacks, 105 solids, 400 contacts, 0.1 s",
    .setup = "105 jacks of 3 capsules r 0.03 in a 2 m box on a plane",
    .settle_steps = 300,
    .early_exit = true,
}));

// 38 stools (a box seat on four capsule legs) standing on a plane.
const Registrar kStools(MakeSceneBench({
    .scene = "stools38",
    .paper = 7.0,
    .paper_source = std::string(kPaper) + "stools, 38 solids, 141 contacts, 0.007 s",
    .setup = "38 stools (box seat + 4 capsule legs) standing on a plane",
    .settle_steps = 50,
    .early_exit = true,
}));

// 75 bricks in a staggered wall standing on a plane; its bricks take about 3 s to come to
// rest on the peers.
const Registrar kWall(MakeSceneBench({
    .scene = "wall75",
    .paper = 30.0,
    .paper_source = std::string(kPaper) + "wall, 75 solids, 190 contacts, 0.03 s",
    .setup = "75 box bricks in a staggered wall standing on a plane",
    .settle_steps = 150,
    .early_exit = true,
}));

}  // namespace
}  // namespace ligature::bench
