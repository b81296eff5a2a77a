// Edits on a live world: bytes -> a sequence of operations (create, update and delete
// bodies and constraints, raw Edit messages, world settings, device poses, steps) sent
// through the conversions and validation the RPC handlers use (server/rpc/edits.*,
// scene_proto) and applied to a World stepped under its divergence guard. After each
// operation the world must be consistent and its frame finite (world_checks.h).

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/rpc/edits.h"
#include "server/rpc/names.h"
#include "server/world/world_manager.h"
#include "server/world/divergence_guard.h"
#include "server/world/scene_library.h"
#include "server/world/scene_proto.h"
#include "tests/fuzz/edit_ops.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/world_checks.h"

namespace ligature::fuzz {
namespace {

constexpr char kWorldId[] = "fuzz";
constexpr int kMaxOps = 64;
constexpr int kMaxBodies = 512;
constexpr int kMaxConstraints = 512;

// The starting scenes, validated once.
const SceneDesc& StartScene(int index) {
  static const auto* scenes = [] {
    auto* out = new std::map<int, SceneDesc>;
    for (int i = 0; i < kStartSceneCount; ++i) {
      SceneDesc desc;
      if (kStartScenes[i][0] != '\0') {
        auto proto = LoadBuiltinScene(kStartScenes[i]);
        Require(proto.ok(), "built-in scene missing:", kStartScenes[i]);
        auto scene = SceneFromProto(*proto);
        Require(scene.ok(), "built-in scene invalid:", kStartScenes[i]);
        desc = *scene;
      }
      (*out)[i] = desc;
    }
    return out;
  }();
  return scenes->at(index);
}

// Operation state: the world, its guard, and the input.
struct Session {
  FuzzInput in;
  std::unique_ptr<World> world;
  DivergenceGuard guard;

  // An existing body's id (or, one time in eight, an unknown one).
  std::string PickBody() {
    const uint8_t b = in.Byte();
    const SceneDesc scene = world->Export();
    if (b % 8 == 7 || scene.bodies.empty()) return absl::StrCat("ghost", b);
    return scene.bodies[b % scene.bodies.size()].id;
  }
  std::string PickConstraint() {
    const uint8_t b = in.Byte();
    const SceneDesc scene = world->Export();
    if (b % 8 == 7 || scene.constraints.empty()) return absl::StrCat("ghost", b);
    return scene.constraints[b % scene.constraints.size()].id;
  }
  // The resource name of a child, well-formed or not as the next byte says.
  std::string ChildName(const char* collection, const std::string& id) {
    switch (in.Byte() % 6) {
      case 0: return absl::StrCat("worlds/other/", collection, "/", id);
      case 1: return id;
      case 2: return absl::StrCat("worlds/", kWorldId, "/", collection, "/");
      default: return absl::StrCat("worlds/", kWorldId, "/", collection, "/", id);
    }
  }
  void Vec3(v1::Vec3* v) {
    v->set_x(in.Number());
    v->set_y(in.Number());
    v->set_z(in.Number());
  }
  // A pose: position always, orientation as four numbers or left unset (identity).
  void Pose(v1::Pose* p) {
    Vec3(p->mutable_position());
    if (in.Byte() % 2 == 0) return;
    v1::Quaternion* q = p->mutable_orientation();
    q->set_w(in.Number());
    q->set_x(in.Number());
    q->set_y(in.Number());
    q->set_z(in.Number());
  }
  void Material(v1::Material* m) {
    const uint8_t set = in.Byte();
    if (set & 1) m->set_density(in.Number());
    if (set & 2) m->set_mass(in.Number());
    if (set & 4) m->set_friction(in.Number());
    if (set & 8) m->set_restitution(in.Number());
  }

  void Apply(const SceneEdit& edit) {
    auto applied = ApplyEdit(edit, *world);
    (void)applied;  // refusals are expected; the checks after each op matter
  }
  void ApplyProto(const v1::Edit& e) {
    auto edit = EditFromProto(e, kWorldId, "edits[0]");
    if (edit.ok()) Apply(*edit);
  }

  void CreateBody() {
    v1::Edit e;
    v1::Body* b = e.mutable_create_body();
    v1::Shape* s = b->mutable_shape();
    switch (in.Byte() % 6) {
      case 0: s->mutable_sphere()->set_radius(in.Number()); break;
      case 1: Vec3(s->mutable_box()->mutable_half_extents()); break;
      case 2:
        s->mutable_capsule()->set_radius(in.Number());
        s->mutable_capsule()->set_half_length(in.Number());
        break;
      case 3: s->mutable_plane(); break;
      case 4: {
        v1::CompoundChild* c = s->mutable_compound()->add_children();
        c->mutable_shape()->mutable_sphere()->set_radius(in.Number());
        Pose(c->mutable_pose());
        break;
      }
      default: break;  // no shape
    }
    b->set_kind(static_cast<v1::BodyKind>(in.Byte() % 5));
    if (in.Byte() % 2) b->set_id(in.Byte() % 2 ? PickBody() : absl::StrCat("b", in.Byte()));
    Pose(b->mutable_pose());
    Vec3(b->mutable_linear_velocity());
    Vec3(b->mutable_angular_velocity());
    Material(b->mutable_material());
    if (in.Byte() % 4 == 0) Vec3(b->mutable_scalpel()->mutable_tip());
    ApplyProto(e);
  }

  void UpdateBody() {
    v1::Edit e;
    v1::UpdateBodyRequest* u = e.mutable_update_body();
    u->mutable_body()->set_name(ChildName("bodies", PickBody()));
    static constexpr const char* kPaths[] = {"pose", "pose.position", "pose.orientation",
                                             "linear_velocity", "angular_velocity",
                                             "material", "kind", "shape"};
    const uint8_t mask = in.Byte();
    for (int i = 0; i < 8; ++i) {
      if (mask & (1 << i)) u->mutable_update_mask()->add_paths(kPaths[i]);
    }
    v1::Body* b = u->mutable_body();
    Pose(b->mutable_pose());
    Vec3(b->mutable_linear_velocity());
    Vec3(b->mutable_angular_velocity());
    Material(b->mutable_material());
    b->set_kind(static_cast<v1::BodyKind>(in.Byte() % 5));
    ApplyProto(e);
  }

  void CreatePoint() {
    v1::Edit e;
    v1::PointConstraint* p = e.mutable_create_constraint()->mutable_point();
    p->set_body_a(PickBody());
    Vec3(p->mutable_anchor_a());
    if (in.Byte() % 2) p->set_body_b(PickBody());
    Vec3(p->mutable_anchor_b());
    ApplyProto(e);
  }

  // A settings change as UpdateWorld makes it: the current settings with one field
  // replaced, validated whole, then set.
  void Settings() {
    v1::WorldSettings s = SettingsToProto(world->settings());
    switch (in.Byte() % 10) {
      case 0: s.set_rate_hz(in.Number() * 100.0); break;
      case 1: s.set_paused(in.Byte() % 2); break;
      case 2: Vec3(s.mutable_gravity()); break;
      case 3: s.mutable_solver()->set_kind(static_cast<v1::SolverKind>(in.Byte() % 4)); break;
      case 4: s.mutable_solver()->set_max_iterations(static_cast<int16_t>(in.U16())); break;
      case 5: s.mutable_solver()->set_tolerance(in.Number()); break;
      case 6: s.mutable_solver()->set_warm_start(in.Byte() % 2); break;
      case 7: s.mutable_solver()->set_time_budget_us(in.Number() * 100.0); break;
      case 8: s.mutable_solver()->set_position_share(in.Number()); break;
      default: s.set_contact_margin(in.Number()); break;
    }
    auto settings = SettingsFromProto(s, "world.settings");
    if (settings.ok()) world->SetSettings(*settings);
  }

  // A device pose as an Interact stream sends it.
  void DevicePose() {
    const std::string body = PickBody();
    v1::Pose p;
    Pose(&p);
    auto pose = PoseFromProto(p, "poses[0].pose");
    if (pose.ok()) (void)world->SetDeviceTarget(body, *pose);
  }

  void Run() {
    for (int op = 0; op < kMaxOps && !in.empty(); ++op) {
      switch (in.Byte() % kOpCount) {
        case kCreateBody: CreateBody(); break;
        case kUpdateBody: UpdateBody(); break;
        case kDeleteBody: {
          v1::Edit e;
          e.set_delete_body(ChildName("bodies", PickBody()));
          ApplyProto(e);
          break;
        }
        case kRawEdit: {
          v1::Edit e;
          if (e.ParseFromString(in.Bytes(4096))) ApplyProto(e);
          break;
        }
        case kDeleteConstraint: {
          v1::Edit e;
          e.set_delete_constraint(ChildName("constraints", PickConstraint()));
          ApplyProto(e);
          break;
        }
        case kCreatePoint: CreatePoint(); break;
        case kSettings: Settings(); break;
        case kStep: {
          const int ticks = 1 + in.Byte() % 4;
          for (int i = 0; i < ticks; ++i) guard.Step(world.get());
          break;
        }
        case kDevicePose: DevicePose(); break;
      }
      CheckWorld(*world);
    }
    // Whatever the edits did, the world still steps.
    guard.Step(world.get());
    CheckWorld(*world);
  }
};

void Run(const uint8_t* data, size_t size) {
  Session session{FuzzInput(data, size), nullptr, DivergenceGuard()};
  WorldLimits limits;
  limits.max_bodies = kMaxBodies;
  limits.max_constraints = kMaxConstraints;
  const SceneDesc& start = StartScene(session.in.Byte() % kStartSceneCount);
  auto world = World::FromScene(WorldName(kWorldId), start, limits);
  Require(world.ok(), "starting scene does not build:", world.status().ToString());
  session.world = std::move(*world);
  session.Run();
}

}  // namespace
}  // namespace ligature::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ligature::fuzz::Run(data, size);
  return 0;
}
