#pragma once
// An engine-neutral description of a pile of equal spheres dropped into an open box, shared
// by our engine's scene and the peer's so both simulate the very same setup.
//
// Y is up. The floor is the plane y = 0; four static wall boxes enclose the square
// |x| <= half_width, |z| <= half_width on their inner faces.

#include <array>
#include <vector>

namespace ligature::bench {

struct SpherePile {
  std::vector<std::array<double, 3>> centers;  // initial sphere centers (m)
  double radius = 0.1;                         // m
  double mass = 1.0;                           // kg
  double friction = 0.5;                       // Coulomb coefficient of every contact
  double restitution = 0.0;
  double gravity_y = -9.81;                    // m/s^2
  double half_width = 1.0;                     // inner half size of the box (m)
  double wall_height = 2.0;                    // m
  double wall_thickness = 0.1;                 // m
  double dt = 0.01;                            // s
  int iterations = 10;                         // solver iterations per step
};

// A static wall box: center and half extents (m).
struct WallBox {
  std::array<double, 3> center;
  std::array<double, 3> half_extents;
};

// The four walls of `pile`, each overlapping its neighbours at the corners so no gap opens.
std::array<WallBox, 4> PileWalls(const SpherePile& pile);

// Sphere centers on a columns x columns x layers grid with `spacing`, the lowest layer
// `first_height` above the floor, centred on x = z = 0. A fixed-seed jitter of at most
// `jitter` (m) in x and z keeps the columns from standing as perfect stacks; the same
// arguments always give the same centers.
std::vector<std::array<double, 3>> GridCenters(int columns, int layers, double spacing,
                                               double first_height, double jitter);

}  // namespace ligature::bench
