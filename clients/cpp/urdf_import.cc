#include "clients/cpp/urdf_import.h"

#include <tinyxml.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/base/const_init.h"
#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "console_bridge/console.h"
#include "server/math/transform.h"
#include "urdf_model/joint.h"
#include "urdf_model/link.h"
#include "urdf_model/model.h"
#include "urdf_parser/urdf_parser.h"

namespace ligature::client {
namespace {

constexpr int kCylinderSides = 32;            // a cylinder collides as this prism's hull
constexpr double kNoCollisionRadius = 0.005;  // m: the sphere of a link without collision
constexpr int kMaxCompoundChildren = 64;      // as Compound.children allows
constexpr std::size_t kMaxIdLength = 63;      // [a-z0-9][a-z0-9_-]{0,62}

// ---------------------------------------------------------------------------------------
// Small conversions between urdfdom, Eigen and the proto types.

Vec3 ToVec3(const urdf::Vector3& v) { return Vec3(v.x, v.y, v.z); }

Transform ToTransform(const urdf::Pose& p) {
  Quat q(p.rotation.w, p.rotation.x, p.rotation.y, p.rotation.z);
  q.normalize();
  return Transform{ToVec3(p.position), q};
}

void SetVec3(const Vec3& v, v1::Vec3* out) {
  out->set_x(v.x());
  out->set_y(v.y());
  out->set_z(v.z());
}

void SetPose(const Transform& t, v1::Pose* out) {
  SetVec3(t.position, out->mutable_position());
  const Quat q = t.orientation.normalized();
  out->mutable_orientation()->set_x(q.x());
  out->mutable_orientation()->set_y(q.y());
  out->mutable_orientation()->set_z(q.z());
  out->mutable_orientation()->set_w(q.w());
}

bool IsIdentity(const Transform& t) {
  return t.position.norm() < 1e-12 && t.orientation.vec().norm() < 1e-12;
}

// The robot's frame in the world: base_pose after the optional Z-up to Y-up turn.
absl::StatusOr<Transform> RobotToWorld(const UrdfOptions& options) {
  const v1::Pose& p = options.base_pose;
  const Vec3 position(p.position().x(), p.position().y(), p.position().z());
  const v1::Quaternion& o = p.orientation();
  Quat q(o.w(), o.x(), o.y(), o.z());
  if (o.x() == 0.0 && o.y() == 0.0 && o.z() == 0.0 && o.w() == 0.0) q = Quat::Identity();
  if (!position.allFinite() || !q.coeffs().allFinite() || std::abs(q.norm() - 1.0) > 1e-6) {
    return absl::InvalidArgumentError("base_pose needs a finite position and a unit quaternion");
  }
  Transform base{position, q.normalized()};
  if (options.y_up) {
    base = base *
           Transform{Vec3::Zero(), Quat(Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitX()))};
  }
  return base;
}

// ---------------------------------------------------------------------------------------
// Ids: lowercase letters, digits, '_' and '-', starting with a letter or digit, at most 63
// characters, each used once.

std::string SanitizeId(const std::string& name) {
  std::string id;
  for (char c : name) {
    if (c >= 'A' && c <= 'Z') {
      id += static_cast<char>(c - 'A' + 'a');
    } else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-') {
      id += c;
    } else {
      id += '-';
    }
  }
  const std::size_t first = id.find_first_not_of("_-");
  id = first == std::string::npos ? "" : id.substr(first);
  if (id.size() > kMaxIdLength) id.resize(kMaxIdLength);
  return id;
}

class IdMaker {
 public:
  explicit IdMaker(std::string prefix) : prefix_(std::move(prefix)) {}

  // prefix + name made valid; a name already taken gets "-2", "-3", ... (shortened to fit).
  std::string Make(const std::string& name, const std::string& fallback) {
    std::string base = SanitizeId(prefix_ + name);
    if (base.empty()) base = fallback;
    std::string id = base;
    for (int n = 2; !taken_.insert(id).second; ++n) {
      const std::string suffix = absl::StrCat("-", n);
      id = base.substr(0, kMaxIdLength - suffix.size()) + suffix;
    }
    return id;
  }

 private:
  std::string prefix_;
  std::set<std::string> taken_;
};

// ---------------------------------------------------------------------------------------
// Parsing. urdfdom reports why it refuses a file through console_bridge, a process-wide
// logger: while it parses, a handler of ours (one for the process, so that console_bridge
// never keeps a pointer to a dead one) collects the errors for the status message.

class ErrorCollector : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
  }
  std::vector<std::string> errors;
};

absl::Mutex parse_mutex(absl::kConstInit);

urdf::ModelInterfaceSharedPtr ParseModel(const std::string& xml, std::string* errors) {
  absl::MutexLock lock(&parse_mutex);
  static ErrorCollector* const collector = new ErrorCollector;
  collector->errors.clear();
  console_bridge::OutputHandler* const previous = console_bridge::getOutputHandler();
  console_bridge::useOutputHandler(collector);
  urdf::ModelInterfaceSharedPtr model;
  try {
    model = urdf::parseURDF(xml);
  } catch (const std::exception& e) {
    collector->errors.push_back(e.what());
    model.reset();
  }
  console_bridge::useOutputHandler(previous);
  *errors = absl::StrJoin(collector->errors, "; ");
  return model;
}

// ---------------------------------------------------------------------------------------
// The import of one robot.

// A collision element placed in the frame of the body that carries it.
struct PlacedCollision {
  Transform pose;
  const urdf::Collision* collision;
  std::string link;
};

// A body being built: a link with <inertial> (and the massless links fixed to it), or the
// anchor, the massless root that stands for the world.
struct PendingBody {
  std::string link;
  bool is_static = false;
  Transform world;  // the link frame in the world
  urdf::InertialSharedPtr inertial;
  std::vector<PlacedCollision> collisions;
};

// Where a link ended up: a body (kAnchor for the anchor) and its frame in that body's frame.
constexpr int kAnchor = -1;
struct LinkPlace {
  int body = kAnchor;
  Transform in_body;
  Transform world;
};

// A joint between two bodies, in the bodies' frames (the rotation onto its axis not yet
// applied).
struct PendingJoint {
  std::string name;
  int type = urdf::Joint::FIXED;
  int parent = kAnchor;
  int child = 0;
  Transform in_parent;  // the joint frame at zero, in the parent body's (or anchor's) frame
  Vec3 axis = Vec3::UnitX();
  urdf::JointLimitsSharedPtr limits;
  double value = 0.0;  // the initial joint value (rad or m)
};

class Importer {
 public:
  Importer(std::string source, std::string base_dir, const UrdfOptions& options)
      : source_(std::move(source)), base_dir_(std::move(base_dir)), options_(options) {}

  absl::StatusOr<UrdfImport> Run(const std::string& xml);

 private:
  absl::Status Invalid(const std::string& message) const {
    return absl::InvalidArgumentError(absl::StrCat(source_, ": ", message));
  }
  absl::Status NotFound(const std::string& message) const {
    return absl::NotFoundError(absl::StrCat(source_, ": ", message));
  }

  absl::Status ScanXml(const std::string& xml);
  absl::Status CheckJointPositions(const urdf::ModelInterface& model) const;
  absl::Status Visit(const urdf::Link& link, const LinkPlace& place);
  void ReportJoint(const urdf::Joint& joint);
  absl::StatusOr<std::string> ResolveMesh(const std::string& uri, const std::string& link) const;
  absl::Status MakeShape(const urdf::Geometry& geometry, const std::string& link, bool as_hull,
                         v1::Shape* out) const;
  absl::Status MakeBodyShape(const PendingBody& body, v1::Shape* out);
  void MakeJoint(const PendingJoint& joint, const std::vector<std::string>& ids,
                 const std::string& anchor_id, const std::string& id, v1::Constraint* out) const;

  static bool HasMass(const urdf::Link& link) {
    return link.inertial != nullptr && link.inertial->mass > 0.0;
  }

  const std::string source_;
  const std::string base_dir_;
  const UrdfOptions& options_;
  UrdfImport out_;
  PendingBody anchor_;
  std::vector<PendingBody> bodies_;
  std::vector<PendingJoint> joints_;
};

// XML the model does not keep: well-formedness (with a line number), and the top-level
// elements urdfdom skips (transmissions, simulator extensions).
absl::Status Importer::ScanXml(const std::string& xml) {
  TiXmlDocument doc;
  doc.Parse(xml.c_str());
  if (doc.Error()) {
    return Invalid(absl::StrCat("not well-formed XML: ", doc.ErrorDesc(), " (line ", doc.ErrorRow(),
                                ", column ", doc.ErrorCol(), ")"));
  }
  const TiXmlElement* robot = doc.RootElement();
  if (robot == nullptr || robot->ValueStr() != "robot") {
    return Invalid("the document's root element is not <robot>");
  }
  for (const TiXmlElement* e = robot->FirstChildElement(); e != nullptr;
       e = e->NextSiblingElement()) {
    const char* name = e->Attribute("name");
    if (e->ValueStr() == "transmission") {
      out_.unsupported.push_back(absl::StrCat("<transmission> \"", name ? name : "",
                                              "\": not supported before drives exist"));
    } else if (e->ValueStr() == "gazebo") {
      const char* reference = e->Attribute("reference");
      out_.unsupported.push_back(reference
                                     ? absl::StrCat("<gazebo> for \"", reference, "\": ignored")
                                     : std::string("<gazebo>: ignored"));
    }
  }
  return absl::OkStatus();
}

// Every joint named in joint_positions exists and has a single coordinate.
absl::Status Importer::CheckJointPositions(const urdf::ModelInterface& model) const {
  for (const auto& [name, value] : options_.joint_positions) {
    const urdf::JointConstSharedPtr joint = model.getJoint(name);
    if (joint == nullptr) {
      return Invalid(absl::StrCat("joint_positions names joint \"", name,
                                  "\", which the robot does not have"));
    }
    const int type = joint->type;
    if (type != urdf::Joint::REVOLUTE && type != urdf::Joint::CONTINUOUS &&
        type != urdf::Joint::PRISMATIC) {
      return Invalid(absl::StrCat("joint_positions names joint \"", name,
                                  "\", which is not revolute, continuous or prismatic"));
    }
    if (!std::isfinite(value)) {
      return Invalid(absl::StrCat("joint_positions: joint \"", name, "\" needs a finite value"));
    }
  }
  return absl::OkStatus();
}

// The unsupported parts of a joint, one line each.
void Importer::ReportJoint(const urdf::Joint& joint) {
  const std::string at = absl::StrCat("joint \"", joint.name, "\": ");
  if (joint.type == urdf::Joint::PLANAR) {
    out_.unsupported.push_back(at + "planar joints are not supported (the link moves freely)");
  }
  if (joint.mimic != nullptr) {
    out_.unsupported.push_back(at + "<mimic> is not supported (the joint moves freely)");
  }
  if (joint.limits != nullptr && joint.limits->velocity > 0.0) {
    out_.unsupported.push_back(at + "velocity limits are not enforced");
  }
  if (joint.limits != nullptr && joint.limits->effort > 0.0 && !options_.drives) {
    out_.unsupported.push_back(at + "effort limits are not enforced (no drives asked for)");
  }
  if (joint.dynamics != nullptr) {
    out_.unsupported.push_back(at + "<dynamics> damping/friction ignored");
  }
  if (joint.safety != nullptr) {
    out_.unsupported.push_back(at + "<safety_controller> is not supported (ignored)");
  }
  if (joint.calibration != nullptr) {
    out_.unsupported.push_back(at + "<calibration> is not supported (ignored)");
  }
}

// Walks the tree below `link` (already placed): each child either joins its parent's body
// (fixed and massless) or becomes a body of its own with a joint to its parent.
absl::Status Importer::Visit(const urdf::Link& link, const LinkPlace& place) {
  for (const urdf::JointSharedPtr& joint_ptr : link.child_joints) {
    const urdf::Joint& joint = *joint_ptr;
    urdf::LinkConstSharedPtr child_ptr;
    for (const urdf::LinkSharedPtr& l : link.child_links) {
      if (l->name == joint.child_link_name) child_ptr = l;
    }
    if (child_ptr == nullptr) {
      return Invalid(absl::StrCat("joint \"", joint.name, "\": child link \"",
                                  joint.child_link_name, "\" not found"));
    }
    const urdf::Link& child = *child_ptr;
    ReportJoint(joint);

    // The joint's axis and its initial value, then the child link's frame in the world.
    const Transform origin = ToTransform(joint.parent_to_joint_origin_transform);
    Vec3 axis = ToVec3(joint.axis);
    const bool moving = joint.type == urdf::Joint::REVOLUTE ||
                        joint.type == urdf::Joint::CONTINUOUS ||
                        joint.type == urdf::Joint::PRISMATIC;
    if (moving) {
      if (!axis.allFinite() || axis.norm() < 1e-9) {
        return Invalid(absl::StrCat("joint \"", joint.name, "\": <axis> must not be zero"));
      }
      axis.normalize();
    }
    const auto value_it = options_.joint_positions.find(joint.name);
    const double value = value_it == options_.joint_positions.end() ? 0.0 : value_it->second;
    Transform motion;
    if (joint.type == urdf::Joint::PRISMATIC) {
      motion.position = value * axis;
    } else if (moving) {
      motion.orientation = Quat(Eigen::AngleAxisd(value, axis));
    }
    const Transform child_world = place.world * origin * motion;

    // A massless link: merged into its parent's body when fixed to it, else an error.
    if (!HasMass(child)) {
      if (joint.type != urdf::Joint::FIXED) {
        return Invalid(absl::StrCat("joint \"", joint.name, "\" moves link \"", child.name,
                                    "\", which has no <inertial> (mass)"));
      }
      const LinkPlace child_place{place.body, place.in_body * origin, child_world};
      PendingBody& body = place.body == kAnchor ? anchor_ : bodies_[place.body];
      for (const urdf::CollisionSharedPtr& c : child.collision_array) {
        body.collisions.push_back(
            {child_place.in_body * ToTransform(c->origin), c.get(), child.name});
      }
      if (auto s = Visit(child, child_place); !s.ok()) return s;
      continue;
    }

    // A link with mass: a body of its own and, unless free, a joint to its parent.
    PendingBody body;
    body.link = child.name;
    body.world = child_world;
    body.inertial = child.inertial;
    for (const urdf::CollisionSharedPtr& c : child.collision_array) {
      body.collisions.push_back({ToTransform(c->origin), c.get(), child.name});
    }
    bodies_.push_back(std::move(body));
    const int index = static_cast<int>(bodies_.size()) - 1;
    if (joint.type != urdf::Joint::FLOATING && joint.type != urdf::Joint::PLANAR) {
      PendingJoint pending;
      pending.name = joint.name;
      pending.type = joint.type;
      pending.parent = place.body;
      pending.child = index;
      pending.in_parent = place.in_body * origin;
      pending.axis = axis;
      pending.limits = joint.limits;
      pending.value = value;
      if (joint.type == urdf::Joint::REVOLUTE || joint.type == urdf::Joint::PRISMATIC) {
        if (joint.limits == nullptr) {
          return Invalid(absl::StrCat("joint \"", joint.name, "\" needs <limit>"));
        }
        if (!(joint.limits->lower <= joint.limits->upper)) {
          return Invalid(
              absl::StrCat("joint \"", joint.name, "\": <limit> lower must not exceed upper"));
        }
      }
      joints_.push_back(std::move(pending));
    }
    if (auto s = Visit(child, LinkPlace{index, Transform{}, child_world}); !s.ok()) return s;
  }
  return absl::OkStatus();
}

// A mesh URI as an absolute path to an existing file: package://name/... through the
// package folders; file:// and plain paths, when relative, against the URDF's folder.
absl::StatusOr<std::string> Importer::ResolveMesh(const std::string& uri,
                                                  const std::string& link) const {
  namespace fs = std::filesystem;
  const std::string at = absl::StrCat("link \"", link, "\": mesh \"", uri, "\"");
  fs::path path;
  const std::string package_scheme = "package://";
  const std::string file_scheme = "file://";
  if (absl::StartsWith(uri, package_scheme)) {
    const std::string rest = uri.substr(package_scheme.size());
    const std::size_t slash = rest.find('/');
    const std::string package = rest.substr(0, slash);
    const auto it = options_.package_dirs.find(package);
    if (it == options_.package_dirs.end()) {
      return NotFound(
          absl::StrCat(at, ": package \"", package, "\" is not among the package directories"));
    }
    path = fs::path(it->second);
    if (slash != std::string::npos) path /= rest.substr(slash + 1);
  } else if (absl::StartsWith(uri, file_scheme)) {
    path = uri.substr(file_scheme.size());
  } else {
    path = uri;
  }
  if (path.is_relative()) path = fs::path(base_dir_) / path;
  std::error_code error;
  path = fs::absolute(path, error).lexically_normal();
  if (error || !fs::is_regular_file(path, error)) {
    return NotFound(absl::StrCat(at, ": file ", path.string(), " not found"));
  }
  return path.string();
}

// One collision geometry as a shape in its own frame.
absl::Status Importer::MakeShape(const urdf::Geometry& geometry, const std::string& link,
                                 bool as_hull, v1::Shape* out) const {
  const std::string at = absl::StrCat("link \"", link, "\": collision ");
  switch (geometry.type) {
    case urdf::Geometry::BOX: {
      const Vec3 size = ToVec3(static_cast<const urdf::Box&>(geometry).dim);
      if (!size.allFinite() || size.minCoeff() <= 0.0) {
        return Invalid(at + "<box> size must be > 0");
      }
      SetVec3(0.5 * size, out->mutable_box()->mutable_half_extents());
      return absl::OkStatus();
    }
    case urdf::Geometry::SPHERE: {
      const double radius = static_cast<const urdf::Sphere&>(geometry).radius;
      if (!std::isfinite(radius) || radius <= 0.0) {
        return Invalid(at + "<sphere> radius must be > 0");
      }
      out->mutable_sphere()->set_radius(radius);
      return absl::OkStatus();
    }
    case urdf::Geometry::CYLINDER: {
      // Ligature has no cylinder: the hull of a prism inscribed in it, along local Z.
      const auto& cylinder = static_cast<const urdf::Cylinder&>(geometry);
      if (!std::isfinite(cylinder.radius) || !std::isfinite(cylinder.length) ||
          cylinder.radius <= 0.0 || cylinder.length <= 0.0) {
        return Invalid(at + "<cylinder> radius and length must be > 0");
      }
      v1::ConvexHull* hull = out->mutable_hull();
      hull->set_max_vertices(2 * kCylinderSides);
      for (double z : {-0.5 * cylinder.length, 0.5 * cylinder.length}) {
        for (int k = 0; k < kCylinderSides; ++k) {
          const double angle = 2.0 * std::numbers::pi * k / kCylinderSides;
          SetVec3(Vec3(cylinder.radius * std::cos(angle), cylinder.radius * std::sin(angle), z),
                  hull->add_points());
        }
      }
      return absl::OkStatus();
    }
    case urdf::Geometry::MESH: {
      const auto& mesh = static_cast<const urdf::Mesh&>(geometry);
      auto file = ResolveMesh(mesh.filename, link);
      if (!file.ok()) return file.status();
      const Vec3 scale = ToVec3(mesh.scale);
      if (!scale.allFinite() || scale.minCoeff() <= 0.0) {
        return Invalid(absl::StrCat(at, "mesh \"", mesh.filename, "\": scale must be > 0"));
      }
      v1::MeshAssetShape* shape = out->mutable_mesh_asset();
      shape->set_file(*file);
      shape->set_as_hull(as_hull);
      SetVec3(scale, shape->mutable_scale());
      return absl::OkStatus();
    }
  }
  return Invalid(at + "unknown geometry");
}

// A body's shape: its one collision at its origin as is, several as a compound, none as a
// small sphere at the centre of mass.
absl::Status Importer::MakeBodyShape(const PendingBody& body, v1::Shape* out) {
  if (body.collisions.empty()) {
    const Vec3 com = body.inertial ? ToVec3(body.inertial->origin.position) : Vec3(Vec3::Zero());
    if (com.norm() < 1e-12) {
      out->mutable_sphere()->set_radius(kNoCollisionRadius);
    } else {
      v1::CompoundChild* child = out->mutable_compound()->add_children();
      child->mutable_shape()->mutable_sphere()->set_radius(kNoCollisionRadius);
      SetPose(Transform{com, Quat::Identity()}, child->mutable_pose());
    }
    return absl::OkStatus();
  }
  if (body.collisions.size() == 1 && IsIdentity(body.collisions[0].pose)) {
    const PlacedCollision& c = body.collisions[0];
    if (c.collision->geometry == nullptr) {
      return Invalid(absl::StrCat("link \"", c.link, "\": <collision> without <geometry>"));
    }
    return MakeShape(*c.collision->geometry, c.link, !body.is_static, out);
  }
  if (body.collisions.size() > static_cast<std::size_t>(kMaxCompoundChildren)) {
    return Invalid(absl::StrCat("link \"", body.link, "\": more than ", kMaxCompoundChildren,
                                " collision elements (with the links fixed to it)"));
  }
  for (const PlacedCollision& c : body.collisions) {
    if (c.collision->geometry == nullptr) {
      return Invalid(absl::StrCat("link \"", c.link, "\": <collision> without <geometry>"));
    }
    v1::CompoundChild* child = out->mutable_compound()->add_children();
    if (auto s = MakeShape(*c.collision->geometry, c.link, true, child->mutable_shape()); !s.ok()) {
      return s;
    }
    SetPose(c.pose, child->mutable_pose());
    if (body.is_static && child->shape().has_mesh_asset()) {
      out_.unsupported.push_back(
          absl::StrCat("link \"", c.link, "\": mesh \"",
                       static_cast<const urdf::Mesh&>(*c.collision->geometry).filename,
                       "\" collides as its convex hull (a compound holds no triangle mesh)"));
    }
  }
  return absl::OkStatus();
}

// A joint as a constraint. Body A is the parent, with the joint frame turned so that its X
// axis lies along the URDF axis, and B the child, whose frame is the joint frame at zero.
// Against the anchor (the world), A is the child and X lies along the opposite axis, so that
// B's angle (or offset) relative to A still grows with the URDF joint value.
void Importer::MakeJoint(const PendingJoint& joint, const std::vector<std::string>& ids,
                         const std::string& anchor_id, const std::string& id,
                         v1::Constraint* out) const {
  const bool to_anchor = joint.parent == kAnchor;
  Transform turn;  // a fixed joint has no axis: its frames are the joint frame itself
  if (joint.type != urdf::Joint::FIXED) {
    turn.orientation = Quat::FromTwoVectors(Vec3::UnitX(), to_anchor ? -joint.axis : joint.axis);
  }
  Transform parent_frame = joint.in_parent * turn;
  const std::string parent_id = to_anchor ? anchor_id : ids[joint.parent];
  if (to_anchor && anchor_id.empty()) parent_frame = anchor_.world * parent_frame;  // world

  v1::JointFrames* frames = nullptr;
  v1::JointLimits* limits = nullptr;
  out->set_id(id);
  switch (joint.type) {
    case urdf::Joint::REVOLUTE:
      frames = out->mutable_hinge()->mutable_frames();
      limits = out->mutable_hinge()->mutable_limits();
      break;
    case urdf::Joint::CONTINUOUS:
      frames = out->mutable_hinge()->mutable_frames();
      break;
    case urdf::Joint::PRISMATIC:
      frames = out->mutable_slider()->mutable_frames();
      limits = out->mutable_slider()->mutable_limits();
      break;
    default:
      frames = out->mutable_fixed()->mutable_frames();
      break;
  }
  if (limits != nullptr) {
    limits->set_lower(joint.limits->lower);
    limits->set_upper(joint.limits->upper);
  }
  // A spring drive holding the joint's initial value, capped at its effort limit.
  if (options_.drives && (out->has_hinge() || out->has_slider())) {
    v1::JointDrive* drive =
        out->has_hinge() ? out->mutable_hinge()->mutable_drive() : out->mutable_slider()->mutable_drive();
    drive->set_mode(v1::DRIVE_MODE_SPRING);
    drive->set_target_position(joint.value);
    drive->set_stiffness(options_.drives->stiffness);
    drive->set_damping(options_.drives->damping);
    if (joint.limits != nullptr && joint.limits->effort > 0.0) {
      drive->set_max_force(joint.limits->effort);
    }
  }
  if (to_anchor) {
    frames->set_body_a(ids[joint.child]);
    SetPose(turn, frames->mutable_frame_a());
    frames->set_body_b(parent_id);
    SetPose(parent_frame, frames->mutable_frame_b());
  } else {
    frames->set_body_a(parent_id);
    SetPose(parent_frame, frames->mutable_frame_a());
    frames->set_body_b(ids[joint.child]);
    SetPose(turn, frames->mutable_frame_b());
  }
}

absl::StatusOr<UrdfImport> Importer::Run(const std::string& xml) {
  if (auto s = ScanXml(xml); !s.ok()) return s;
  std::string errors;
  const urdf::ModelInterfaceSharedPtr model = ParseModel(xml, &errors);
  if (model == nullptr) {
    return Invalid(
        absl::StrCat("not a valid URDF robot", errors.empty() ? "" : absl::StrCat(": ", errors)));
  }
  if (auto s = CheckJointPositions(*model); !s.ok()) return s;
  if (const std::optional<UrdfOptions::Drives>& d = options_.drives;
      d && !(std::isfinite(d->stiffness) && std::isfinite(d->damping) && d->stiffness >= 0.0 &&
             d->damping >= 0.0 && d->stiffness + d->damping > 0.0)) {
    return Invalid("drives: stiffness and damping must be finite, >= 0 and not both 0");
  }
  auto robot_to_world = RobotToWorld(options_);
  if (!robot_to_world.ok()) return Invalid(std::string(robot_to_world.status().message()));
  for (const auto& [name, link] : model->links_) {
    if (link->inertial != nullptr && !(link->inertial->mass >= 0.0)) {
      return Invalid(absl::StrCat("link \"", name, "\": <mass> must be >= 0"));
    }
  }
  const urdf::LinkConstSharedPtr root = model->getRoot();
  if (root == nullptr) return Invalid("the robot has no root link");

  // The root: a body (static with a fixed base) when it has mass, else the anchor.
  anchor_.link = root->name;
  anchor_.is_static = true;
  anchor_.world = *robot_to_world;
  LinkPlace root_place{kAnchor, Transform{}, *robot_to_world};
  if (HasMass(*root)) {
    PendingBody body;
    body.link = root->name;
    body.is_static = options_.fixed_base;
    body.world = *robot_to_world;
    body.inertial = root->inertial;
    for (const urdf::CollisionSharedPtr& c : root->collision_array) {
      body.collisions.push_back({ToTransform(c->origin), c.get(), root->name});
    }
    bodies_.push_back(std::move(body));
    root_place.body = 0;
  } else {
    for (const urdf::CollisionSharedPtr& c : root->collision_array) {
      anchor_.collisions.push_back({ToTransform(c->origin), c.get(), root->name});
    }
  }
  if (auto s = Visit(*root, root_place); !s.ok()) return s;

  // Ids, in scene order: the anchor first when it has collisions to carry.
  IdMaker body_ids(options_.id_prefix.value_or(SanitizeId(model->getName()) + "-"));
  IdMaker joint_ids(options_.id_prefix.value_or(SanitizeId(model->getName()) + "-"));
  std::string anchor_id;
  if (!anchor_.collisions.empty()) anchor_id = body_ids.Make(anchor_.link, "link");
  std::vector<std::string> ids;
  for (const PendingBody& body : bodies_) ids.push_back(body_ids.Make(body.link, "link"));

  // Bodies: pose, kind, mass and inertia (the tensor turned into link axes: R I R^T), shape.
  v1::Scene& scene = out_.scene;
  if (!anchor_id.empty()) {
    v1::Body* b = scene.add_bodies();
    b->set_id(anchor_id);
    b->set_kind(v1::BODY_KIND_STATIC);
    SetPose(anchor_.world, b->mutable_pose());
    if (auto s = MakeBodyShape(anchor_, b->mutable_shape()); !s.ok()) return s;
  }
  for (std::size_t i = 0; i < bodies_.size(); ++i) {
    const PendingBody& body = bodies_[i];
    v1::Body* b = scene.add_bodies();
    b->set_id(ids[i]);
    b->set_kind(body.is_static ? v1::BODY_KIND_STATIC : v1::BODY_KIND_DYNAMIC);
    SetPose(body.world, b->mutable_pose());
    if (!body.is_static) {
      const urdf::Inertial& in = *body.inertial;
      Mat3 tensor;
      tensor << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      if (!tensor.allFinite()) {
        return Invalid(absl::StrCat("link \"", body.link, "\": <inertia> must be finite"));
      }
      const Mat3 r = ToTransform(in.origin).orientation.toRotationMatrix();
      const Mat3 turned = r * tensor * r.transpose();
      v1::Material* m = b->mutable_material();
      m->set_mass(in.mass);
      v1::Inertia* inertia = m->mutable_inertia();
      SetVec3(ToVec3(in.origin.position), inertia->mutable_center_of_mass());
      inertia->set_ixx(turned(0, 0));
      inertia->set_iyy(turned(1, 1));
      inertia->set_izz(turned(2, 2));
      inertia->set_ixy(turned(0, 1));
      inertia->set_ixz(turned(0, 2));
      inertia->set_iyz(turned(1, 2));
    }
    if (auto s = MakeBodyShape(body, b->mutable_shape()); !s.ok()) return s;
  }

  // Constraints, in the order of the tree walk.
  for (const PendingJoint& joint : joints_) {
    MakeJoint(joint, ids, anchor_id, joint_ids.Make(joint.name, "joint"), scene.add_constraints());
  }
  return std::move(out_);
}

}  // namespace

absl::StatusOr<UrdfImport> ImportUrdfXml(const std::string& xml, const std::string& base_dir,
                                         const UrdfOptions& options) {
  return Importer("URDF text", base_dir, options).Run(xml);
}

absl::StatusOr<UrdfImport> ImportUrdf(const std::string& path, const UrdfOptions& options) {
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) {
    return absl::NotFoundError(absl::StrCat(path, ": no such URDF file"));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open the URDF file"));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::InvalidArgumentError(absl::StrCat(path, ": read error"));
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  return Importer(path, folder.empty() ? "." : folder.string(), options).Run(text.str());
}

}  // namespace ligature::client
