#include "clients/cpp/cli/value_parse.h"

#include <cmath>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace ligature::client::cli {

namespace {

// Exactly `count` comma-separated finite numbers; `expected` describes the form in errors.
absl::StatusOr<std::vector<double>> ParseNumberList(absl::string_view text, size_t count,
                                                    absl::string_view expected) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  if (parts.size() != count) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", expected, ", got \"", text, "\""));
  }
  std::vector<double> values;
  values.reserve(count);
  for (absl::string_view part : parts) {
    absl::StatusOr<double> value = ParseNumber(part);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected ", expected, ", got \"", text, "\""));
    }
    values.push_back(*value);
  }
  return values;
}

// Dimensions of shapes must be positive; `what` names the dimension in errors.
absl::Status CheckPositive(double value, absl::string_view what, absl::string_view spec) {
  if (value > 0) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what, " must be > 0 in shape \"", spec, "\""));
}

}  // namespace

absl::StatusOr<double> ParseNumber(absl::string_view text) {
  double value = 0;
  // SimpleAtod also accepts "inf" and "nan", which no argument of the API allows.
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(absl::StrCat("expected a number, got \"", text, "\""));
  }
  return value;
}

absl::StatusOr<int32_t> ParseInt32(absl::string_view text) {
  int32_t value = 0;
  if (!absl::SimpleAtoi(text, &value)) {
    return absl::InvalidArgumentError(absl::StrCat("expected an integer, got \"", text, "\""));
  }
  return value;
}

absl::StatusOr<bool> ParseBool(absl::string_view text) {
  if (text == "true") return true;
  if (text == "false") return false;
  return absl::InvalidArgumentError(absl::StrCat("expected true or false, got \"", text, "\""));
}

absl::StatusOr<ligature::v1::Vec3> ParseVec3(absl::string_view text) {
  absl::StatusOr<std::vector<double>> values = ParseNumberList(text, 3, "x,y,z");
  if (!values.ok()) return values.status();
  ligature::v1::Vec3 v;
  v.set_x((*values)[0]);
  v.set_y((*values)[1]);
  v.set_z((*values)[2]);
  return v;
}

// Users type rounded components such as 0,0.7071,0,0.7071; the server requires a norm of
// 1 within 1e-6, so the quaternion is normalised here.
absl::StatusOr<ligature::v1::Quaternion> ParseQuaternion(absl::string_view text) {
  absl::StatusOr<std::vector<double>> values = ParseNumberList(text, 4, "x,y,z,w");
  if (!values.ok()) return values.status();
  const std::vector<double>& q = *values;
  const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(norm > 1e-12) || !std::isfinite(norm)) {
    return absl::InvalidArgumentError(
        absl::StrCat("quaternion \"", text, "\" has no direction (norm 0)"));
  }
  ligature::v1::Quaternion quaternion;
  quaternion.set_x(q[0] / norm);
  quaternion.set_y(q[1] / norm);
  quaternion.set_z(q[2] / norm);
  quaternion.set_w(q[3] / norm);
  return quaternion;
}

absl::StatusOr<ligature::v1::Shape> ParseShapeSpec(absl::string_view text) {
  // Split "kind:params"; only "plane" has no parameters.
  const std::pair<absl::string_view, absl::string_view> kind_params =
      absl::StrSplit(text, absl::MaxSplits(':', 1));
  const absl::string_view kind = kind_params.first;
  const absl::string_view params = kind_params.second;
  const bool has_params = text.find(':') != absl::string_view::npos;

  ligature::v1::Shape shape;
  if (kind == "plane" && !has_params) {
    shape.mutable_plane();
    return shape;
  }
  if (kind == "sphere" && has_params) {
    absl::StatusOr<std::vector<double>> v = ParseNumberList(params, 1, "sphere:R");
    if (!v.ok()) return v.status();
    if (absl::Status s = CheckPositive((*v)[0], "radius", text); !s.ok()) return s;
    shape.mutable_sphere()->set_radius((*v)[0]);
    return shape;
  }
  if (kind == "box" && has_params) {
    absl::StatusOr<std::vector<double>> v = ParseNumberList(params, 3, "box:HX,HY,HZ");
    if (!v.ok()) return v.status();
    for (double half : *v) {
      if (absl::Status s = CheckPositive(half, "half extents", text); !s.ok()) return s;
    }
    ligature::v1::Vec3* half = shape.mutable_box()->mutable_half_extents();
    half->set_x((*v)[0]);
    half->set_y((*v)[1]);
    half->set_z((*v)[2]);
    return shape;
  }
  if (kind == "capsule" && has_params) {
    absl::StatusOr<std::vector<double>> v = ParseNumberList(params, 2, "capsule:R,HALF");
    if (!v.ok()) return v.status();
    if (absl::Status s = CheckPositive((*v)[0], "radius", text); !s.ok()) return s;
    if (absl::Status s = CheckPositive((*v)[1], "half length", text); !s.ok()) return s;
    shape.mutable_capsule()->set_radius((*v)[0]);
    shape.mutable_capsule()->set_half_length((*v)[1]);
    return shape;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("expected sphere:R, box:HX,HY,HZ, capsule:R,HALF or plane, got \"", text, "\""));
}

absl::StatusOr<ligature::v1::BodyKind> ParseBodyKind(absl::string_view text) {
  if (text == "dynamic") return ligature::v1::BODY_KIND_DYNAMIC;
  if (text == "kinematic") return ligature::v1::BODY_KIND_KINEMATIC;
  if (text == "static") return ligature::v1::BODY_KIND_STATIC;
  return absl::InvalidArgumentError(
      absl::StrCat("expected dynamic, kinematic or static, got \"", text, "\""));
}

absl::StatusOr<ligature::v1::SolverKind> ParseSolverKind(absl::string_view text) {
  if (text == "gauss-seidel") return ligature::v1::SOLVER_KIND_GAUSS_SEIDEL;
  if (text == "tunable") return ligature::v1::SOLVER_KIND_TUNABLE_LCP;
  return absl::InvalidArgumentError(
      absl::StrCat("expected gauss-seidel or tunable, got \"", text, "\""));
}

absl::StatusOr<std::vector<std::string>> ParseIdList(absl::string_view text) {
  std::vector<std::string> ids = absl::StrSplit(text, ',');
  for (const std::string& id : ids) {
    if (id.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("expected comma-separated ids, got \"", text, "\""));
    }
  }
  return ids;
}

}  // namespace ligature::client::cli
