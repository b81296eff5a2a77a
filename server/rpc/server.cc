#include "server/rpc/server.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/health_check_service_interface.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"

namespace ligature {
namespace {

// The token store of `path` (null for none); a failure is kept for Start to report.
std::unique_ptr<TokenStore> LoadTokens(const std::string& path, absl::Status* status) {
  if (path.empty()) return nullptr;
  auto store = TokenStore::Load(path);
  if (!store.ok()) {
    *status = store.status();
    return nullptr;
  }
  return *std::move(store);
}

absl::StatusOr<std::string> ReadFile(const std::string& path, const char* flag) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(flag, ": cannot read ", path));
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The host part of a listen address (brackets of an IPv6 address removed).
std::string HostOf(const std::string& address) {
  const size_t colon = address.rfind(':');
  std::string host = colon == std::string::npos ? address : address.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host;
}

// A listen address on the loopback interface (127.0.0.0/8, ::1, localhost).
bool IsLoopback(const std::string& address) {
  const std::string host = HostOf(address);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

// TLS credentials from the options' files, or insecure ones where that is allowed.
absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> Credentials(const ServerOptions& o) {
  if (o.tls_cert.empty() != o.tls_key.empty()) {
    return absl::InvalidArgumentError("--tls_cert and --tls_key go together");
  }
  if (o.tls_cert.empty()) {
    if (!o.tls_client_ca.empty()) {
      return absl::InvalidArgumentError("--tls_client_ca needs --tls_cert and --tls_key");
    }
    if (!IsLoopback(o.listen_address)) {
      if (!o.allow_insecure) {
        return absl::FailedPreconditionError(absl::StrCat(
            "refusing to serve without TLS on ", o.listen_address,
            ", which is not a loopback address: give --tls_cert and --tls_key, or "
            "--allow_insecure"));
      }
      std::fprintf(stderr,
                   "ligatured: WARNING: serving without TLS on %s (--allow_insecure): "
                   "tokens and traffic travel in clear\n",
                   o.listen_address.c_str());
    }
    return grpc::InsecureServerCredentials();
  }
  auto cert = ReadFile(o.tls_cert, "--tls_cert");
  if (!cert.ok()) return cert.status();
  auto key = ReadFile(o.tls_key, "--tls_key");
  if (!key.ok()) return key.status();
  grpc::SslServerCredentialsOptions ssl(
      o.tls_client_ca.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                              : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  if (!o.tls_client_ca.empty()) {
    auto ca = ReadFile(o.tls_client_ca, "--tls_client_ca");
    if (!ca.ok()) return ca.status();
    ssl.pem_root_certs = *ca;
  }
  ssl.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(ssl);
}

}  // namespace

Server::Server(const ServerOptions& options)
    : options_(options),
      manager_(options.worlds),
      tokens_(LoadTokens(options.token_file, &tokens_status_)),
      edit_limiter_(options.max_edits_per_second),
      world_service_(&manager_, tokens_.get()),
      scene_service_(&manager_, &edit_limiter_, tokens_.get()),
      session_service_(&manager_, &stopping_, &session_counters_, tokens_.get()),
      haptics_service_(&manager_, &stopping_, tokens_.get()),
      asset_service_(&manager_, tokens_.get()),
      query_service_(&manager_, tokens_.get()) {}

absl::Status Server::ReloadTokens() {
  if (tokens_ == nullptr) return absl::FailedPreconditionError("no token file");
  return tokens_->Reload();
}

Server::~Server() { Shutdown(absl::ZeroDuration()); }

absl::Status Server::Start() {
  if (!tokens_status_.ok()) return tokens_status_;
  auto credentials = Credentials(options_);
  if (!credentials.ok()) return credentials.status();
  // The haptic datagram port listens on the gRPC address's host.
  if (options_.haptic_datagram_port >= 0) {
    std::string host = HostOf(options_.listen_address);
    if (host == "0.0.0.0" || host == "::" || host == "*") host.clear();
    auto port = HapticDatagramPort::Start(host, options_.haptic_datagram_port,
                                          haptics_service_.datagram_counters());
    if (!port.ok()) return port.status();
    datagram_port_ = *std::move(port);
    haptics_service_.SetDatagramPort(datagram_port_.get());
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  grpc::ServerBuilder builder;
  builder.AddListeningPort(options_.listen_address, *credentials, &port_);
  builder.SetMaxReceiveMessageSize(options_.max_message_bytes);
  builder.SetMaxSendMessageSize(options_.max_message_bytes);
  builder.RegisterService(&world_service_);
  builder.RegisterService(&scene_service_);
  builder.RegisterService(&session_service_);
  builder.RegisterService(&haptics_service_);
  builder.RegisterService(&asset_service_);
  builder.RegisterService(&query_service_);
  server_ = builder.BuildAndStart();
  if (server_ == nullptr || port_ == 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot listen on ", options_.listen_address));
  }
  if (!options_.publish.url.empty()) {
    auto publisher = FramePublisher::Start(options_.publish, &manager_, &session_service_.hubs(),
                                           &session_counters_.publish);
    if (!publisher.ok()) return publisher.status();
    publisher_ = *std::move(publisher);
  }
  server_->GetHealthCheckService()->SetServingStatus(true);
  return absl::OkStatus();
}

void Server::Shutdown(absl::Duration grace) {
  if (stopping_.exchange(true)) return;
  if (server_ != nullptr) server_->GetHealthCheckService()->SetServingStatus(false);
  manager_.Shutdown();
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + absl::ToChronoNanoseconds(grace));
  }
}

void Server::Wait() {
  if (server_ != nullptr) server_->Wait();
}

}  // namespace ligature
