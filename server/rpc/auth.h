#pragma once
// Bearer tokens with per-world roles.
//
// The token file has one grant per line, `TOKEN ROLE WORLD [until=TIME]`: ROLE is viewer
// (watch, read), editor (also edit, step, drive bodies) or owner (also create, delete and
// configure worlds); WORLD is a world id or `*` for every world; TIME (RFC 3339, e.g.
// 2026-12-31T23:59:59Z) is when the token stops being accepted. A token may have several
// lines; when more than one gives a time, the earliest holds. '#' starts a comment. Calls
// carry `authorization: Bearer TOKEN` metadata. The store is reloaded on demand (SIGHUP in
// ligatured) and swapped whole, so a call sees either the old grants or the new ones.
// Checks run in each service (they work with TLS and without it, unlike an
// AuthMetadataProcessor).
//
// Threading: a TokenStore's `mu_` guards only the pointer to the current grants; the map it
// points to is never changed once published, so Identify reads it after releasing mu_.

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace ligature {

enum class Role { kViewer = 1, kEditor = 2, kOwner = 3 };

// What one caller may do: the best role per world, and the role on every world.
class Grants {
 public:
  // Everything allowed (no token file: authentication is off).
  static Grants All();

  // OK, or PERMISSION_DENIED naming the role needed and the world.
  absl::Status Require(const std::string& world_id, Role role) const;
  bool Allows(const std::string& world_id, Role role) const {
    return Require(world_id, role).ok();
  }

  std::optional<Role> any_world;
  std::map<std::string, Role> worlds;
  std::optional<absl::Time> expires;  // none: the token does not expire
};

class TokenStore {
 public:
  // Reads and parses `path`; INVALID_ARGUMENT naming the line for a bad one.
  static absl::StatusOr<std::unique_ptr<TokenStore>> Load(const std::string& path);
  // Parses token-file text (for tests and Load).
  static absl::StatusOr<std::map<std::string, Grants>> Parse(const std::string& text);

  // Re-reads the file; on failure the old grants stay and the error is returned.
  absl::Status Reload() ABSL_LOCKS_EXCLUDED(mu_);

  // The grants of an `authorization` metadata value: UNAUTHENTICATED when it is missing,
  // not a bearer token, an unknown token, or one whose time has passed at `now`.
  absl::StatusOr<Grants> Identify(const std::optional<std::string>& authorization,
                                  absl::Time now = absl::Now()) const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  explicit TokenStore(std::string path) : path_(std::move(path)) {}

  const std::string path_;
  mutable absl::Mutex mu_;
  std::shared_ptr<const std::map<std::string, Grants>> tokens_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ligature
