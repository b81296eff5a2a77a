#pragma once
// A scalpel: a rigid body whose blade cuts the soft bodies that allow cutting. Its shape
// pushes tissue like any rigid shape; its tip is where the blade meets the tissue.

#include "server/math/types.h"

namespace ligature {

struct ScalpelDesc {
  // The point of the cutting edge that meets the tissue, m, body frame. It should lie on
  // the body's shape (the tissue is pushed out of the shape, so it rests against it).
  Vec3 tip = Vec3::Zero();
  // How deep below the surface a stroke separates tetrahedra, m, > 0.
  double cut_depth = 0.01;
  // Sharpness kappa of the cutting criterion, > 0: the tissue's stress is divided by it,
  // so a smaller kappa (a sharper blade) cuts more easily.
  double sharpness = 1.0;
  // The tip touches the tissue when it is this close to the surface, m, >= 0.
  double contact_distance = 1e-3;
  // Move the cut line's vertex onto the blade before separating (local remeshing). The
  // moved tetrahedra's rest volumes, hence their masses, change slightly; without it a cut
  // keeps the mass exactly.
  bool reposition_cut_line = false;
};

}  // namespace ligature
