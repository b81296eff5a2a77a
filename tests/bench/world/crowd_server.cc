#include "tests/bench/world/crowd_server.h"

#include <cstdio>

#include "absl/strings/str_cat.h"
#include "server/rpc/server.h"
#include "tests/bench/child_process.h"
#include "tests/bench/rigid/scene_bench.h"

namespace ligature::bench {

int ServeCrowdWorld(const std::string& scene) {
  ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  Server server(options);
  absl::Status started = server.Start();
  absl::StatusOr<SceneDesc> desc = LoadScene(scene);
  if (started.ok() && !desc.ok()) started = desc.status();
  if (started.ok()) started = server.worlds().Create("crowd", *desc).status();
  if (!started.ok()) {
    std::fprintf(stderr, "crowd server: %s\n", started.ToString().c_str());
    return 1;
  }
  AnnounceAndWaitForParent(absl::StrCat("port ", server.port()));
  server.Shutdown(absl::Milliseconds(200));
  server.Wait();
  return 0;
}

}  // namespace ligature::bench
