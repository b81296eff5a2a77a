#include "server/rpc/auth.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace ligature {

namespace {

const char* RoleName(Role r) {
  switch (r) {
    case Role::kViewer:
      return "viewer";
    case Role::kEditor:
      return "editor";
    case Role::kOwner:
      return "owner";
  }
  return "?";
}

std::optional<Role> ParseRole(absl::string_view s) {
  if (s == "viewer") return Role::kViewer;
  if (s == "editor") return Role::kEditor;
  if (s == "owner") return Role::kOwner;
  return std::nullopt;
}

}  // namespace

Grants Grants::All() {
  Grants g;
  g.any_world = Role::kOwner;
  return g;
}

absl::Status Grants::Require(const std::string& world_id, Role role) const {
  if (any_world && *any_world >= role) return absl::OkStatus();
  auto it = worlds.find(world_id);
  if (it != worlds.end() && it->second >= role) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      "this token lacks the ", RoleName(role), " role on world ", world_id));
}

absl::StatusOr<std::map<std::string, Grants>> TokenStore::Parse(const std::string& text) {
  std::map<std::string, Grants> tokens;
  int line_number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++line_number;
    line = line.substr(0, line.find('#'));
    std::vector<absl::string_view> words =
        absl::StrSplit(line, absl::ByAnyChar(" \t\r"), absl::SkipEmpty());
    if (words.empty()) continue;
    const bool sized = words.size() == 3 || words.size() == 4;
    const std::optional<Role> role = sized ? ParseRole(words[1]) : std::nullopt;
    if (!role) {
      return absl::InvalidArgumentError(
          absl::StrCat("token file line ", line_number,
                       ": expected `TOKEN viewer|editor|owner WORLD [until=TIME]`"));
    }
    // The optional expiry: RFC 3339; the earliest of a token's lines holds.
    std::optional<absl::Time> until;
    if (words.size() == 4) {
      absl::string_view text = words[3];
      absl::Time t;
      std::string error;
      if (!absl::ConsumePrefix(&text, "until=") ||
          !absl::ParseTime(absl::RFC3339_full, text, &t, &error)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "token file line ", line_number, ": expected until=TIME (RFC 3339), got `",
            words[3], "`"));
      }
      until = t;
    }
    Grants& g = tokens[std::string(words[0])];
    if (until) g.expires = g.expires ? std::min(*g.expires, *until) : *until;
    if (words[2] == "*") {
      g.any_world = std::max(g.any_world.value_or(*role), *role);
    } else {
      Role& r = g.worlds.try_emplace(std::string(words[2]), *role).first->second;
      r = std::max(r, *role);
    }
  }
  return tokens;
}

absl::StatusOr<std::unique_ptr<TokenStore>> TokenStore::Load(const std::string& path) {
  std::unique_ptr<TokenStore> store(new TokenStore(path));
  if (absl::Status s = store->Reload(); !s.ok()) return s;
  return store;
}

absl::Status TokenStore::Reload() {
  std::ifstream in(path_);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read token file ", path_));
  std::stringstream text;
  text << in.rdbuf();
  auto parsed = Parse(text.str());
  if (!parsed.ok()) {
    return absl::Status(parsed.status().code(),
                        absl::StrCat(path_, ": ", parsed.status().message()));
  }
  auto tokens = std::make_shared<const std::map<std::string, Grants>>(*std::move(parsed));
  absl::MutexLock lock(&mu_);
  tokens_ = std::move(tokens);
  return absl::OkStatus();
}

absl::StatusOr<Grants> TokenStore::Identify(const std::optional<std::string>& authorization,
                                            absl::Time now) const {
  if (!authorization) {
    return absl::UnauthenticatedError("missing `authorization: Bearer TOKEN` metadata");
  }
  absl::string_view value = *authorization;
  if (!absl::ConsumePrefix(&value, "Bearer ") && !absl::ConsumePrefix(&value, "bearer ")) {
    return absl::UnauthenticatedError("authorization metadata is not a bearer token");
  }
  std::shared_ptr<const std::map<std::string, Grants>> tokens;
  {
    absl::MutexLock lock(&mu_);
    tokens = tokens_;
  }
  auto it = tokens->find(std::string(value));
  if (it == tokens->end()) return absl::UnauthenticatedError("unknown token");
  if (it->second.expires && now >= *it->second.expires) {
    return absl::UnauthenticatedError(absl::StrCat(
        "token expired at ", absl::FormatTime(absl::RFC3339_sec, *it->second.expires,
                                              absl::UTCTimeZone())));
  }
  return it->second;
}

}  // namespace ligature
