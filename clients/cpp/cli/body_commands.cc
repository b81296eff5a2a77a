// Commands on bodies: bodies create|update|delete.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/cli/command.h"
#include "clients/cpp/cli/output_format.h"
#include "server/base/status_macros.h"
#include "clients/cpp/cli/value_parse.h"
#include "clients/cpp/client.h"
#include "clients/cpp/resource_names.h"

namespace ligature::client::cli {

namespace {

namespace v1 = ::ligature::v1;

// bodies create: builds a Body from the flags. A plane can only be static, so that is its
// default kind; other shapes default to the server's (dynamic).
absl::Status CreateBody(const Invocation& invocation) {
  const std::string& world = invocation.args.positional[0];
  v1::Body body;
  LIGATURE_ASSIGN_OR_RETURN(*body.mutable_id(), RequiredFlag(invocation, "id", Verbatim));
  LIGATURE_ASSIGN_OR_RETURN(*body.mutable_shape(),
                            RequiredFlag(invocation, "shape", ParseShapeSpec));

  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::BodyKind> kind,
                            OptionalFlag(invocation, "kind", ParseBodyKind));
  if (kind.has_value()) {
    body.set_kind(*kind);
  } else if (body.shape().has_plane()) {
    body.set_kind(v1::BODY_KIND_STATIC);
  }

  // Motion state.
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::Vec3> pos,
                            OptionalFlag(invocation, "pos", ParseVec3));
  if (pos.has_value()) *body.mutable_pose()->mutable_position() = *pos;
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::Vec3> vel,
                            OptionalFlag(invocation, "vel", ParseVec3));
  if (vel.has_value()) *body.mutable_linear_velocity() = *vel;

  // Material; unset fields stay 0, which the server reads as its defaults.
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> mass,
                            OptionalFlag(invocation, "mass", ParseNumber));
  if (mass.has_value()) body.mutable_material()->set_mass(*mass);
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> density,
                            OptionalFlag(invocation, "density", ParseNumber));
  if (density.has_value()) body.mutable_material()->set_density(*density);
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> friction,
                            OptionalFlag(invocation, "friction", ParseNumber));
  if (friction.has_value()) body.mutable_material()->set_friction(*friction);

  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const v1::Body created, client.CreateBody(world, body));
  invocation.out << (created.name().empty() ? BodyName(world, body.id()) : created.name()) << "\n";
  return absl::OkStatus();
}

// bodies update: each flag given becomes one path of the update mask.
absl::Status UpdateBody(const Invocation& invocation) {
  const std::string& world = invocation.args.positional[0];
  const std::string& body_id = invocation.args.positional[1];
  v1::Body changes;
  std::vector<std::string> mask;

  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::Vec3> pos,
                            OptionalFlag(invocation, "pos", ParseVec3));
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::Quaternion> quat,
                            OptionalFlag(invocation, "quat", ParseQuaternion));
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::Vec3> vel,
                            OptionalFlag(invocation, "vel", ParseVec3));
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::BodyKind> kind,
                            OptionalFlag(invocation, "kind", ParseBodyKind));
  if (!pos && !quat && !vel && !kind) {
    return UsageError("nothing to update: give --pos, --quat, --vel or --kind");
  }

  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  if (pos) {
    *changes.mutable_pose()->mutable_position() = *pos;
    mask.push_back("pose.position");
  }
  if (quat) {
    *changes.mutable_pose()->mutable_orientation() = *quat;
    mask.push_back("pose.orientation");
  }
  if (vel) {
    *changes.mutable_linear_velocity() = *vel;
    mask.push_back("linear_velocity");
  }
  if (kind) {
    changes.set_kind(*kind);
    mask.push_back("kind");
  }

  LIGATURE_ASSIGN_OR_RETURN(const v1::Body updated,
                            client.UpdateBody(world, body_id, changes, mask));
  invocation.out << FormatBodyLine(updated) << "\n";
  return absl::OkStatus();
}

absl::Status DeleteBody(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  return client.DeleteBody(invocation.args.positional[0], invocation.args.positional[1]);
}

}  // namespace

std::vector<Command> BodyCommands() {
  return {
      {{"bodies", "create"},
       {"W"},
       "--id ID --shape SHAPE [--kind dynamic|kinematic|static] [--pos x,y,z] "
       "[--vel x,y,z] [--mass KG] [--density RHO] [--friction MU]",
       "Add a body; prints its name. A plane defaults to --kind static.",
       {{"id"}, {"shape"}, {"kind"}, {"pos"}, {"vel"}, {"mass"}, {"density"}, {"friction"}},
       CreateBody},
      {{"bodies", "update"},
       {"W", "ID"},
       "[--pos x,y,z] [--quat x,y,z,w] [--vel x,y,z] [--kind dynamic|kinematic|static]",
       "Change a body's position, orientation, velocity or kind; only the flags given change.",
       {{"pos"}, {"quat"}, {"vel"}, {"kind"}},
       UpdateBody},
      {{"bodies", "delete"},
       {"W", "ID"},
       "",
       "Delete a body and the constraints attached to it.",
       {},
       DeleteBody},
  };
}

}  // namespace ligature::client::cli
