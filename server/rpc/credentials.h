#pragma once
// A gRPC server's credentials from its TLS files, and the rule that keeps a server without
// TLS on loopback addresses unless it is told otherwise.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "grpcpp/security/server_credentials.h"

namespace ligature {

struct TlsOptions {
  std::string listen_address;
  // PEM files of the server's certificate chain and key; with a client CA, clients must
  // present a certificate it signed (mutual TLS).
  std::string cert;
  std::string key;
  std::string client_ca;
  bool allow_insecure = false;  // serve without TLS on a non-loopback address
};

// TLS credentials from the options' files, or insecure ones where that is allowed (with a
// warning on stderr, prefixed by `program`, when the address is not a loopback one).
// Errors name the flag at fault.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const TlsOptions& options, const std::string& program);

// The host part of a listen address (brackets of an IPv6 address removed).
std::string HostOf(const std::string& address);

}  // namespace ligature
