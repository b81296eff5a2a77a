#pragma once
// Parsers for the values of command-line arguments: numbers, vectors, quaternions, shapes,
// body kinds and id lists. Failures are INVALID_ARGUMENT with a message that quotes the
// text and says what was expected.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ligature/v1/geometry.pb.h"
#include "ligature/v1/scene.pb.h"

namespace ligature::client::cli {

// A finite decimal number ("1.5", "-2", "1e-3").
absl::StatusOr<double> ParseNumber(absl::string_view text);

// A decimal integer that fits in int32.
absl::StatusOr<int32_t> ParseInt32(absl::string_view text);

// "true" or "false".
absl::StatusOr<bool> ParseBool(absl::string_view text);

// "x,y,z": exactly three finite numbers.
absl::StatusOr<ligature::v1::Vec3> ParseVec3(absl::string_view text);

// "x,y,z,w": four finite numbers, not all zero, normalised to a unit quaternion.
absl::StatusOr<ligature::v1::Quaternion> ParseQuaternion(absl::string_view text);

// "sphere:R", "box:HX,HY,HZ", "capsule:R,HALF" or "plane"; dimensions must be > 0.
absl::StatusOr<ligature::v1::Shape> ParseShapeSpec(absl::string_view text);

// "dynamic", "kinematic" or "static".
absl::StatusOr<ligature::v1::BodyKind> ParseBodyKind(absl::string_view text);
// "gauss-seidel" or "tunable".
absl::StatusOr<ligature::v1::SolverKind> ParseSolverKind(absl::string_view text);

// "a,b,c": one or more non-empty ids.
absl::StatusOr<std::vector<std::string>> ParseIdList(absl::string_view text);

}  // namespace ligature::client::cli
