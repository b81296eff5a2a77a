#pragma once
// A cut corotational body's rest system factorized again on another thread.
//
// A cut changes the body's mesh, and with it the rest system A0 whose factorization
// preconditions every step and answers every contact. Factorizing it again at once would
// cost the tick after a cut several ticks of budget, so the body keeps the factorization it
// had, mapped onto the cut mesh (each duplicate vertex stands for the vertex it was split
// from: CorotationalSystem::UseRest), while another thread factorizes the new mesh. The new
// factorization takes over a fixed number of ticks after the cut (kSeconds of simulated
// time), waiting for the thread if it is late, so that the steps are the same bits whatever
// the threads' speed. Cuts while a factorization is under way only extend its map; when it
// takes over, the mesh they made starts the next one.

#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "server/model/soft/cutting.h"
#include "server/model/soft/fem_corotational.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

class RestRefresh {
 public:
  // The time a new factorization has before it takes over, s.
  static constexpr double kSeconds = 0.2;

  // A cut split `splits` off the mesh of the body whose system was `before` and whose
  // model and system are now `model` and `system` (a fresh one, for the new pattern):
  // `system` preconditions with `before`'s factorization mapped onto the new mesh, and the
  // new mesh's factorization starts unless one is under way. Nothing when `before` has no
  // rest factorization (it solves directly, or never stepped).
  // `mesh_before` is the mesh before the cut. `before`'s cached columns are moved to
  // `system` when nothing else holds `before`, else copied.
  void AfterCut(const CorotationalModel& model, const TetMesh& mesh_before,
                std::span<const VertexSplit> splits, double h,
                std::shared_ptr<CorotationalSystem> before, CorotationalSystem* system);

  // Once a tick, before the body steps over h: the factorization under way takes over when
  // its time has come (if it was made for h), and the next one starts if cuts have changed
  // the mesh since it started.
  void Tick(const CorotationalModel& model, double h, CorotationalSystem* system);

  // A factorization is under way.
  bool pending() const { return pending_ != nullptr; }

  // An earlier mesh of the body, from the current one: its rest positions (its vertices
  // are the current mesh's first ones) and, for each later vertex, the vertex it was split
  // from. Its tets are the current ones with each vertex taken back to that vertex.
  struct PastMesh {
    std::vector<Vec3> rest;
    std::vector<int> split_from;
  };
  // What a snapshot keeps: the meshes whose factorizations the system preconditions with
  // and the thread makes, when they are not the current mesh, the step length they are
  // for, and the ticks until the one under way takes over.
  struct Saved {
    std::optional<PastMesh> factorized;
    std::optional<PastMesh> refactorizing;
    double h = 0.0;
    int ticks_left = 0;
  };
  Saved Save(const CorotationalSystem& system, const TetMesh& current) const;
  // Puts the body of `model` back in a saved refresh: factorizes the mesh `system`
  // preconditioned with (here, before returning) and starts the one that was under way,
  // so that the steps go on to the same bits. `saved` must fit the model (CheckSaved).
  void Restore(const Saved& saved, const CorotationalModel& model, CorotationalSystem* system);
  // OK when `saved` fits a body of `vertices` vertices, else INVALID_ARGUMENT naming the
  // field under `field`.
  static absl::Status CheckSaved(const Saved& saved, int vertices, const std::string& field);

 private:
  // The new factorization, and a system holding the columns and blocks of the contacts
  // that were cached when it started, computed with it on the same thread.
  struct Made {
    std::shared_ptr<const RestFactorization> factor;
    std::shared_ptr<const CorotationalSystem> warm;
  };
  struct Pending {
    std::shared_future<Made> made;
    // The mesh being factorized, and the vertex of it each vertex stands for (empty: the
    // same).
    std::shared_ptr<const TetMesh> mesh;
    std::vector<int> to_pending;
  };
  // Starts factorizing `model`'s rest system for h on another thread, and computing the
  // blocks of the vertex sets `system` has cached.
  void Start(const CorotationalModel& model, double h, const CorotationalSystem& system);

  std::shared_ptr<Pending> pending_;
  int ticks_left_ = 0;
  double h_ = 0.0;
  // The mesh the system's factorization is of while it is not the current one.
  std::shared_ptr<const TetMesh> factorized_mesh_;
};

}  // namespace ligature
