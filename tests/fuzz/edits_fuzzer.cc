// Edits on a live world: bytes -> a sequence of operations (create, update and delete
// bodies and constraints, raw Edit messages, world settings, device poses, steps; soft
// bodies with their local constraints switched on and off and scalpel strokes; rods with
// their constraints and pearls; strands with theirs; a haptic session driving a tool;
// snapshots restored mid-sequence) sent through the conversions and validation the RPC
// handlers use (server/rpc/edits.*, scene_proto) and applied to a World stepped under its
// divergence guard. After each operation the world must be consistent and its frame
// finite (world_checks.h); the haptic loop's outputs must be finite; a restored snapshot
// must step bit-identically to the world it was taken from.

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/haptics/haptic_core.h"
#include "server/haptics/tool_channel.h"
#include "server/rpc/edits.h"
#include "server/rpc/names.h"
#include "server/host/world_manager.h"
#include "server/host/divergence_guard.h"
#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/snapshot/world_snapshot.h"
#include "tests/fuzz/edit_ops.h"
#include "tests/fuzz/fuzz_input.h"
#include "tests/fuzz/world_checks.h"

namespace ligature::fuzz {
namespace {

constexpr char kWorldId[] = "fuzz";
constexpr int kMaxOps = 64;
constexpr int kMaxBodies = 512;
constexpr int kMaxConstraints = 512;
// The ticks one input may step in all, a snapshot's copy's included: the work per input is
// bounded, so that the fuzzer spends its time on more inputs (a sequence of 64 snapshots of
// a soft body stepped 270 ticks, 0.3 s in the release build and over 10 s under ASan).
constexpr int kMaxTicks = 96;

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

// Operation state: the world, its guard, the input, and a haptic session.
struct Session {
  explicit Session(FuzzInput input) : in(input) {}

  FuzzInput in;
  std::unique_ptr<World> world;
  DivergenceGuard guard;
  WorldLimits limits;
  std::shared_ptr<haptics::ToolChannel> channel =
      std::make_shared<haptics::ToolChannel>("fuzz-session", "fuzz-device");
  std::unique_ptr<haptics::HapticCore> haptic;  // made when the channel is attached
  std::string tool;                             // the body the channel is attached to
  uint64_t pose_sequence = 0;
  double haptic_now = 0.0;  // s, the haptic loop's clock
  int ticks_left = kMaxTicks;

  // Steps the world once, unless the input has spent its ticks (then false).
  bool Tick() {
    if (ticks_left <= 0) return false;
    --ticks_left;
    guard.Step(world.get());
    return true;
  }

  // An existing body's id (or, one time in eight, an unknown one).
  std::string PickBody() {
    const uint8_t b = in.Byte();
    const SceneDesc scene = world->Export();
    if (b % 8 == 7 || scene.bodies.empty()) return absl::StrCat("ghost", b);
    return scene.bodies[b % scene.bodies.size()].id;
  }
  // An id of the world's soft bodies, rods or strands (or, when there is none or one time
  // in eight, any body's).
  std::string PickSoftBody() {
    const uint8_t b = in.Byte();
    const auto& bodies = world->soft_bodies().bodies();
    if (b % 8 == 7 || bodies.empty()) return PickBody();
    return bodies[b % bodies.size()].desc.id;
  }
  std::string PickRod() {
    const uint8_t b = in.Byte();
    const auto& rods = world->rods().rods();
    if (b % 8 == 7 || rods.empty()) return PickBody();
    return rods[b % rods.size()].desc.id;
  }
  std::string PickStrand() {
    const uint8_t b = in.Byte();
    const auto& strands = world->strands().strands();
    if (b % 8 == 7 || strands.empty()) return PickBody();
    return strands[b % strands.size()].desc.id;
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
    if (set & 16) {
      v1::Inertia* inertia = m->mutable_inertia();
      Vec3(inertia->mutable_center_of_mass());
      for (auto field : {&v1::Inertia::set_ixx, &v1::Inertia::set_iyy, &v1::Inertia::set_izz,
                         &v1::Inertia::set_ixy, &v1::Inertia::set_ixz, &v1::Inertia::set_iyz}) {
        (inertia->*field)(in.Number());
      }
    }
  }

  // With LIGATURE_FUZZ_TRACE set, each operation and outcome is printed (to read what a
  // reproducer does).
  static bool Tracing() {
    static const bool on = std::getenv("LIGATURE_FUZZ_TRACE") != nullptr;
    return on;
  }
  void Trace(const std::string& what) {
    if (Tracing()) std::fprintf(stderr, "  tick %llu: %s\n",
                                static_cast<unsigned long long>(world->tick()), what.c_str());
  }

  void Apply(const SceneEdit& edit) {
    auto applied = ApplyEdit(edit, *world);
    // Refusals are expected; the checks after each op matter.
    Trace(applied.ok() ? absl::StrCat("applied ", *applied) : applied.status().ToString());
  }
  void ApplyProto(const v1::Edit& e) {
    auto edit = EditFromProto(e, kWorldId, "edits[0]", FuzzAssets());
    if (edit.ok()) {
      Apply(*edit);
    } else {
      Trace(edit.status().ToString());
    }
  }

  void CreateBody() {
    v1::Edit e;
    v1::Body* b = e.mutable_create_body();
    v1::Shape* s = b->mutable_shape();
    switch (in.Byte() % 8) {
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
      case 5: {
        v1::ConvexHull* hull = s->mutable_hull();
        for (int i = in.Byte() % 12; i > 0; --i) Vec3(hull->add_points());
        hull->set_max_vertices(in.Byte() % 16);
        if (in.Byte() % 4 == 0) hull->set_weld_tolerance(in.Number());
        break;
      }
      case 6: {
        v1::TriangleMesh* mesh = s->mutable_mesh();
        for (int i = in.Byte() % 8; i > 0; --i) Vec3(mesh->add_vertices());
        for (int i = in.Byte() % 13; i > 0; --i) mesh->add_indices(in.Byte() % 9);
        break;
      }
      default: {
        const uint8_t pick = in.Byte();
        if (pick % 2) break;  // no shape
        if (pick % 4 == 2) {
          // A mesh asset, named or not, as a mesh or a hull, maybe scaled or naming a file.
          v1::MeshAssetShape* asset = s->mutable_mesh_asset();
          static constexpr const char* kNames[] = {"assets/tet", "assets/floor", "assets/none",
                                                   ""};
          asset->set_asset(kNames[in.Byte() % 4]);
          asset->set_as_hull(in.Byte() % 2);
          if (in.Byte() % 2) Vec3(asset->mutable_scale());
          asset->set_max_vertices(in.Byte() % 8);
          if (in.Byte() % 8 == 0) asset->set_file("mug.glb");
          break;
        }
        v1::HeightField* field = s->mutable_height_field();
        field->set_rows(in.Byte() % 6);
        field->set_columns(in.Byte() % 6);
        field->set_spacing_x(in.Number());
        field->set_spacing_z(in.Number());
        for (int i = in.Byte() % 40; i > 0; --i) field->add_heights(in.Number());
        for (int i = in.Byte() % 4; i > 0; --i) field->add_holes(in.Byte() % 30);
        break;
      }
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

  // ---- Soft bodies ----------------------------------------------------------------------

  void SoftBody() {
    v1::Edit e;
    v1::Body* b = e.mutable_create_body();
    v1::SoftBody* soft = b->mutable_soft();
    const uint8_t mesh = in.Byte();
    const double size = 0.02 + 0.01 * (mesh % 8);
    if (mesh & 0x80) {
      soft->mutable_sphere()->set_radius(size);
      soft->mutable_sphere()->set_resolution(1 + (mesh >> 3) % 2);
    } else {
      v1::SoftBoxMesh* box = soft->mutable_box();
      box->mutable_half_extents()->set_x(size);
      box->mutable_half_extents()->set_y(size / 2);
      box->mutable_half_extents()->set_z(size);
      box->set_cells_x(1 + (mesh >> 3) % 3);
      box->set_cells_y(1);
      box->set_cells_z(1 + (mesh >> 5) % 2);
    }
    soft->set_model(static_cast<v1::SoftModel>(in.Byte() % 4));
    soft->set_integrator(static_cast<v1::SoftIntegrator>(in.Byte() % 7));
    const uint8_t set = in.Byte();
    if (set & 1) soft->set_density(in.Number() * 100.0);
    if (set & 2) soft->set_young_modulus(in.Number() * 1e4);
    if (set & 4) soft->set_poisson_ratio(in.Number() / 20.0);
    if (set & 8) soft->set_distance_stiffness(in.Number() * 10.0);
    if (set & 16) soft->set_volume_stiffness(in.Number() * 10.0);
    if (set & 32) soft->set_damping(in.Number());
    for (int k = in.Byte() % 4; k > 0; --k) soft->add_fixed_vertices(in.Byte() % 40);
    if (set & 64) {
      v1::SoftCutting* cut = soft->mutable_cutting();
      cut->set_toughness(in.Number() * 500.0);
      cut->set_either_stress(in.Byte() % 2);
    }
    Pose(b->mutable_pose());
    ApplyProto(e);
  }

  void SoftConstraint() {
    v1::Edit e;
    v1::SoftConstraint* c = e.mutable_create_constraint()->mutable_soft();
    c->set_body(PickSoftBody());
    c->set_kind(static_cast<v1::SoftConstraintKind>(in.Byte() % 7));
    for (int k = 1 + in.Byte() % 5; k > 0; --k) c->add_vertices(in.Byte() % 64);
    Vec3(c->mutable_goal());
    if (in.Byte() % 4 == 0) c->set_follow_body(PickBody());
    c->set_self_assembly_steps(static_cast<int>(in.Byte()) - 8);
    ApplyProto(e);
  }

  void ToggleConstraint() {
    const std::string id = PickConstraint();
    const bool on = in.Byte() % 2;
    const absl::Status status = world->SetConstraintEnabled(id, on);
    Trace(absl::StrCat(id, on ? " on: " : " off: ", status.ToString()));
  }

  // A blade like the ligament's scalpel, made when the world has none.
  std::string Scalpel() {
    const SceneDesc scene = world->Export();
    std::vector<std::string> scalpels;
    for (const BodyDesc& b : scene.bodies) {
      if (b.is_rigid() && b.rigid()->scalpel) scalpels.push_back(b.id);
    }
    const uint8_t pick = in.Byte();
    if (!scalpels.empty()) return scalpels[pick % scalpels.size()];
    v1::Edit e;
    v1::Body* b = e.mutable_create_body();
    b->set_id(absl::StrCat("blade", pick));
    b->set_kind(v1::BODY_KIND_KINEMATIC);
    b->mutable_shape()->mutable_box()->mutable_half_extents()->set_x(0.0005);
    b->mutable_shape()->mutable_box()->mutable_half_extents()->set_y(0.02);
    b->mutable_shape()->mutable_box()->mutable_half_extents()->set_z(0.0005);
    b->mutable_pose()->mutable_position()->set_y(1.0);
    b->mutable_scalpel()->mutable_tip()->set_y(-0.02);
    b->mutable_scalpel()->set_cut_depth(0.015);
    b->mutable_scalpel()->set_contact_distance(0.002);
    ApplyProto(e);
    return b->id();
  }

  // The scalpel's tip is brought above a vertex of a soft body, pressed in and drawn
  // sideways, one device pose per tick.
  void ScalpelStroke() {
    const std::string scalpel = Scalpel();
    const std::string body_id = PickSoftBody();
    const uint8_t vertex = in.Byte();
    const double depth = 0.001 * (in.Byte() % 16);
    const uint8_t direction = in.Byte();
    const double length = 0.002 * (1 + in.Byte() % 16);
    const int ticks = 4 + in.Byte() % 28;
    const SoftWorld::Body* body = world->soft_bodies().FindBody(body_id);
    absl::StatusOr<BodyDesc> blade = world->GetBody(scalpel);
    if (body == nullptr || body->positions().empty() || !blade.ok() || !blade->is_rigid() ||
        !blade->rigid()->scalpel) {
      return;
    }
    const ::ligature::Vec3 tip = blade->rigid()->scalpel->tip;
    const ::ligature::Vec3 start = body->positions()[vertex % body->positions().size()];
    ::ligature::Vec3 across = ::ligature::Vec3::Zero();
    across[direction % 2 == 0 ? 0 : 2] = direction & 2 ? -length : length;
    for (int t = 0; t < ticks; ++t) {
      // A third of the ticks coming down onto the vertex, the rest drawing across.
      const double s = static_cast<double>(t) / ticks;
      ::ligature::Vec3 at = start + ::ligature::Vec3(0, 0.003 - depth * std::min(1.0, 3 * s), 0);
      if (s > 1.0 / 3.0) at += across * ((s - 1.0 / 3.0) * 1.5);
      if (!world->SetDeviceTarget(scalpel, Transform{at - tip, Quat::Identity()}).ok()) return;
      if (!Tick()) return;
      CheckWorld(*world);
      if (!world->MakeFrame().cuts.empty()) Trace(absl::StrCat("cut ", body_id));
      if (world->soft_bodies().FindBody(body_id) != body) return;  // gone or moved
    }
  }

  // ---- Rods -----------------------------------------------------------------------------

  void Rod() {
    v1::Edit e;
    v1::Body* b = e.mutable_create_body();
    v1::Rod* rod = b->mutable_rod();
    const int points = 2 + in.Byte() % 3;
    for (int i = 0; i < points; ++i) {
      v1::Vec3* p = rod->add_points();
      p->set_x(0.1 * i + in.Number() / 100.0);
      p->set_y(1.0 + in.Number() / 100.0);
      p->set_z(in.Number() / 100.0);
    }
    rod->set_control_points(in.Byte() % 13);
    if (in.Byte() % 2) rod->mutable_material()->set_radius(in.Number() / 100.0);
    rod->set_rod_contact(in.Byte() % 2);
    b->set_kind(static_cast<v1::BodyKind>(in.Byte() % 5));
    auto edit = EditFromProto(e, kWorldId, "edits[0]", FuzzAssets());
    auto id = edit.ok() ? ApplyEdit(*edit, *world) : edit.status();
    if (!id.ok() || id->empty() || in.Byte() % 2 == 0) return;
    // Held at its start.
    v1::Edit hold;
    v1::RodConstraint* c = hold.mutable_create_constraint()->mutable_rod();
    c->set_kind(v1::ROD_CONSTRAINT_KIND_POSITION);
    c->mutable_a()->set_body(id->substr(id->rfind('/') + 1));
    *c->mutable_target() = rod->points(0);
    ApplyProto(hold);
  }

  void RodConstraint() {
    v1::Edit e;
    const uint8_t kind = in.Byte() % 12;
    if (kind == 11) {
      v1::Pearl* p = e.mutable_create_constraint()->mutable_pearl();
      p->mutable_at()->set_body(PickRod());
      p->mutable_at()->set_u(in.Number() / 20.0);
      p->set_mass(in.Number() / 10.0);
      p->set_radius(in.Number() / 100.0);
      p->set_friction(in.Number() / 10.0);
      p->set_speed(in.Number() / 10.0);
      ApplyProto(e);
      return;
    }
    v1::RodConstraint* c = e.mutable_create_constraint()->mutable_rod();
    c->set_kind(static_cast<v1::RodConstraintKind>(kind));
    c->mutable_a()->set_body(PickRod());
    c->mutable_a()->set_u(in.Number() / 20.0);
    const uint8_t flags = in.Byte();
    if (flags & 1) {
      c->mutable_b()->set_body(PickRod());
      c->mutable_b()->set_u(in.Number() / 20.0);
    }
    Vec3(c->mutable_target());
    Vec3(c->mutable_direction());
    c->set_distance(in.Number() / 10.0);
    c->set_unilateral(flags & 2);
    c->set_oriented(flags & 4);
    c->set_normal_from_tangent(flags & 8);
    if (flags & 16) c->set_friction(in.Number());
    if (flags & 32) c->set_follow_body(PickBody());
    if (flags & 64) c->set_twist(in.Number());
    ApplyProto(e);
  }

  // ---- Strands --------------------------------------------------------------------------

  void Strand() {
    v1::Edit e;
    v1::Body* b = e.mutable_create_body();
    v1::Strand* strand = b->mutable_strand();
    const int segments = 1 + in.Byte() % 6;
    const double length = 0.01 * (1 + in.Byte() % 8);
    for (int i = 0; i <= segments; ++i) {
      v1::Vec3* p = strand->add_points();
      p->set_x(i % 2 ? length / 4 : 0.0);
      p->set_y(-length * i);
    }
    v1::StrandMaterial* m = strand->mutable_material();
    const double stiffness = in.Number() / 1000.0;
    m->set_bend_stiffness_x(stiffness);
    m->set_bend_stiffness_y(stiffness);
    m->set_twist_stiffness(stiffness);
    m->set_bend_damping(in.Number() / 1e4);
    const uint8_t flags = in.Byte();
    if (flags & 1) strand->set_follow_body(PickBody());
    strand->set_zero_gravity_rest_shape(flags & 2);
    if (flags & 4) strand->set_pose_strength(in.Number());
    if (flags & 8) strand->set_local_dynamics(in.Number() / 10.0);
    if (flags & 16) strand->set_time_scale(in.Number());
    Pose(b->mutable_pose());
    ApplyProto(e);
  }

  void StrandConstraint() {
    v1::Edit e;
    v1::StrandConstraint* c = e.mutable_create_constraint()->mutable_strand();
    c->set_kind(static_cast<v1::StrandConstraintKind>(in.Byte() % 5));
    c->set_body(PickStrand());
    c->set_segment(static_cast<int>(in.Byte() % 10) - 1);
    const uint8_t flags = in.Byte();
    if (flags & 1) Vec3(c->mutable_point());
    Vec3(c->mutable_target());
    if (flags & 2) c->set_follow_body(PickBody());
    for (int k = flags & 4 ? 2 : 0; k > 0; --k) Vec3(c->add_curve());
    if (flags & 8) {
      c->mutable_joint()->set_w(in.Number());
      c->mutable_joint()->set_x(in.Number());
    }
    c->set_max_bend(in.Number() / 3.0);
    ApplyProto(e);
  }

  // ---- Haptics --------------------------------------------------------------------------

  void HapticAttach() {
    const std::string body = PickBody();
    if (in.Byte() % 4 == 0 || !tool.empty()) {
      world->DetachHapticTool(tool, channel.get());
      tool.clear();
      haptic.reset();
      return;
    }
    const absl::Status attached = world->AttachHapticTool(body, channel);
    Trace(absl::StrCat("attach ", body, ": ", attached.ToString()));
    if (!attached.ok()) return;
    tool = body;
    haptics::HapticParams given;
    given.coupling.stiffness = in.Number() * 100.0;
    auto params = haptics::ResolveParams(given, 1.0, 0.01);
    if (!params.ok()) params = haptics::ResolveParams({}, 1.0, 0.01);
    Require(params.ok(), "default haptic parameters refused");
    haptic = std::make_unique<haptics::HapticCore>(*params);
  }

  // One device pose through the haptic loop; the world takes its coupling at its next tick.
  void HapticPose() {
    haptics::DevicePose pose;
    // One read per statement: the order of a call's arguments is the compiler's choice.
    for (int a = 0; a < 3; ++a) pose.position[a] = in.Number() / 10.0;
    if (in.Byte() % 2) {
      for (int a = 0; a < 4; ++a) pose.orientation.coeffs()[a] = in.Number();  // x y z w
    }
    const uint8_t step = in.Byte();
    pose_sequence += step % 4;  // 0: a repeated sequence number
    pose.sequence = pose_sequence;
    haptic_now += 0.0005 * (step >> 2);
    pose.client_time = haptic_now;
    if (!haptic) return;
    haptic->SetModel(channel->model());
    const haptics::HapticReply reply = haptic->OnPose(pose, haptic_now);
    Require(reply.force.allFinite() && reply.torque.allFinite(), "haptic force not finite");
    Require(reply.world_force.allFinite() && reply.world_torque.allFinite() &&
                std::isfinite(reply.world_weight),
            "haptic coupling not finite");
    Trace(absl::StrCat("haptic force ", reply.force.norm(), " weight ", reply.world_weight));
    if (reply.world_weight > 0.0) {
      channel->AddCoupling(reply.world_force, reply.world_torque, reply.world_weight);
    }
  }

  // ---- Snapshots ------------------------------------------------------------------------

  void Snapshot() {
    // Both worlds step: each tick counts twice.
    const int ticks = std::min(1 + in.Byte() % 4, ticks_left / 2);
    ticks_left -= 2 * ticks;
    // The copy has no haptic session: the original's couplings are dropped meanwhile.
    const std::string bytes = CheckSnapshotRoundTrip(world.get(), limits, ticks,
                                                     [this] { (void)channel->TakeCoupling(); });
    const absl::Status restored = RestoreSnapshotInto(world.get(), bytes, limits);
    Require(restored.ok(), "snapshot refused on restore:", std::string(restored.message()));
    guard.Reset();
    Trace(absl::StrCat("snapshot of ", bytes.size(), " bytes restored"));
  }

  void Run() {
    for (int op = 0; op < kMaxOps && !in.empty(); ++op) {
      const int code = in.Byte() % kOpCount;
      Trace(absl::StrCat("op ", code));
      switch (code) {
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
          for (int i = 0; i < ticks; ++i) {
            if (!Tick()) break;
          }
          break;
        }
        case kDevicePose: DevicePose(); break;
        case kSoftBody: SoftBody(); break;
        case kSoftConstraint: SoftConstraint(); break;
        case kToggleConstraint: ToggleConstraint(); break;
        case kScalpelStroke: ScalpelStroke(); break;
        case kRod: Rod(); break;
        case kRodConstraint: RodConstraint(); break;
        case kStrand: Strand(); break;
        case kStrandConstraint: StrandConstraint(); break;
        case kHapticAttach: HapticAttach(); break;
        case kHapticPose: HapticPose(); break;
        case kSnapshot: Snapshot(); break;
      }
      CheckWorld(*world);
    }
    // Whatever the edits did, the world still steps.
    guard.Step(world.get());
    CheckWorld(*world);
  }
};

void Run(const uint8_t* data, size_t size) {
  Session session(FuzzInput(data, size));
  session.limits.max_bodies = kMaxBodies;
  session.limits.max_constraints = kMaxConstraints;
  const SceneDesc& start = StartScene(session.in.Byte() % kStartSceneCount);
  auto world = World::FromScene(WorldName(kWorldId), start, session.limits);
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
