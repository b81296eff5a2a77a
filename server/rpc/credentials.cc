#include "server/rpc/credentials.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* flag) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(flag, ": cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A listen address on the loopback interface (127.0.0.0/8, ::1, localhost).
bool IsLoopback(const std::string& address) {
  const std::string host = HostOf(address);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

std::string HostOf(const std::string& address) {
  const size_t colon = address.rfind(':');
  std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host;
}

absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentialsFor(
    const TlsOptions& o, const std::string& program) {
  if (o.cert.empty() != o.key.empty()) {
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together");
  }
  if (o.cert.empty()) {
    if (!o.client_ca.empty()) {
      return absl::InvalidArgumentError("--tls_client_ca needs --tls_cert and --tls_key");
    }
    if (!IsLoopback(o.listen_address)) {
      if (!o.allow_insecure) {
        return absl::FailedPreconditionError(
            absl::StrCat("refusing to serve without TLS on ", o.listen_address,
                         ", which is not a loopback address: give --tls_cert and --tls_key, or "
                         "--allow_insecure"));
      }
      std::fprintf(stderr,
                   "%s: WARNING: serving without TLS on %s (--allow_insecure): "
                   "tokens and traffic travel in clear\n",
                   program.c_str(), o.listen_address.c_str());
    }
    return grpc::InsecureServerCredentials();
  }
  auto cert = ReadFile(o.cert, "--tls_cert");
  if (!cert.ok()) return cert.status();
  auto key = ReadFile(o.key, "--tls_key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl(
      o.client_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                          : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  if (!o.client_ca.empty()) {
    auto ca = ReadFile(o.client_ca, "--tls_client_ca");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
  }
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(ssl);
}

}  // namespace ligature
