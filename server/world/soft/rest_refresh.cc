#include "server/world/soft/rest_refresh.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <thread>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// `past` as a mesh, from the current one (see RestRefresh::PastMesh); `past` fits.
TetMesh Rebuilt(const TetMesh& current, const RestRefresh::PastMesh& past) {
  const int kept = static_cast<int>(past.rest.size());
  TetMesh mesh;
  mesh.vertices = past.rest;
  mesh.tets = current.tets;
  for (std::array<int, 4>& tet : mesh.tets) {
    for (int& v : tet) {
      if (v >= kept) v = past.split_from[v - kept];
    }
  }
  return mesh;
}

// `mesh` as a past mesh of the current one, whose vertices stand for to_past's (empty: the
// same).
RestRefresh::PastMesh Past(const TetMesh& mesh, const std::vector<int>& to_past, int vertices) {
  RestRefresh::PastMesh past;
  past.rest = mesh.vertices;
  for (int v = static_cast<int>(mesh.vertices.size()); v < vertices; ++v) {
    past.split_from.push_back(to_past[v]);
  }
  return past;
}

// The map of a past mesh (each vertex to the vertex it stands for there).
std::vector<int> MapOf(const RestRefresh::PastMesh& past, int vertices) {
  std::vector<int> map(vertices);
  for (int v = 0; v < vertices; ++v) {
    map[v] = v < static_cast<int>(past.rest.size()) ? v : past.split_from[v - past.rest.size()];
  }
  return map;
}

// The model of a past mesh of `model`'s body: the same material, its held vertices those of
// the current mesh that it has.
absl::StatusOr<CorotationalModel> PastModel(const CorotationalModel& model,
                                            const RestRefresh::PastMesh& past) {
  std::vector<int> fixed;
  for (size_t v = 0; v < past.rest.size(); ++v) {
    if (model.rest().fixed[v]) fixed.push_back(static_cast<int>(v));
  }
  return CorotationalModel::Make(Rebuilt(model.mesh(), past), model.material(), fixed);
}

// `map` (vertex -> vertex of an earlier mesh, empty: the same) extended to a mesh of
// `vertices` vertices by `splits`: each duplicate stands for what its original stands for.
std::vector<int> Extended(std::vector<int> map, int vertices, std::span<const VertexSplit> splits) {
  if (map.empty()) {
    map.resize(vertices - splits.size());
    for (size_t v = 0; v < map.size(); ++v) map[v] = static_cast<int>(v);
  }
  for (const VertexSplit& split : splits) {
    map.resize(std::max<size_t>(map.size(), split.duplicate + 1), -1);
    map[split.duplicate] = map[split.original];
  }
  return map;
}

}  // namespace

void RestRefresh::AfterCut(const CorotationalModel& model, const TetMesh& mesh_before,
                           std::span<const VertexSplit> splits, double h,
                           std::shared_ptr<CorotationalSystem> before, CorotationalSystem* system) {
  if (before->rest_factorization() == nullptr) return;
  const int vertices = model.vertex_count();
  if (before->rest_vertices().empty()) factorized_mesh_ = std::make_shared<TetMesh>(mesh_before);
  h_ = h;
  system->UseRest(before->rest_factorization(),
                  Extended(before->rest_vertices(), vertices, splits));
  if (before.use_count() == 1) {
    system->CarryColumns(std::move(*before));
  } else {
    system->CarryColumns(*before);
  }
  if (pending_ == nullptr) {
    Start(model, h, *system);
    return;
  }
  // Copies of the world share the refresh under way: the map is extended on a copy.
  auto extended = std::make_shared<Pending>(*pending_);
  extended->to_pending = Extended(std::move(extended->to_pending), vertices, splits);
  pending_ = std::move(extended);
}

void RestRefresh::Tick(const CorotationalModel& model, double h, CorotationalSystem* system) {
  if (pending_ == nullptr || --ticks_left_ > 0) return;
  const Made& made = pending_->made.get();
  const bool changed = !pending_->to_pending.empty();
  if (made.factor != nullptr) {
    system->UseRest(made.factor, pending_->to_pending);
    system->CarryColumns(*made.warm);
    factorized_mesh_ = changed ? pending_->mesh : nullptr;
  }
  pending_.reset();
  if (changed) Start(model, h, *system);
}

void RestRefresh::Start(const CorotationalModel& model, double h,
                        const CorotationalSystem& system) {
  auto promise = std::make_shared<std::promise<Made>>();
  pending_ = std::make_shared<Pending>();
  pending_->made = promise->get_future().share();
  pending_->mesh = std::make_shared<TetMesh>(model.mesh());
  h_ = h;
  ticks_left_ = std::max(1, static_cast<int>(std::ceil(kSeconds / h)));
  // The thread owns a copy of the model: the body may be cut again, or removed, meanwhile.
  // The columns it computes are those a step would (they depend on the factor alone).
  std::thread([copy = std::make_shared<const CorotationalModel>(model), h, promise,
               sets = system.CachedSets()] {
    Made made;
    made.factor = copy->FactorizeRest(h);
    if (made.factor != nullptr) {
      auto warm = std::make_shared<CorotationalSystem>();
      warm->UseRest(made.factor, {});
      warm->WarmColumns(sets, copy->rest().fixed);
      made.warm = std::move(warm);
    }
    promise->set_value(std::move(made));
  }).detach();
}

RestRefresh::Saved RestRefresh::Save(const CorotationalSystem& system,
                                     const TetMesh& current) const {
  Saved saved;
  const int vertices = static_cast<int>(current.vertices.size());
  if (!system.rest_vertices().empty() && factorized_mesh_ != nullptr) {
    saved.factorized = Past(*factorized_mesh_, system.rest_vertices(), vertices);
  }
  if (pending_ != nullptr) {
    saved.refactorizing =
        Past(*pending_->mesh, Extended(pending_->to_pending, vertices, {}), vertices);
    saved.ticks_left = ticks_left_;
  }
  if (saved.factorized || saved.refactorizing) saved.h = h_;
  return saved;
}

absl::Status RestRefresh::CheckSaved(const Saved& saved, int vertices, const std::string& field) {
  if ((saved.factorized || saved.refactorizing) && !(saved.h > 0.0 && std::isfinite(saved.h))) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".refactor_h: must be finite and > 0"));
  }
  if (saved.refactorizing && saved.ticks_left < 1) {
    return absl::InvalidArgumentError(absl::StrCat(field, ".refactor_ticks_left: must be >= 1"));
  }
  for (const auto& [past, name] : {std::pair(&saved.factorized, "factorized"),
                                   std::pair(&saved.refactorizing, "refactorizing")}) {
    if (!past->has_value()) continue;
    const int kept = static_cast<int>((*past)->rest.size());
    const std::string at = absl::StrCat(field, ".", name);
    if (kept < 4 || kept > vertices ||
        static_cast<int>((*past)->split_from.size()) != vertices - kept) {
      return absl::InvalidArgumentError(
          absl::StrCat(at, ": ", kept, " rest vertices and ", (*past)->split_from.size(),
                       " split vertices do not make the body's ", vertices));
    }
    for (const int from : (*past)->split_from) {
      if (from < 0 || from >= kept) {
        return absl::InvalidArgumentError(
            absl::StrCat(at, ".split_from: vertex ", from, " out of range [0, ", kept, ")"));
      }
    }
    if (!std::ranges::all_of((*past)->rest, [](const Vec3& x) { return x.allFinite(); })) {
      return absl::InvalidArgumentError(absl::StrCat(at, ".rest: must be finite"));
    }
  }
  return absl::OkStatus();
}

void RestRefresh::Restore(const Saved& saved, const CorotationalModel& model,
                          CorotationalSystem* system) {
  pending_.reset();
  factorized_mesh_.reset();
  h_ = saved.h;
  const int vertices = model.vertex_count();
  if (saved.factorized) {
    absl::StatusOr<CorotationalModel> past = PastModel(model, *saved.factorized);
    std::shared_ptr<const RestFactorization> factor =
        past.ok() ? past->FactorizeRest(saved.h) : nullptr;
    if (factor != nullptr) {
      system->UseRest(std::move(factor), MapOf(*saved.factorized, vertices));
      factorized_mesh_ = std::make_shared<TetMesh>(past->mesh());
    }
  }
  if (saved.refactorizing) {
    // The current mesh itself, unless cuts came since: then its own model is factorized, so
    // that the factorization serves it without being made again when it takes over.
    const bool current = saved.refactorizing->split_from.empty() &&
                         saved.refactorizing->rest == model.mesh().vertices;
    absl::StatusOr<CorotationalModel> past =
        current ? absl::StatusOr<CorotationalModel>(model) : PastModel(model, *saved.refactorizing);
    if (!past.ok()) return;
    Start(*past, saved.h, *system);
    if (!saved.refactorizing->split_from.empty()) {
      pending_->to_pending = MapOf(*saved.refactorizing, vertices);
    }
    ticks_left_ = saved.ticks_left;
  }
}

}  // namespace ligature
