#pragma once
// A grid of heights (a terrain) as clients give it, in its shape's local frame: the grid is
// centred on the origin in the XZ plane, columns along +X and rows along +Z, heights along
// +Y. A height-field shape is the triangle mesh built from it (two triangles a cell, both
// facing +Y, with the diagonal alternating between neighbouring cells); the mesh keeps the
// grid so that exports give back the heights as they came.

#include <cstdint>
#include <vector>

#include "server/math/types.h"

namespace ligature {

struct HeightField {
  int rows = 0;                 // grid points along Z
  int columns = 0;              // grid points along X
  double spacing_x = 0.0;       // m between neighbouring columns
  double spacing_z = 0.0;       // m between neighbouring rows
  std::vector<double> heights;  // m, row by row: point (r, c) at r * columns + c
  // Cells with no surface (a bore hole, a cave mouth): cell (r, c), between rows r, r + 1
  // and columns c, c + 1, is r * (columns - 1) + c.
  std::vector<uint32_t> holes;

  // Grid point (r, c) in the shape's frame.
  Vec3 Point(int r, int c) const {
    return Vec3((c - 0.5 * (columns - 1)) * spacing_x, heights[r * columns + c],
                (r - 0.5 * (rows - 1)) * spacing_z);
  }
};

}  // namespace ligature
