#pragma once
// A coupling between two kinds of body through the world's Gauss-Seidel solve: the stages
// the step pipeline calls on it, in this order, and the warm-start state it keeps across
// ticks (a snapshot carries it). A coupling that has no use for a stage keeps the no-op.

#include <algorithm>
#include <cstddef>
#include <utility>
#include <vector>

#include "absl/functional/function_ref.h"
#include "server/world/step_context.h"
#include "server/world/world_saved_state.h"
#include "server/world/world_view.h"

namespace ligature {

class Coupling {
 public:
  virtual ~Coupling() = default;

  // Before the solve: this tick's contacts, at the start-of-tick positions. The solver
  // points they need join the context's lists.
  virtual void FindContacts(const WorldView& w, StepContext& ctx) = 0;
  // One contact block per contact, appended to ctx.rows (warm-started where it keeps
  // forces).
  virtual void BuildRows(const WorldView& w, StepContext& ctx) = 0;
  // The compliance of the solver points it owns, past the rigid bodies' in ctx.compliance.
  virtual void AddCompliance(const WorldView& /*w*/, StepContext& /*ctx*/) {}
  // After the solve: its blocks' forces go to its bodies or to the context's per-point
  // sums, and are kept for the next tick's warm start.
  virtual void ApplySolvedForces(const WorldView& w, StepContext& ctx) = 0;
  // Each of this tick's contacts with its block's index in ctx.rows, for the contact
  // reports and the penetration left.
  virtual void ForEachContact(
      absl::FunctionRef<void(size_t block, const ContactRecord& contact)> fn) const = 0;
  // Its warm-start state into a snapshot, and back into a world just built from it.
  virtual void SaveWarmStart(WorldSavedState* /*s*/) const {}
  virtual void RestoreWarmStart(const WorldSavedState& /*s*/) {}

 protected:
  Coupling() = default;
  Coupling(const Coupling&) = default;
  Coupling& operator=(const Coupling&) = default;
  Coupling(Coupling&&) = default;
  Coupling& operator=(Coupling&&) = default;
};

// A hash map's entries as a sorted list (equal warm starts give equal snapshots).
template <class Map>
auto SortedEntries(const Map& map) {
  std::vector<std::pair<typename Map::key_type, typename Map::mapped_type>> out(map.begin(),
                                                                              map.end());
  std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  return out;
}

}  // namespace ligature
