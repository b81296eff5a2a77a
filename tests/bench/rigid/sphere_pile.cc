#include "tests/bench/rigid/sphere_pile.h"

#include <cstddef>
#include <cstdint>

namespace ligature::bench {
namespace {

// A tiny explicit LCG: <random> distributions are not specified bit for bit across
// standard libraries, and the layout must be identical wherever the benchmark runs.
class Lcg {
 public:
  explicit Lcg(uint64_t seed) : state_(seed) {}
  // Uniform in [-1, 1).
  double NextSigned() {
    state_ = state_ * 6364136223846793005ULL + 1442695040888963407ULL;
    const double unit = static_cast<double>(state_ >> 11) * (1.0 / 9007199254740992.0);
    return 2.0 * unit - 1.0;
  }

 private:
  uint64_t state_;
};

}  // namespace

std::array<WallBox, 4> PileWalls(const SpherePile& pile) {
  const double h = pile.half_width;
  const double t = 0.5 * pile.wall_thickness;
  const double y = 0.5 * pile.wall_height;
  // Walls facing +-x span the full depth plus both thicknesses; walls facing +-z likewise.
  return {{
      {{h + t, y, 0.0}, {t, y, h + 2.0 * t}},
      {{-(h + t), y, 0.0}, {t, y, h + 2.0 * t}},
      {{0.0, y, h + t}, {h + 2.0 * t, y, t}},
      {{0.0, y, -(h + t)}, {h + 2.0 * t, y, t}},
  }};
}

std::vector<std::array<double, 3>> GridCenters(int columns, int layers, double spacing,
                                               double first_height, double jitter) {
  std::vector<std::array<double, 3>> centers;
  centers.reserve(static_cast<std::size_t>(columns) * columns * layers);
  Lcg rng(0x5eed5eedULL);
  const double offset = 0.5 * spacing * (columns - 1);
  for (int layer = 0; layer < layers; ++layer) {
    for (int i = 0; i < columns; ++i) {
      for (int k = 0; k < columns; ++k) {
        const double x = i * spacing - offset + jitter * rng.NextSigned();
        const double z = k * spacing - offset + jitter * rng.NextSigned();
        centers.push_back({x, first_height + layer * spacing, z});
      }
    }
  }
  return centers;
}

}  // namespace ligature::bench
