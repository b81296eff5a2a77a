#include "tests/bench/peers/mujoco_scene.h"

#include <mujoco/mujoco.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numbers>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "tests/bench/peers/peer_body.h"

namespace ligature::bench {
namespace {

// Contact buffer per dynamic geom: a brick in a wall meets up to six neighbours with up to
// four points a face (MuJoCo's box-box test gives up to eight a pair), a pile's sphere or
// capsule touches three or four; the pyramidal cone of a 3D contact takes four constraint
// rows. PGS keeps a dense matrix of rows x rows, so the buffers are not simply made huge.
constexpr int kContactsPerDynamicBox = 12;
constexpr int kContactsPerDynamicGeom = 4;
// A pile's hull rests on about five points (ours and Bullet's count): room for six.
constexpr int kContactsPerDynamicHull = 6;
constexpr int kRowsPerContact = 4;

// MuJoCo prints its warnings and errors on stdout (and into a log file) unless told
// otherwise; stdout carries only result lines, so they go to stderr. A warning (a full
// contact buffer) is also counted in mjData; an error has no way back and ends the run.
void RouteMessagesOnce() {
  static const bool routed = [] {
    mju_user_warning = [](const char* message) {
      std::fprintf(stderr, "mujoco peer: %s\n", message);
    };
    mju_user_error = [](const char* message) {
      std::fprintf(stderr, "mujoco peer error: %s\n", message);
      std::abort();
    };
    return true;
  }();
  (void)routed;
}

std::string Num(double value) { return absl::StrFormat("%.17g", value); }

std::string Vec(const Vec3& v) {
  return absl::StrCat(Num(v.x()), " ", Num(v.y()), " ", Num(v.z()));
}

// MJCF quaternions are "w x y z".
std::string QuatText(const Quat& q) {
  return absl::StrCat(Num(q.w()), " ", Num(q.x()), " ", Num(q.y()), " ", Num(q.z()));
}

// MuJoCo's capsules and planes have their axis (normal) along local Z, ours along Y: a
// geom's rotation is ours times this quarter turn about X, which takes Z onto Y.
Quat AxisFix(const Shape& shape) {
  if (shape.type != ShapeType::kCapsule && shape.type != ShapeType::kPlane) {
    return Quat::Identity();
  }
  return Quat(Eigen::AngleAxisd(-std::numbers::pi / 2.0, Vec3::UnitX()));
}

// The solver's name as MJCF spells it (and, in lower case, our notes).
const char* SolverXml(MujocoSolver solver) {
  switch (solver) {
    case MujocoSolver::kPgs:
      return "PGS";
    case MujocoSolver::kCg:
      return "CG";
    case MujocoSolver::kNewton:
      return "Newton";
  }
  return "PGS";
}

std::string SolverLabel(MujocoSolver solver) { return absl::AsciiStrToLower(SolverXml(solver)); }

// The <asset> entries geoms refer to: one mesh per hull.
struct Assets {
  std::string xml;
  int meshes = 0;
};

// One <geom> of `shape` at `pose` in its body's frame, with the body's friction. A hull is
// a mesh geom of the hull's vertices, added to `assets`: MuJoCo collides a mesh as the
// convex hull of its vertices (the same hull) and keeps it where the vertices put it in the
// geom's frame.
std::string GeomXml(const Shape& shape, const Transform& pose, const Material& material,
                    Assets* assets) {
  std::string type, sizes;  // the geom's type, and its size or mesh attribute
  switch (shape.type) {
    case ShapeType::kSphere:
      type = "sphere";
      sizes = absl::StrCat("size=\"", Num(shape.radius), "\"");
      break;
    case ShapeType::kBox:
      type = "box";
      sizes = absl::StrCat("size=\"", Vec(shape.half_extents), "\"");
      break;
    case ShapeType::kCapsule:
      type = "capsule";
      sizes = absl::StrCat("size=\"", Num(shape.radius), " ", Num(shape.half_length), "\"");
      break;
    case ShapeType::kPlane:
      type = "plane";
      sizes = "size=\"0 0 1\"";  // infinite; the third number only spaces the rendering grid
      break;
    case ShapeType::kHull: {
      type = "mesh";
      const std::string name = absl::StrCat("hull", assets->meshes++);
      std::string vertices;
      for (const Vec3& v : shape.hull->vertices) absl::StrAppend(&vertices, Vec(v), " ");
      absl::StrAppend(&assets->xml, "<mesh name=\"", name, "\" vertex=\"", vertices, "\"/>\n");
      sizes = absl::StrCat("mesh=\"", name, "\"");
      break;
    }
    case ShapeType::kMesh:
      break;  // refused before (CheckPeerBody)
  }
  return absl::StrCat("<geom type=\"", type, "\" ", sizes, " pos=\"", Vec(pose.position),
                      "\" quat=\"", QuatText(pose.orientation.normalized() * AxisFix(shape)),
                      "\" friction=\"", Num(material.friction), " 0 0\"/>\n");
}

// The MJCF document and the MuJoCo body of each scene body (-1 for static ones).
struct Mjcf {
  std::string xml;
  std::vector<int> body_of;
};

absl::StatusOr<Mjcf> WriteMjcf(const SceneDesc& scene, const MujocoSceneOptions& options) {
  std::string bodies;
  Assets assets;
  std::vector<int> body_of;
  int next_body = 1;  // body 0 is the world
  int contacts = 64;  // the contact buffer
  for (const BodyDesc& desc : scene.bodies) {
    if (absl::Status ok = CheckPeerBody(desc, "mujoco peer", true, false); !ok.ok()) return ok;
    const RigidBodyDesc& rigid = *desc.rigid();
    if (rigid.material.restitution > 0.0) {
      return absl::InvalidArgumentError(
          absl::StrCat("mujoco peer: body \"", desc.id, "\": restitution is not supported"));
    }
    const std::vector<ChildShape> children = BodyChildren(rigid);
    const Transform pose{rigid.pose.position, rigid.pose.orientation.normalized()};

    // A static body: geoms of the world body at their world poses.
    if (desc.kind == BodyKind::kStatic) {
      for (const ChildShape& child : children) {
        absl::StrAppend(&bodies,
                        GeomXml(child.shape, pose * child.local, rigid.material, &assets));
      }
      body_of.push_back(-1);
      continue;
    }

    // A dynamic body: a free body whose frame is its centre of mass with the body's own
    // axes, its full inertia given as is, and its geoms offset from the centre.
    const PeerMass mass = BodyMass(rigid);
    const Transform center = CenterOfMassPose(rigid, mass.center);
    const Mat3& i = mass.inertia;
    absl::StrAppend(&bodies, "<body pos=\"", Vec(center.position), "\" quat=\"",
                    QuatText(center.orientation), "\">\n<freejoint/>\n",
                    "<inertial pos=\"0 0 0\" mass=\"", Num(mass.mass), "\" fullinertia=\"",
                    Num(i(0, 0)), " ", Num(i(1, 1)), " ", Num(i(2, 2)), " ", Num(i(0, 1)), " ",
                    Num(i(0, 2)), " ", Num(i(1, 2)), "\"/>\n");
    for (const ChildShape& child : children) {
      const Transform local{child.local.position - mass.center, child.local.orientation};
      absl::StrAppend(&bodies, GeomXml(child.shape, local, rigid.material, &assets));
      contacts += child.shape.type == ShapeType::kBox    ? kContactsPerDynamicBox
                  : child.shape.type == ShapeType::kHull ? kContactsPerDynamicHull
                                                         : kContactsPerDynamicGeom;
    }
    absl::StrAppend(&bodies, "</body>\n");
    body_of.push_back(next_body++);
  }

  const WorldSettings& s = scene.settings;
  const int iterations = options.iterations.value_or(s.solver.max_iterations);
  Mjcf mjcf;
  mjcf.body_of = std::move(body_of);
  mjcf.xml = absl::StrCat(
      "<mujoco model=\"ligature-bench\">\n",
      "<compiler inertiafromgeom=\"false\"/>\n",
      "<size nconmax=\"", contacts, "\" njmax=\"", kRowsPerContact * contacts, "\"/>\n",
      "<option timestep=\"", Num(s.dt()), "\" gravity=\"", Vec(s.gravity), "\" solver=\"",
      SolverXml(options.solver), "\" iterations=\"", iterations,
      "\" tolerance=\"", Num(options.tolerance), "\" cone=\"pyramidal\">\n",
      // Hulls meet at up to four points a pair, as boxes do (one, the deepest, without it).
      assets.meshes > 0 ? "<flag multiccd=\"enable\"/>\n" : "", "</option>\n",
      assets.meshes > 0 ? absl::StrCat("<asset>\n", assets.xml, "</asset>\n") : "",
      "<worldbody>\n", bodies, "</worldbody>\n</mujoco>\n");
  return mjcf;
}

// Compiles an MJCF document held in memory (through MuJoCo's virtual file system).
absl::StatusOr<mjModel*> Compile(const std::string& xml) {
  constexpr char kName[] = "scene.xml";
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), kName, static_cast<int>(xml.size())) != 0) {
    return absl::InternalError("mujoco peer: could not make the in-memory scene file");
  }
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), kName)], xml.data(), xml.size());
  char error[1000] = "";
  mjModel* model = mj_loadXML(kName, vfs.get(), error, sizeof(error));
  mj_deleteVFS(vfs.get());
  if (model == nullptr) return absl::InvalidArgumentError(absl::StrCat("mujoco peer: ", error));
  return model;
}

class MujocoScene : public SteppedScene {
 public:
  MujocoScene(mjModel* model, std::vector<int> body_of, MujocoSolver solver)
      : model_(model), data_(mj_makeData(model)), body_of_(std::move(body_of)), solver_(solver) {}
  ~MujocoScene() override {
    mj_deleteData(data_);
    mj_deleteModel(model_);
  }

  // Computes the positions and velocities derived from the state (mj_forward), as a step
  // does, so that they can be read before the first one.
  void Forward() { mj_forward(model_, data_); }

  // Sets body `index`'s velocities: a free joint's are world linear then body angular.
  void SetVelocity(size_t index, const Vec3& linear, const Vec3& angular_in_body) {
    const int dof = model_->jnt_dofadr[model_->body_jntadr[body_of_[index]]];
    for (int k = 0; k < 3; ++k) {
      data_->qvel[dof + k] = linear[k];
      data_->qvel[dof + 3 + k] = angular_in_body[k];
    }
  }

  void Step() override {
    mj_step(model_, data_);
    iterations_ += data_->solver_iter;
    ++steps_;
  }
  int Contacts() const override { return data_->ncon; }
  void ResetSummary() override {
    iterations_ = 0;
    steps_ = 0;
  }
  std::optional<std::array<double, 3>> Position(size_t index) const override {
    if (index >= body_of_.size() || body_of_[index] < 0) return std::nullopt;
    const mjtNum* p = data_->xpos + 3 * body_of_[index];
    return std::array<double, 3>{p[0], p[1], p[2]};
  }
  std::string Notes() const override;

 private:
  mjModel* model_;
  mjData* data_;
  std::vector<int> body_of_;
  MujocoSolver solver_;
  long long iterations_ = 0;  // solver iterations run since ResetSummary
  long long steps_ = 0;
};

std::string MujocoScene::Notes() const {
  // Contacts or constraint rows that did not fit the buffers were dropped; say so.
  const int dropped =
      data_->warning[mjWARN_CONTACTFULL].number + data_->warning[mjWARN_CNSTRFULL].number;
  return absl::StrCat(
      "peer solver=", SolverLabel(solver_),
      " iterations=", model_->opt.iterations, " tolerance=", model_->opt.tolerance,
      " iterations run=", steps_ > 0 ? absl::StrFormat("%.3g", double(iterations_) / steps_)
                                     : std::string("n/a"),
      " cone=pyramidal solref/solimp=default multiccd=",
      (model_->opt.enableflags & mjENBL_MULTICCD) ? "on" : "off", " nconmax=", model_->nconmax,
      " buffer overflows=", dropped);
}

}  // namespace

bool MujocoPeerAvailable() { return true; }

MujocoSceneOptions MujocoDefaultOptions() {
  mjOption defaults;
  mj_defaultOption(&defaults);
  MujocoSceneOptions options;
  options.solver = defaults.solver == mjSOL_PGS  ? MujocoSolver::kPgs
                   : defaults.solver == mjSOL_CG ? MujocoSolver::kCg
                                                 : MujocoSolver::kNewton;
  options.iterations = defaults.iterations;
  options.tolerance = defaults.tolerance;
  return options;
}

std::string MujocoPeerName(MujocoSolver solver) {
  return absl::StrCat("mujoco-", mj_versionString(), "-", SolverLabel(solver));
}

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeMujocoScene(const SceneDesc& scene,
                                                              const MujocoSceneOptions& options) {
  // Settings the peer needs in range; SceneFromProto already checks scenes from files.
  if (!(scene.settings.rate_hz > 0.0) || scene.settings.solver.max_iterations <= 0) {
    return absl::InvalidArgumentError("mujoco peer: rate_hz and max_iterations must be > 0");
  }
  if (!scene.constraints.empty()) {
    return absl::InvalidArgumentError("mujoco peer: constraints are not supported");
  }
  RouteMessagesOnce();
  absl::StatusOr<Mjcf> mjcf = WriteMjcf(scene, options);
  if (!mjcf.ok()) return mjcf.status();
  absl::StatusOr<mjModel*> model = Compile(mjcf->xml);
  if (!model.ok()) return model.status();
  auto peer = std::make_unique<MujocoScene>(*model, mjcf->body_of, options.solver);

  // The bodies' starting velocities; the model starts at rest.
  for (size_t i = 0; i < scene.bodies.size(); ++i) {
    if (mjcf->body_of[i] < 0) continue;
    const RigidBodyDesc& rigid = *scene.bodies[i].rigid();
    peer->SetVelocity(i, rigid.linear_velocity,
                      rigid.pose.orientation.normalized().conjugate() * rigid.angular_velocity);
  }
  peer->Forward();
  return peer;
}

}  // namespace ligature::bench
