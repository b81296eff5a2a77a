// The C++ client library and the `ligature` tool against a real ligatured with TLS and a
// token file: each role gets exactly its rights, a missing or unknown token is refused, a
// client that does not trust the server's CA or (for mutual TLS) has no certificate cannot
// connect. Certificates are made by tests/security/make_certs.sh at test time.

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "clients/cpp/cli/cli.h"
#include "clients/cpp/client.h"
#include "clients/cpp/haptic_session.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ligature::client {
namespace {

using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// A ligatured process on a free loopback port, stopped (SIGTERM, then SIGKILL) when
// destroyed; it also dies with the test process.
class ServerProcess {
 public:
  ServerProcess(const std::vector<std::string>& args, const std::string& log_path)
      : log_path_(log_path) {
    std::vector<std::string> argv = {LIGATURED_PATH, "--listen=127.0.0.1:0"};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (!freopen(log_path.c_str(), "w", stderr) || !freopen("/dev/null", "w", stdout)) {
        _exit(127);
      }
      std::vector<char*> c_argv;
      for (std::string& a : argv) c_argv.push_back(a.data());
      c_argv.push_back(nullptr);
      execv(c_argv[0], c_argv.data());
      _exit(127);
    }
    // The server prints the port it bound.
    const std::regex port_line(R"(serving on \S+ \(port (\d+)\))");
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (pid_ > 0 && std::chrono::steady_clock::now() < give_up) {
      std::smatch match;
      const std::string log = ReadFile(log_path_);
      if (std::regex_search(log, match, port_line)) {
        address_ = "127.0.0.1:" + match[1].str();
        return;
      }
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  ~ServerProcess() {
    if (pid_ <= 0) return;
    kill(pid_, SIGTERM);
    for (int i = 0; i < 500; ++i) {
      if (waitpid(pid_, nullptr, WNOHANG) == pid_) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }

  // host:port, or "" when the server did not start.
  const std::string& address() const { return address_; }
  std::string log() const { return ReadFile(log_path_); }

 private:
  pid_t pid_ = -1;
  std::string log_path_;
  std::string address_;
};

// One directory of certificates and a token file, and two servers: TLS with tokens, and
// mutual TLS with tokens.
class SecureServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new std::string(::testing::TempDir() + "/ligature_secure_" + std::to_string(getpid()));
    const std::string make = std::string("/bin/bash ") + MAKE_CERTS_SCRIPT + " " + *dir_;
    ASSERT_EQ(std::system(make.c_str()), 0) << "make_certs.sh failed";
    std::ofstream(*dir_ + "/tokens") << "# test tokens\n"
                                        "viewer-t viewer demo\n"
                                        "editor-t editor demo\n"
                                        "owner-t owner demo\n"
                                        "owner-t owner scratch\n"
                                        "expired-t owner * until=2020-01-01T00:00:00Z\n";
    const std::vector<std::string> common = {
        "--scene=default", "--world_id=demo", "--tls_cert=" + *dir_ + "/server.pem",
        "--tls_key=" + *dir_ + "/server.key", "--token_file=" + *dir_ + "/tokens"};
    tls_ = new ServerProcess(common, *dir_ + "/tls.log");
    std::vector<std::string> mutual = common;
    mutual.push_back("--tls_client_ca=" + *dir_ + "/ca.pem");
    mutual_ = new ServerProcess(mutual, *dir_ + "/mutual.log");
  }

  static void TearDownTestSuite() {
    delete tls_;
    delete mutual_;
    std::system(("rm -rf " + *dir_).c_str());
    delete dir_;
  }

  void SetUp() override {
    ASSERT_FALSE(tls_->address().empty()) << tls_->log();
    ASSERT_FALSE(mutual_->address().empty()) << mutual_->log();
  }

  static std::string Path(const std::string& name) { return *dir_ + "/" + name; }

  // TLS trusting the test CA, with `token`.
  static Credentials Tls(const std::string& token) {
    Credentials c;
    c.tls = true;
    c.ca_file = Path("ca.pem");
    c.token = token;
    return c;
  }
  static Credentials Mutual(const std::string& token) {
    Credentials c = Tls(token);
    c.cert_file = Path("client.pem");
    c.key_file = Path("client.key");
    return c;
  }

  static std::unique_ptr<Client> Connect(const std::string& address, const Credentials& c) {
    ClientOptions options;
    options.rpc_timeout = absl::Seconds(20);
    absl::StatusOr<std::unique_ptr<Client>> client = Client::Connect(address, c, options);
    EXPECT_TRUE(client.ok()) << client.status();
    return client.ok() ? *std::move(client) : nullptr;
  }

  // The code of a Watch of world demo that stops after its first frame.
  static absl::StatusCode WatchCode(Client& client) {
    WatchOptions options;
    options.world = "demo";
    options.duration = absl::Seconds(20);
    absl::StatusOr<WatchSummary> watched =
        client.Watch(options, [](const ligature::v1::Frame&) { return false; });
    if (watched.ok() && watched->frames != 1) return absl::StatusCode::kUnknown;
    return watched.status().code();
  }

  // The code of opening a haptic session on world demo (a stream that needs the editor
  // role). The tool does not exist: a caller with the role gets NOT_FOUND.
  static absl::StatusCode HapticCode(const Credentials& c) {
    absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
        MakeChannel(tls_->address(), c, grpc::ChannelArguments());
    if (!channel.ok()) return channel.status().code();
    ligature::v1::HapticOpen open;
    open.set_world("worlds/demo");
    open.set_tool_body_id("no-such-tool");
    open.set_device_id("secure-test");
    auto session = HapticSession::Open(*channel, open);
    if (session.ok()) (*session)->Close().IgnoreError();
    return session.status().code();
  }

  static ligature::v1::Body Ball(const std::string& id) {
    ligature::v1::Body body;
    body.set_id(id);
    body.mutable_shape()->mutable_sphere()->set_radius(0.1);
    body.mutable_pose()->mutable_position()->set_z(5.0);
    return body;
  }

  static std::string* dir_;
  static ServerProcess* tls_;
  static ServerProcess* mutual_;
};

std::string* SecureServerTest::dir_ = nullptr;
ServerProcess* SecureServerTest::tls_ = nullptr;
ServerProcess* SecureServerTest::mutual_ = nullptr;

TEST_F(SecureServerTest, ViewerReadsAndWatchesButDoesNotEdit) {
  auto client = Connect(tls_->address(), Tls("viewer-t"));
  ASSERT_NE(client, nullptr);
  EXPECT_TRUE(client->GetWorld("demo").ok());
  EXPECT_TRUE(client->ExportScene("demo").ok());
  EXPECT_EQ(WatchCode(*client), absl::StatusCode::kOk);
  absl::StatusOr<std::vector<ligature::v1::World>> worlds = client->ListWorlds();
  ASSERT_TRUE(worlds.ok()) << worlds.status();
  EXPECT_EQ(worlds->size(), 1u);

  const absl::StatusOr<ligature::v1::Body> created = client->CreateBody("demo", Ball("v-ball"));
  EXPECT_EQ(created.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(created.status().message(), HasSubstr("editor role on world demo"));
  EXPECT_EQ(client->SaveSnapshot("demo").status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(client->DeleteWorld("demo").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(HapticCode(Tls("viewer-t")), absl::StatusCode::kPermissionDenied);
}

TEST_F(SecureServerTest, EditorEditsButDoesNotOwn) {
  auto client = Connect(tls_->address(), Tls("editor-t"));
  ASSERT_NE(client, nullptr);
  const absl::StatusOr<ligature::v1::Body> created = client->CreateBody("demo", Ball("e-ball"));
  ASSERT_TRUE(created.ok()) << created.status();
  EXPECT_TRUE(client->DeleteBody("demo", "e-ball").ok());
  EXPECT_TRUE(client->SaveSnapshot("demo").ok());
  EXPECT_EQ(WatchCode(*client), absl::StatusCode::kOk);
  EXPECT_EQ(HapticCode(Tls("editor-t")), absl::StatusCode::kNotFound);

  ligature::v1::World changes;
  changes.mutable_settings()->set_rate_hz(30);
  EXPECT_EQ(client->UpdateWorld("demo", changes, {"settings.rate_hz"}).status().code(),
            absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(client->DeleteWorld("demo").code(), absl::StatusCode::kPermissionDenied);
  EXPECT_EQ(client->CreateWorldFromBuiltin("scratch", "default").status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST_F(SecureServerTest, OwnerCreatesConfiguresAndDeletesItsWorlds) {
  auto client = Connect(tls_->address(), Tls("owner-t"));
  ASSERT_NE(client, nullptr);
  absl::StatusOr<ligature::v1::World> created =
      client->CreateWorldFromBuiltin("scratch", "default");
  ASSERT_TRUE(created.ok()) << created.status();
  ligature::v1::World changes;
  changes.mutable_settings()->set_rate_hz(30);
  EXPECT_TRUE(client->UpdateWorld("scratch", changes, {"settings.rate_hz"}).ok());
  EXPECT_TRUE(client->CreateBody("scratch", Ball("o-ball")).ok());
  EXPECT_TRUE(client->DeleteWorld("scratch").ok());
  // Owner of demo and scratch only.
  EXPECT_EQ(client->CreateWorldFromBuiltin("elsewhere", "default").status().code(),
            absl::StatusCode::kPermissionDenied);
}

// Missing, unknown and expired tokens alike.
TEST_F(SecureServerTest, MissingOrUnknownTokenIsUnauthenticated) {
  for (const std::string token : {"", "forged-t", "viewer-t2", "Viewer-t", "expired-t"}) {
    SCOPED_TRACE("token '" + token + "'");
    auto client = Connect(tls_->address(), Tls(token));
    ASSERT_NE(client, nullptr);
    EXPECT_EQ(client->GetWorld("demo").status().code(), absl::StatusCode::kUnauthenticated);
    EXPECT_EQ(client->ListWorlds().status().code(), absl::StatusCode::kUnauthenticated);
    EXPECT_EQ(WatchCode(*client), absl::StatusCode::kUnauthenticated);
    EXPECT_EQ(HapticCode(Tls(token)), absl::StatusCode::kUnauthenticated);
  }
}

TEST_F(SecureServerTest, ClientWithoutTheCaFailsTheHandshake) {
  // The system's roots do not include the test CA.
  Credentials system_roots = Tls("viewer-t");
  system_roots.ca_file.clear();
  auto client = Connect(tls_->address(), system_roots);
  ASSERT_NE(client, nullptr);
  const absl::Status status = client->GetWorld("demo").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr("certificate verify failed"));

  // A plaintext client does not get through either.
  Credentials plaintext;
  plaintext.token = "viewer-t";
  auto plain = Connect(tls_->address(), plaintext);
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->GetWorld("demo").status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(SecureServerTest, MutualTlsNeedsTheClientCertificate) {
  auto without = Connect(mutual_->address(), Tls("viewer-t"));
  ASSERT_NE(without, nullptr);
  EXPECT_EQ(without->GetWorld("demo").status().code(), absl::StatusCode::kUnavailable);

  auto with = Connect(mutual_->address(), Mutual("viewer-t"));
  ASSERT_NE(with, nullptr);
  const absl::Status ok = with->GetWorld("demo").status();
  EXPECT_TRUE(ok.ok()) << ok;
  // The certificate does not stand in for a token.
  auto no_token = Connect(mutual_->address(), Mutual(""));
  ASSERT_NE(no_token, nullptr);
  EXPECT_EQ(no_token->GetWorld("demo").status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(SecureServerTest, BadCredentialsAreRefusedBeforeConnecting) {
  Credentials missing_ca = Tls("viewer-t");
  missing_ca.ca_file = Path("no-such.pem");
  EXPECT_EQ(Client::Connect(tls_->address(), missing_ca).status().code(),
            absl::StatusCode::kInvalidArgument);
  Credentials not_pem = Tls("viewer-t");
  not_pem.ca_file = Path("tokens");
  EXPECT_THAT(Client::Connect(tls_->address(), not_pem).status().message(),
              HasSubstr("no PEM data"));
  Credentials half = Tls("viewer-t");
  half.cert_file = Path("client.pem");
  EXPECT_EQ(Client::Connect(tls_->address(), half).status().code(),
            absl::StatusCode::kInvalidArgument);
  Credentials ca_without_tls;
  ca_without_tls.ca_file = Path("ca.pem");
  EXPECT_EQ(Client::Connect(tls_->address(), ca_without_tls).status().code(),
            absl::StatusCode::kInvalidArgument);
  for (const std::string& token : {std::string("two words"), std::string("line\nbreak"),
                                  std::string("nul\0byte", 8), std::string("caf\xc3\xa9")}) {
    EXPECT_EQ(Client::Connect(tls_->address(), Tls(token)).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

// The `ligature` tool, run in-process with its arguments.
struct CliResult {
  int code;
  std::string out;
  std::string err;
};

class SecureCliTest : public SecureServerTest {
 protected:
  void TearDown() override { unsetenv(cli::kTokenEnvironmentVariable); }

  static CliResult Run(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = cli::RunCli(args, out, err);
    return {code, out.str(), err.str()};
  }
  // Flags for the TLS server, trusting the test CA.
  static std::vector<std::string> Flags(const ServerProcess& server) {
    return {"--server", server.address(), "--tls", "--tls-ca", Path("ca.pem")};
  }
  static std::vector<std::string> Command(std::vector<std::string> words,
                                          const std::vector<std::string>& flags) {
    words.insert(words.end(), flags.begin(), flags.end());
    return words;
  }
};

TEST_F(SecureCliTest, RolesHoldThroughTheTool) {
  std::vector<std::string> viewer = Flags(*tls_);
  viewer.insert(viewer.end(), {"--token", "viewer-t"});
  CliResult r = Run(Command({"worlds", "get", "demo"}, viewer));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("worlds/demo"));
  r = Run(Command({"watch", "demo", "--for", "0.5"}, viewer));
  EXPECT_EQ(r.code, 0) << r.err;

  r = Run(Command({"worlds", "delete", "demo"}, viewer));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: PERMISSION_DENIED: this token lacks the owner role"));

  // The token from the environment.
  setenv(cli::kTokenEnvironmentVariable, "editor-t", 1);
  r = Run(Command({"bodies", "create", "demo", "--id", "cli-ball", "--shape", "sphere:0.1",
                   "--pos", "0,0,3"},
                  Flags(*tls_)));
  EXPECT_EQ(r.code, 0) << r.err;
  r = Run(Command({"bodies", "delete", "demo", "cli-ball"}, Flags(*tls_)));
  EXPECT_EQ(r.code, 0) << r.err;
  r = Run(Command({"worlds", "delete", "demo"}, Flags(*tls_)));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("PERMISSION_DENIED"));

  // --token wins over the environment.
  r = Run(Command({"worlds", "get", "demo", "--token", "forged-t"}, Flags(*tls_)));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: UNAUTHENTICATED: unknown token"));
}

TEST_F(SecureCliTest, MissingTokenIsReportedPlainly) {
  CliResult r = Run(Command({"worlds", "list"}, Flags(*tls_)));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: UNAUTHENTICATED: missing `authorization: Bearer TOKEN`"));
  r = Run(Command({"watch", "demo", "--for", "5"}, Flags(*tls_)));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: UNAUTHENTICATED"));
}

TEST_F(SecureCliTest, HandshakeFailuresSayWhy) {
  CliResult r = Run({"worlds", "list", "--server", tls_->address(), "--tls", "--token",
                     "viewer-t"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: UNAVAILABLE"));
  EXPECT_THAT(r.err, HasSubstr("hint: the server's certificate is not signed by a CA the "
                               "system trusts: give its CA with --tls-ca"));

  r = Run({"worlds", "list", "--server", tls_->address(), "--token", "viewer-t"});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: UNAVAILABLE"));

  std::vector<std::string> mutual = Flags(*mutual_);
  mutual.insert(mutual.end(), {"--token", "viewer-t"});
  r = Run(Command({"worlds", "list"}, mutual));
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("error: UNAVAILABLE"));
  mutual.insert(mutual.end(), {"--tls-cert", Path("client.pem"), "--tls-key", Path("client.key")});
  r = Run(Command({"worlds", "list"}, mutual));
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("worlds/demo"));
}

TEST_F(SecureCliTest, BadCredentialFlagsAreUsageErrors) {
  EXPECT_EQ(Run({"worlds", "list", "--tls-ca", Path("ca.pem")}).code, 2);
  EXPECT_EQ(Run({"worlds", "list", "--tls", "--tls-cert", Path("client.pem")}).code, 2);
  EXPECT_EQ(Run({"worlds", "list", "--token", "two words"}).code, 2);
  EXPECT_EQ(Run({"worlds", "list", "--token="}).code, 2);
  setenv(cli::kTokenEnvironmentVariable, "bad\ttoken", 1);
  CliResult r = Run({"worlds", "list"});
  EXPECT_EQ(r.code, 2);
  EXPECT_THAT(r.err, HasSubstr("LIGATURE_TOKEN"));
  unsetenv(cli::kTokenEnvironmentVariable);
  r = Run({"worlds", "list", "--server", tls_->address(), "--tls", "--tls-ca", Path("nope.pem")});
  EXPECT_EQ(r.code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot read CA file"));
}

}  // namespace
}  // namespace ligature::client
