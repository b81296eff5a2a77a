// Solver points on soft bodies, shared by the couplings that reach them.

#include "server/world/coupling/soft_points.h"

#include <algorithm>
#include <cassert>
#include <numeric>
#include <optional>
#include <span>

namespace ligature {
namespace {

// Calls fn(first, end, points) for each run of points of one soft body: the points are
// numbered body by body (GroupSoftPoints), so each body's form one run.
template <class Fn>
void ForEachBodyRun(const std::vector<SoftPoint>& points, Fn fn) {
  std::vector<SoftWorld::WeightedPoint> run;
  for (size_t first = 0; first < points.size();) {
    size_t end = first;
    run.clear();
    while (end < points.size() && points[end].soft == points[first].soft) {
      run.push_back(points[end].at);
      ++end;
    }
    fn(first, end, run);
    first = end;
  }
}

}  // namespace

// A stable sort: the soft-rigid contacts' points came body by body already.
std::vector<uint32_t> GroupSoftPoints(std::vector<SoftPoint>* points) {
  const auto by_body = [](const SoftPoint& x, const SoftPoint& y) { return x.soft < y.soft; };
  if (std::is_sorted(points->begin(), points->end(), by_body)) return {};
  std::vector<uint32_t> order(points->size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) {
    return (*points)[x].soft < (*points)[y].soft;
  });
  std::vector<uint32_t> new_index(order.size());
  std::vector<SoftPoint> sorted(order.size());
  for (size_t k = 0; k < order.size(); ++k) {
    new_index[order[k]] = static_cast<uint32_t>(k);
    sorted[k] = (*points)[order[k]];
  }
  *points = std::move(sorted);
  return new_index;
}

// The points are solver bodies past the rigid ones; a coupled group's own entries are
// unused (zero).
void AddSoftPointCompliance(const WorldView& w, StepContext& ctx) {
  ctx.soft_groups.clear();
  if (ctx.soft_points.empty()) return;
  const double h = w.settings.dt();
  const uint32_t n = static_cast<uint32_t>(w.bodies.size());
  ctx.compliance.resize(n + ctx.soft_points.size());
  ForEachBodyRun(ctx.soft_points, [&](size_t first, size_t end,
                                      const std::vector<SoftWorld::WeightedPoint>& points) {
    const int soft = ctx.soft_points[first].soft;
    std::optional<Eigen::MatrixXd> coupled = w.soft.CoupledCompliance(soft, points);
    if (coupled) {
      ctx.soft_groups.push_back({static_cast<uint32_t>(n + first),
                                 static_cast<int>(points.size()), *std::move(coupled)});
    }
    for (size_t p = first; p < end; ++p) {
      BodyCompliance& c = ctx.compliance[n + p];
      c.linear = coupled ? 0.0 : w.soft.LumpedCompliance(soft, ctx.soft_points[p].at, h);
      c.angular.setZero();
    }
  });
}

void ApplySoftPointForces(const WorldView& w, StepContext& ctx) {
  if (ctx.soft_points.empty()) return;
  const uint32_t n = static_cast<uint32_t>(w.bodies.size());
  const double h = w.settings.dt();
  assert(ctx.soft_point_forces.size() == ctx.soft_points.size());
  ForEachBodyRun(ctx.soft_points, [&](size_t first, size_t end,
                                      const std::vector<SoftWorld::WeightedPoint>& points) {
    const bool coupled =
        std::any_of(ctx.soft_groups.begin(), ctx.soft_groups.end(),
                    [&](const CoupledPoints& g) { return g.first == n + first; });
    w.soft.ApplyContactForces(ctx.soft_points[first].soft, points,
                              std::span<const Vec3>(ctx.soft_point_forces)
                                  .subspan(first, end - first),
                              h, coupled);
  });
}

}  // namespace ligature
