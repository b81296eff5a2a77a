// Bearer tokens with per-world roles, and TLS (certificates made with openssl at test time).

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "grpcpp/security/credentials.h"
#include "ligature/v1/asset_service.grpc.pb.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/ligature_auth_" + std::to_string(::getpid()) + "_" + name;
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class AuthTest : public ServerTest {
 protected:
  void Customize(ServerOptions* options) override {
    token_file_ = TempPath("tokens");
    std::ofstream(token_file_) << "viewer-t viewer pile\neditor-t editor pile\nowner-t owner *\n";
    options->token_file = token_file_;
  }
  void TearDown() override {
    ServerTest::TearDown();
    std::remove(token_file_.c_str());
  }

  static void Bearer(grpc::ClientContext* ctx, const std::string& token) {
    ctx->AddMetadata("authorization", "Bearer " + token);
  }
  grpc::Status Create(const std::string& token, const std::string& id) {
    grpc::ClientContext ctx;
    if (!token.empty()) Bearer(&ctx, token);
    v1::CreateWorldRequest req;
    req.set_world_id(id);
    *req.mutable_scene() = BallScene();
    v1::World out;
    return worlds_->CreateWorld(&ctx, req, &out);
  }
  grpc::Status AddBall(const std::string& token, const std::string& id) {
    grpc::ClientContext ctx;
    Bearer(&ctx, token);
    v1::CreateBodyRequest req;
    req.set_parent("worlds/pile");
    req.mutable_body()->set_id(id);
    req.mutable_body()->mutable_shape()->mutable_sphere()->set_radius(0.1);
    v1::Body out;
    return scenes_->CreateBody(&ctx, req, &out);
  }
  grpc::Status Get(const std::string& token) {
    grpc::ClientContext ctx;
    Bearer(&ctx, token);
    v1::GetWorldRequest req;
    req.set_name("worlds/pile");
    v1::World out;
    return worlds_->GetWorld(&ctx, req, &out);
  }

  std::string token_file_;
};

TEST_F(AuthTest, RolesDecideWhatACallerMayDo) {
  EXPECT_EQ(Create("", "pile").error_code(), grpc::UNAUTHENTICATED);
  EXPECT_EQ(Create("forged", "pile").error_code(), grpc::UNAUTHENTICATED);
  EXPECT_EQ(Create("editor-t", "pile").error_code(), grpc::PERMISSION_DENIED);
  ASSERT_TRUE(Create("owner-t", "pile").ok());

  EXPECT_TRUE(Get("viewer-t").ok());
  const grpc::Status denied = AddBall("viewer-t", "b1");
  EXPECT_EQ(denied.error_code(), grpc::PERMISSION_DENIED);
  EXPECT_NE(denied.error_message().find("editor role on world pile"), std::string::npos);
  EXPECT_TRUE(AddBall("editor-t", "b1").ok());

  // A viewer watches.
  {
    grpc::ClientContext ctx;
    Bearer(&ctx, "viewer-t");
    v1::WatchRequest req;
    req.set_world("worlds/pile");
    auto reader = sessions_->Watch(&ctx, req);
    v1::Frame f;
    EXPECT_TRUE(reader->Read(&f));
    ctx.TryCancel();
    while (reader->Read(&f)) {
    }
    reader->Finish();
  }
  // Interact needs an editor: a viewer's stream ends with PERMISSION_DENIED.
  {
    grpc::ClientContext ctx;
    Bearer(&ctx, "viewer-t");
    auto stream = sessions_->Interact(&ctx);
    v1::InteractRequest first;
    first.set_world("worlds/pile");
    stream->Write(first);
    v1::Frame f;
    while (stream->Read(&f)) {
    }
    EXPECT_EQ(stream->Finish().error_code(), grpc::PERMISSION_DENIED);
  }
  // Deleting is the owner's.
  grpc::ClientContext del_ctx;
  Bearer(&del_ctx, "editor-t");
  v1::DeleteWorldRequest del;
  del.set_name("worlds/pile");
  v1::DeleteWorldResponse resp;
  EXPECT_EQ(worlds_->DeleteWorld(&del_ctx, del, &resp).error_code(), grpc::PERMISSION_DENIED);
}

// A viewer of one world lists only that world.
// Assets belong to no world: any role reads them, the editor role on some world uploads,
// only the owner of every world deletes.
TEST_F(AuthTest, AssetRoles) {
  auto assets = v1::AssetService::NewStub(channel_);
  v1::UploadAssetRequest upload;
  for (const auto& [x, z] : {std::pair(0.0, 0.0), std::pair(0.0, 1.0), std::pair(1.0, 0.0)}) {
    v1::Vec3* v = upload.mutable_asset()->mutable_mesh()->add_vertices();
    v->set_x(x);
    v->set_z(z);
  }
  for (const uint32_t i : {0u, 1u, 2u}) upload.mutable_asset()->mutable_mesh()->add_indices(i);
  auto upload_as = [&](const std::string& token, v1::Asset* out) {
    grpc::ClientContext ctx;
    if (!token.empty()) Bearer(&ctx, token);
    return assets->UploadAsset(&ctx, upload, out);
  };
  v1::Asset stored;
  EXPECT_EQ(upload_as("", &stored).error_code(), grpc::UNAUTHENTICATED);
  EXPECT_EQ(upload_as("viewer-t", &stored).error_code(), grpc::PERMISSION_DENIED);
  ASSERT_TRUE(upload_as("editor-t", &stored).ok());

  grpc::ClientContext get_ctx;
  Bearer(&get_ctx, "viewer-t");
  v1::GetAssetRequest get;
  get.set_name(stored.name());
  v1::Asset read;
  EXPECT_TRUE(assets->GetAsset(&get_ctx, get, &read).ok());

  auto delete_as = [&](const std::string& token) {
    grpc::ClientContext ctx;
    Bearer(&ctx, token);
    v1::DeleteAssetRequest req;
    req.set_name(stored.name());
    v1::DeleteAssetResponse out;
    return assets->DeleteAsset(&ctx, req, &out);
  };
  const grpc::Status refused = delete_as("editor-t");
  EXPECT_EQ(refused.error_code(), grpc::PERMISSION_DENIED);
  EXPECT_NE(refused.error_message().find("every world"), std::string::npos);
  EXPECT_TRUE(delete_as("owner-t").ok());
}

TEST_F(AuthTest, ListShowsOnlyViewableWorlds) {
  ASSERT_TRUE(Create("owner-t", "pile").ok());
  ASSERT_TRUE(Create("owner-t", "secret").ok());
  grpc::ClientContext ctx;
  Bearer(&ctx, "viewer-t");
  v1::ListWorldsRequest req;
  v1::ListWorldsResponse resp;
  ASSERT_TRUE(worlds_->ListWorlds(&ctx, req, &resp).ok());
  ASSERT_EQ(resp.worlds_size(), 1);
  EXPECT_EQ(resp.worlds(0).name(), "worlds/pile");
}

// A reloaded token file takes effect for the next call.
TEST_F(AuthTest, ReloadTakesEffect) {
  ASSERT_TRUE(Create("owner-t", "pile").ok());
  EXPECT_EQ(Get("late-t").error_code(), grpc::UNAUTHENTICATED);
  std::ofstream(token_file_) << "late-t viewer pile\n";
  ASSERT_TRUE(server_->ReloadTokens().ok());
  EXPECT_TRUE(Get("late-t").ok());
  EXPECT_EQ(Get("owner-t").error_code(), grpc::UNAUTHENTICATED);
}

// A self-signed server certificate and a client certificate (its own CA), made by openssl.
class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = TempPath("tls");
    const std::string cmd =
        "mkdir -p " + dir_ + " && cd " + dir_ +
        " && openssl req -x509 -newkey rsa:2048 -nodes -keyout server.key -out server.pem"
        " -days 1 -subj /CN=localhost -addext subjectAltName=DNS:localhost,IP:127.0.0.1"
        " 2>/dev/null"
        " && openssl req -x509 -newkey rsa:2048 -nodes -keyout client.key -out client.pem"
        " -days 1 -subj /CN=client 2>/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << "openssl failed";
  }
  void TearDown() override {
    if (server_) server_->Shutdown(absl::Milliseconds(200));
    std::system(("rm -rf " + dir_).c_str());
  }

  void StartServer(bool mutual) {
    ServerOptions options;
    options.listen_address = "127.0.0.1:0";
    options.tls_cert = dir_ + "/server.pem";
    options.tls_key = dir_ + "/server.key";
    if (mutual) options.tls_client_ca = dir_ + "/client.pem";
    server_ = std::make_unique<Server>(options);
    ASSERT_TRUE(server_->Start().ok());
  }

  // ListWorlds over TLS, trusting the server's certificate; with the client's key pair
  // when `present`.
  grpc::Status List(bool present) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = ReadAll(dir_ + "/server.pem");
    if (present) {
      ssl.pem_private_key = ReadAll(dir_ + "/client.key");
      ssl.pem_cert_chain = ReadAll(dir_ + "/client.pem");
    }
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride("localhost");
    auto channel = grpc::CreateCustomChannel(
        "127.0.0.1:" + std::to_string(server_->port()), grpc::SslCredentials(ssl), args);
    auto stub = v1::WorldService::NewStub(channel);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::ListWorldsRequest req;
    v1::ListWorldsResponse resp;
    return stub->ListWorlds(&ctx, req, &resp);
  }

  std::string dir_;
  std::unique_ptr<Server> server_;
};

TEST_F(TlsTest, ServesOverTlsOnly) {
  StartServer(false);
  const grpc::Status s = List(false);
  EXPECT_TRUE(s.ok()) << s.error_message();
  // A plaintext client cannot talk to it.
  auto plain = v1::WorldService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials()));
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  v1::ListWorldsRequest req;
  v1::ListWorldsResponse resp;
  EXPECT_FALSE(plain->ListWorlds(&ctx, req, &resp).ok());
}

TEST_F(TlsTest, MutualTlsNeedsTheClientCertificate) {
  StartServer(true);
  EXPECT_FALSE(List(false).ok());
  const grpc::Status s = List(true);
  EXPECT_TRUE(s.ok()) << s.error_message();
}

// Without TLS, a non-loopback address is refused unless allowed.
TEST(InsecureTest, NonLoopbackNeedsAllowInsecure) {
  ServerOptions options;
  options.listen_address = "0.0.0.0:0";
  Server refused(options);
  const absl::Status s = refused.Start();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("--allow_insecure"), std::string::npos);
  options.allow_insecure = true;
  Server allowed(options);
  EXPECT_TRUE(allowed.Start().ok());
  allowed.Shutdown(absl::Milliseconds(100));
}

}  // namespace
}  // namespace ligature::testing
