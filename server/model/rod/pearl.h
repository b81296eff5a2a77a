#pragma once
// Pearls (MICADO section 6.2): massive beads that slide along a rod. A pearl's motion is
// projected onto the rod's tangent (a particle's backward-Euler step restricted to the
// curve), with Coulomb friction against the normal load and viscous friction, and its
// load is handed to the rod as an external force at the pearl (weak coupling). Pearls on
// one rod collide with each other along it (elastic impulses, then contact), and stop at
// the rod's ends.

#include <string>
#include <utility>
#include <vector>

#include "server/model/rod/rod_model.h"

namespace ligature {

struct PearlDesc {
  std::string id;
  std::string rod;        // rod id
  double u = 0.0;         // m, position along the rod, [0, length]
  double mass = 0.01;     // kg, > 0
  double radius = 0.005;  // m, >= 0: half its extent along the rod, for pearl collisions
  double friction = 0.0;  // Coulomb coefficient against the rod, >= 0
  double viscous = 0.0;   // N s/m, >= 0
  double speed = 0.0;     // m/s along the rod (towards larger u)
};

struct Pearl {
  PearlDesc desc;
  double u = 0.0;
  double speed = 0.0;  // m/s along the tangent
};

// Advances one pearl's speed by a step of h under `force` (N, world, gravity included)
// on the rod in `state`, and returns the force its load puts on the rod (the applied force
// minus what accelerates the pearl along the rod, friction included).
Vec3 StepPearlSpeed(const RodModel& model, const RodState& state, double h, const Vec3& force,
                    Pearl* pearl);

// Moves the pearls of one rod along it by their speeds over h, then resolves collisions
// between neighbours (elastic, momentum kept) and the rod's ends (the pearl stops).
void MovePearls(const RodModel& model, const RodState& state, double h,
                std::vector<Pearl*>& pearls);

}  // namespace ligature
