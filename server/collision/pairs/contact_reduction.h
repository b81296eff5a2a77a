#pragma once
// Reduces a set of candidate contact points on one face to at most four.

#include <span>

#include "server/collision/contact.h"

namespace ligature {

// Appends to `out` at most ContactManifold::kMaxPoints of `candidates`: all of them when
// they fit, otherwise the deepest (of several as deep, within a nanometre, the one
// farthest from the candidates' mean), the one farthest from it, and the two that span
// the largest triangle on either side of that pair (area measured about `normal`), so the
// kept points are deep and spread out. Deterministic: ties go to the lower index.
void ReduceContacts(std::span<const ContactPoint> candidates, const Vec3& normal,
                    ContactManifold* out);

}  // namespace ligature
