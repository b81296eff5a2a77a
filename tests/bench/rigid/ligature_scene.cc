#include "tests/bench/rigid/ligature_scene.h"

#include <algorithm>
#include <array>
#include <optional>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/world/world.h"
#include "tests/bench/peers/peer_body.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

std::string Format(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3g", value);
  return buf;
}

class LigatureScene : public SteppedScene {
 public:
  // A dynamic rigid body's id and the centre of mass in its frame, per scene body.
  struct Tracked {
    std::string id;
    Vec3 center = Vec3::Zero();
  };
  LigatureScene(std::unique_ptr<World> world, std::vector<std::optional<Tracked>> tracked)
      : world_(std::move(world)), tracked_(std::move(tracked)) {}

  // One world step, then its figures into the summary.
  void Step() override {
    world_->Step();
    if (world_->event_reporting().enabled) events_.push_back(world_->TakeEvents().size());
    const StepStats& stats = world_->last_stats();
    iterations_.push_back(stats.iterations);
    residual_.push_back(stats.residual);
    penetration_.push_back(stats.max_penetration);
    sleeping_.push_back(stats.sleeping_bodies);
    if (stats.budget_exhausted) ++exhausted_;
  }
  int Contacts() const override { return world_->last_stats().contacts; }
  void ResetSummary() override {
    iterations_.clear();
    residual_.clear();
    penetration_.clear();
    sleeping_.clear();
    events_.clear();
    exhausted_ = 0;
  }
  std::string Notes() const override;
  std::optional<std::array<double, 3>> Position(size_t index) const override {
    if (index >= tracked_.size() || !tracked_[index]) return std::nullopt;
    const absl::StatusOr<BodyDesc> body = world_->GetBody(tracked_[index]->id);
    if (!body.ok() || !body->is_rigid()) return std::nullopt;
    const Transform& pose = body->rigid()->pose;
    const Vec3 p = pose.position + pose.orientation * tracked_[index]->center;
    return std::array<double, 3>{p.x(), p.y(), p.z()};
  }

 private:
  std::unique_ptr<World> world_;
  std::vector<std::optional<Tracked>> tracked_;
  // Per step since the last ResetSummary().
  std::vector<double> iterations_;
  std::vector<double> residual_;     // m
  std::vector<double> penetration_;  // m
  std::vector<double> sleeping_;     // bodies asleep
  std::vector<double> events_;       // events taken (when reporting)
  int exhausted_ = 0;
};

// key=value pairs: the settings, then medians (and maxima) over the summarized steps.
std::string LigatureScene::Notes() const {
  const WorldSettings& s = world_->settings();
  std::string notes = absl::StrCat(
      "solver=", SolverName(s.solver.kind), ", budget_us=",
      s.solver.time_budget_us > 0.0 ? absl::StrCat(s.solver.time_budget_us) : std::string("none"),
      ", dt=", Format(s.dt()), ", max_iterations=", s.solver.max_iterations,
      ", tolerance=", Format(s.solver.tolerance));
  if (iterations_.empty()) return notes;
  absl::StrAppend(&notes, ", iterations=", Format(Median(iterations_)), " (max ",
                  Format(*std::max_element(iterations_.begin(), iterations_.end())), ")",
                  ", residual=", Format(Median(residual_)), ", max_penetration=",
                  Format(*std::max_element(penetration_.begin(), penetration_.end())), " (median ",
                  Format(Median(penetration_)), "), exhausted=", exhausted_, "/",
                  iterations_.size());
  if (s.sleep.enabled) {
    absl::StrAppend(&notes, ", sleeping=on (", Format(s.sleep.time_to_sleep),
                    " s at ", Format(s.sleep.linear_speed), " m/s and ",
                    Format(s.sleep.angular_speed), " rad/s), bodies_asleep=",
                    Format(Median(sleeping_)), " (median)");
  }
  const EventReporting& events = world_->event_reporting();
  if (events.enabled) {
    absl::StrAppend(&notes, ", events=on", events.persist ? " with persist" : "",
                    ", events_per_step=", Format(Median(events_)), " (median)");
  }
  return notes;
}

}  // namespace

std::string SolverName(SolverKind kind) {
  return kind == SolverKind::kTunableLcp ? "tunable" : "gauss-seidel";
}

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeLigatureScene(const SceneDesc& scene) {
  return MakeReportingScene(scene, EventReporting{});
}

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeReportingScene(const SceneDesc& scene,
                                                                const EventReporting& events) {
  absl::StatusOr<std::unique_ptr<World>> world = World::FromScene("bench", scene, WorldLimits{});
  if (!world.ok()) return world.status();
  (*world)->SetEventReporting(events);
  // Dynamic rigid bodies can report where they are.
  std::vector<std::optional<LigatureScene::Tracked>> tracked;
  for (const BodyDesc& body : scene.bodies) {
    if (body.kind != BodyKind::kDynamic || !body.is_rigid() || body.id.empty()) {
      tracked.push_back(std::nullopt);
      continue;
    }
    tracked.push_back(LigatureScene::Tracked{body.id, BodyMass(*body.rigid()).center});
  }
  return std::make_unique<LigatureScene>(*std::move(world), std::move(tracked));
}

}  // namespace ligature::bench
