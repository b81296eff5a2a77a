#include "tests/bench/world/crowd_server.h"

#include <grpcpp/server_builder.h>

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/gateway/gateway.h"
#include "server/rpc/server.h"
#include "tests/bench/child_process.h"
#include "tests/bench/rigid/scene_bench.h"
#include "tests/bench/world/fanout_floors.h"

namespace ligature::bench {

int ServeCrowdWorld(const std::string& spec) {
  const std::vector<std::string> words = absl::StrSplit(spec, ' ', absl::SkipEmpty());
  const std::string scene = words.empty() ? "default" : words[0];
  ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  if (words.size() > 1) options.publish = {words[1], {"crowd"}};
  Server server(options);
  absl::Status started = server.Start();
  absl::StatusOr<SceneDesc> desc = LoadScene(scene);
  if (started.ok() && !desc.ok()) started = desc.status();
  absl::StatusOr<std::shared_ptr<WorldHost>> world = absl::UnknownError("not created");
  if (started.ok()) world = server.worlds().Create("crowd", *desc);
  if (started.ok()) started = world.status();
  if (!started.ok()) {
    std::fprintf(stderr, "crowd server: %s\n", started.ToString().c_str());
    return 1;
  }
  // The floors serve the same world's frames on ports of their own.
  auto bare = std::make_unique<BareGrpcFanout>(*world);
  grpc::ServerBuilder builder;
  int bare_port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &bare_port);
  builder.RegisterService(bare.get());
  std::unique_ptr<grpc::Server> bare_server = builder.BuildAndStart();
  TcpFanout tcp(*world);
  if (bare_server == nullptr || tcp.port() == 0) return 1;

  AnnounceAndWaitForParent(absl::StrCat("ports ", server.port(), " ", bare_port, " ", tcp.port()));
  bare_server->Shutdown(std::chrono::system_clock::now() + std::chrono::milliseconds(200));
  bare_server->Wait();
  bare.reset();
  server.Shutdown(absl::Milliseconds(200));
  server.Wait();
  return 0;
}

int ServeGateway(const std::string& nats_url) {
  GatewayOptions options;
  options.frames.url = nats_url;
  options.serve.listen_address = "127.0.0.1:0";
  Gateway gateway(options);
  if (absl::Status s = gateway.Start(); !s.ok()) {
    std::fprintf(stderr, "gateway: %s\n", s.ToString().c_str());
    return 1;
  }
  AnnounceAndWaitForParent(absl::StrCat("port ", gateway.port()));
  gateway.Shutdown(absl::Milliseconds(200));
  gateway.Wait();
  return 0;
}

}  // namespace ligature::bench
