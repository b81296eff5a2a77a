#include "clients/cpp/cli/cli.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "absl/strings/str_split.h"
#include "clients/cpp/tests/fake_server.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"

namespace ligature::client::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::StartsWith;

// The outcome of one run of the tool.
struct ToolRun {
  int code = -1;
  std::string out;
  std::string err;
};

ToolRun RunTool(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  ToolRun run;
  run.code = RunCli(args, out, err);
  run.out = out.str();
  run.err = err.str();
  return run;
}

class CliTest : public ::testing::Test {
 protected:
  // Runs the tool against the fake server.
  ToolRun RunAgainstServer(std::vector<std::string> args) {
    args.push_back("--server");
    args.push_back(server_.address());
    return RunTool(args);
  }

  FakeServer server_;
};

TEST(CliHelpTest, HelpPrintsUsageAndSucceeds) {
  for (const auto& args :
       std::vector<std::vector<std::string>>{{"help"}, {"--help"}, {"worlds", "list", "--help"}}) {
    ToolRun run = RunTool(args);
    EXPECT_EQ(run.code, 0);
    EXPECT_THAT(run.out, StartsWith("usage: ligature"));
    EXPECT_THAT(run.out, HasSubstr("bodies create W --id ID --shape SHAPE"));
    EXPECT_THAT(run.err, IsEmpty());
  }
}

TEST(CliUsageTest, UsageErrorsExitWithTwo) {
  const std::vector<std::vector<std::string>> cases = {
      {},
      {"frobnicate"},
      {"worlds"},
      {"worlds", "get"},
      {"worlds", "get", "a", "b"},
      {"worlds", "create"},
      {"worlds", "create", "--scene", "default", "--bogus"},
      {"worlds", "update", "a"},
      {"worlds", "update", "a", "--paused", "maybe"},
      {"worlds", "update", "a", "--gravity", "1,2"},
      {"step", "a", "ten"},
      {"watch", "a", "--for", "-1"},
      {"bodies", "create", "a", "--id", "b", "--shape", "box:1,2"},
      {"bodies", "create", "a", "--shape", "plane"},
      {"bodies", "update", "a", "b"},
      {"bodies", "update", "a", "b", "--pos", "x,y,z"},
      {"worlds", "list", "--timeout", "0"},
  };
  for (const auto& args : cases) {
    ToolRun run = RunTool(args);
    const std::string joined = ::testing::PrintToString(args);
    EXPECT_EQ(run.code, 2) << joined;
    EXPECT_THAT(run.err, StartsWith("error: ")) << joined;
    EXPECT_THAT(run.err, HasSubstr("usage: ligature")) << joined;
    EXPECT_THAT(run.out, IsEmpty()) << joined;
  }
}

TEST(CliUsageTest, UsageErrorNamesTheProblem) {
  ToolRun run = RunTool({"bodies", "create", "a", "--id", "b", "--shape", "box:1,2"});
  EXPECT_THAT(run.err, StartsWith("error: --shape: expected box:HX,HY,HZ, got \"1,2\"\n"));
  EXPECT_THAT(run.err, HasSubstr("usage: ligature bodies create W --id ID --shape SHAPE"));
}

TEST_F(CliTest, RpcErrorsPrintCodeAndExitWithOne) {
  ToolRun run = RunAgainstServer({"worlds", "get", "missing"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "error: NOT_FOUND: worlds/missing not found\n");

  run = RunAgainstServer({"worlds", "create", "--id", "exists", "--scene", "default"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "error: ALREADY_EXISTS: worlds/exists already exists\n");
}

TEST(CliErrorTest, UnreachableServerIsUnavailable) {
  ToolRun run = RunTool({"worlds", "list", "--server", "127.0.0.1:1"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("error: UNAVAILABLE: "));
}

TEST_F(CliTest, GlobalFlagsMayPrecedeTheCommand) {
  server_.set_world_count(3);
  ToolRun run = RunTool({"--server", server_.address(), "worlds", "list"});
  EXPECT_EQ(run.code, 0) << run.err;
  const std::vector<std::string> lines = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_THAT(lines[0], StartsWith("worlds/w0 running tick=0"));
}

TEST_F(CliTest, WorldsCreatePrintsNameAndPicksSceneSource) {
  ToolRun run = RunAgainstServer({"worlds", "create", "--id", "demo", "--scene", "default"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "worlds/demo\n");
  EXPECT_EQ(server_.recorded().create_world.scene_name(), "default");

  const std::string path = ::testing::TempDir() + "cli_test_scene.json";
  std::ofstream(path) << R"({"settings": {"rateHz": 50}})";
  run = RunAgainstServer({"worlds", "create", "--scene", path});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "worlds/generated\n");
  EXPECT_EQ(server_.recorded().create_world.scene().settings().rate_hz(), 50);
}

TEST_F(CliTest, WorldsCreateReportsBadSceneFile) {
  const std::string path = ::testing::TempDir() + "cli_test_bad.textproto";
  std::ofstream(path) << "settings { rate_hz: }";
  ToolRun run = RunAgainstServer({"worlds", "create", "--scene", path});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("error: INVALID_ARGUMENT: scene file " + path));
}

TEST_F(CliTest, WorldsUpdateBuildsMaskFromFlags) {
  ToolRun run = RunAgainstServer(
      {"worlds", "update", "worlds/demo", "--paused", "true", "--iterations", "40"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("worlds/demo paused"));
  const ligature::v1::UpdateWorldRequest request = server_.recorded().update_world;
  EXPECT_EQ(request.world().name(), "worlds/demo");
  EXPECT_THAT(request.update_mask().paths(),
              ElementsAre("settings.paused", "settings.solver.max_iterations"));
  EXPECT_TRUE(request.world().settings().paused());
  EXPECT_EQ(request.world().settings().solver().max_iterations(), 40);

  run = RunAgainstServer({"worlds", "update", "demo", "--rate", "30", "--gravity", "0,-1.6,0"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(server_.recorded().update_world.update_mask().paths(),
              ElementsAre("settings.rate_hz", "settings.gravity"));
  EXPECT_EQ(server_.recorded().update_world.world().settings().gravity().y(), -1.6);

  run = RunAgainstServer({"worlds", "update", "demo", "--solver", "tunable", "--budget-us", "500"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(server_.recorded().update_world.update_mask().paths(),
              ElementsAre("settings.solver.kind", "settings.solver.time_budget_us"));
  EXPECT_EQ(server_.recorded().update_world.world().settings().solver().kind(),
            ligature::v1::SOLVER_KIND_TUNABLE_LCP);
  EXPECT_EQ(server_.recorded().update_world.world().settings().solver().time_budget_us(), 500);

  run = RunAgainstServer({"worlds", "update", "demo", "--substeps", "4"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(server_.recorded().update_world.update_mask().paths(),
              ElementsAre("settings.solver.substeps"));
  EXPECT_EQ(server_.recorded().update_world.world().settings().solver().substeps(), 4);

  run = RunAgainstServer({"worlds", "update", "demo", "--sleep", "true"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(server_.recorded().update_world.update_mask().paths(), ElementsAre("settings.sleep"));
  EXPECT_TRUE(server_.recorded().update_world.world().settings().sleep().enabled());

  run = RunAgainstServer({"worlds", "update", "demo", "--solver", "fastest"});
  EXPECT_EQ(run.code, 2);
}

TEST_F(CliTest, WorldsGetAndDelete) {
  ToolRun run = RunAgainstServer({"worlds", "get", "demo"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("name: \"worlds/demo\""));
  EXPECT_THAT(run.out, HasSubstr("tick: 7"));

  run = RunAgainstServer({"worlds", "delete", "demo"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(server_.recorded().delete_world.name(), "worlds/demo");
}

TEST_F(CliTest, StepPrintsFrameLine) {
  ToolRun run = RunAgainstServer({"step", "demo", "5"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("worlds/demo tick=5 "));
  EXPECT_EQ(server_.recorded().step_world.ticks(), 5);

  run = RunAgainstServer({"step", "demo", "0"});
  EXPECT_EQ(run.code, 1);
  EXPECT_THAT(run.err, StartsWith("error: INVALID_ARGUMENT: "));
}

TEST_F(CliTest, BodiesCreateBuildsBody) {
  ToolRun run =
      RunAgainstServer({"bodies", "create", "demo", "--id", "crate", "--shape", "box:0.5,0.5,0.5",
                        "--pos", "0,3,0", "--vel", "1,0,0", "--mass", "2", "--friction", "0.8"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(run.out, "worlds/demo/bodies/crate\n");
  const ligature::v1::CreateBodyRequest request = server_.recorded().create_body;
  EXPECT_EQ(request.parent(), "worlds/demo");
  EXPECT_EQ(request.body().id(), "crate");
  EXPECT_EQ(request.body().kind(), ligature::v1::BODY_KIND_UNSPECIFIED);
  EXPECT_EQ(request.body().shape().box().half_extents().y(), 0.5);
  EXPECT_EQ(request.body().pose().position().y(), 3);
  EXPECT_EQ(request.body().linear_velocity().x(), 1);
  EXPECT_EQ(request.body().material().mass(), 2);
  EXPECT_EQ(request.body().material().friction(), 0.8);
  EXPECT_EQ(request.body().material().density(), 0);
}

TEST_F(CliTest, BodiesCreatePlaneDefaultsToStatic) {
  ToolRun run = RunAgainstServer({"bodies", "create", "demo", "--id", "floor", "--shape", "plane"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(server_.recorded().create_body.body().kind(), ligature::v1::BODY_KIND_STATIC);

  run = RunAgainstServer(
      {"bodies", "create", "demo", "--id", "mover", "--shape", "plane", "--kind", "kinematic"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(server_.recorded().create_body.body().kind(), ligature::v1::BODY_KIND_KINEMATIC);
}

TEST_F(CliTest, BodiesUpdateSendsOnlyTheFlagsGiven) {
  ToolRun run = RunAgainstServer({"bodies", "update", "demo", "ball", "--pos", "1,2,3", "--vel",
                                  "0,0,1", "--kind", "kinematic"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, StartsWith("worlds/demo/bodies/ball kinematic p=(1.000,2.000,3.000)"));
  const ligature::v1::UpdateBodyRequest request = server_.recorded().update_body;
  EXPECT_EQ(request.body().name(), "worlds/demo/bodies/ball");
  EXPECT_THAT(request.update_mask().paths(),
              ElementsAre("pose.position", "linear_velocity", "kind"));
  EXPECT_EQ(request.body().pose().position().z(), 3);
  EXPECT_EQ(request.body().linear_velocity().z(), 1);
  EXPECT_EQ(request.body().kind(), ligature::v1::BODY_KIND_KINEMATIC);
}

TEST_F(CliTest, BodiesUpdateOrientationAloneNormalizesTheQuaternion) {
  ToolRun run = RunAgainstServer({"bodies", "update", "demo", "ball", "--quat", "0,0,0,2",
                                  "--kind", "dynamic"});
  EXPECT_EQ(run.code, 0) << run.err;
  const ligature::v1::UpdateBodyRequest request = server_.recorded().update_body;
  EXPECT_THAT(request.update_mask().paths(), ElementsAre("pose.orientation", "kind"));
  EXPECT_EQ(request.body().pose().orientation().w(), 1);
  EXPECT_EQ(request.body().kind(), ligature::v1::BODY_KIND_DYNAMIC);
}

TEST_F(CliTest, BodiesUpdateWithBadKindIsAUsageError) {
  ToolRun run = RunAgainstServer({"bodies", "update", "demo", "ball", "--kind", "floaty"});
  EXPECT_EQ(run.code, 2);
}

TEST_F(CliTest, BodiesDelete) {
  ToolRun run = RunAgainstServer({"bodies", "delete", "demo", "ball"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_EQ(server_.recorded().delete_body.name(), "worlds/demo/bodies/ball");
}

TEST_F(CliTest, SceneExportTextAndJson) {
  ligature::v1::Scene scene;
  scene.mutable_settings()->set_rate_hz(90);
  scene.add_bodies()->set_id("ball");
  server_.set_scene(scene);

  ToolRun run = RunAgainstServer({"scene", "export", "demo"});
  EXPECT_EQ(run.code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("# proto-message: ligature.v1.Scene\n"));
  EXPECT_THAT(run.out, HasSubstr("rate_hz: 90"));

  run = RunAgainstServer({"scene", "export", "demo", "--json"});
  EXPECT_EQ(run.code, 0) << run.err;
  ligature::v1::Scene parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(run.out, &parsed).ok()) << run.out;
  EXPECT_EQ(parsed.settings().rate_hz(), 90);
  EXPECT_EQ(parsed.bodies(0).id(), "ball");
}

TEST_F(CliTest, WatchForDurationPrintsLines) {
  ToolRun run =
      RunAgainstServer({"watch", "demo", "--for", "0.3", "--bodies", "ball", "--rate", "20"});
  EXPECT_EQ(run.code, 0) << run.err;
  const std::vector<std::string> lines = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
  ASSERT_FALSE(lines.empty());
  EXPECT_THAT(lines[0], StartsWith("worlds/demo tick=1 "));
  EXPECT_THAT(lines[0], HasSubstr(" ball p="));
  EXPECT_THAT(lines[0], Not(HasSubstr(" box p=")));
  const ligature::v1::WatchRequest request = server_.recorded().watch;
  EXPECT_EQ(request.max_rate_hz(), 20);
  EXPECT_THAT(request.body_ids(), ElementsAre("ball"));
}

TEST_F(CliTest, EventsPrintOneLineEachAndSendTheFilters) {
  ToolRun run = RunAgainstServer(
      {"events", "demo", "--kinds", "begin,trigger_enter", "--min-impulse", "0.5"});
  EXPECT_EQ(run.code, 0) << run.err;
  const std::vector<std::string> lines = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 2u) << run.out;
  EXPECT_EQ(lines[0], "tick 1 contact_begin ground ball impulse 0.75 N s speed 3.5 m/s points 1");
  EXPECT_EQ(lines[1], "tick 1 trigger_enter zone shape 0 ball");
  const ligature::v1::WatchEventsRequest request = server_.recorded().watch_events;
  EXPECT_EQ(request.world(), "worlds/demo");
  EXPECT_THAT(request.kinds(),
              ElementsAre(ligature::v1::CONTACT_BEGIN, ligature::v1::TRIGGER_ENTER));
  EXPECT_EQ(request.min_impulse(), 0.5);
  EXPECT_EQ(RunTool({"events", "demo", "--kinds", "bounce"}).code, 2);
}

TEST_F(CliTest, WatchJsonLinesParse) {
  server_.set_watch_frames(3);
  ToolRun run = RunAgainstServer({"watch", "demo", "--json"});
  EXPECT_EQ(run.code, 0) << run.err;
  const std::vector<std::string> lines = absl::StrSplit(run.out, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 3u);
  for (size_t i = 0; i < lines.size(); ++i) {
    ligature::v1::Frame frame;
    ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(lines[i], &frame).ok()) << lines[i];
    EXPECT_EQ(frame.tick(), i + 1);
  }
}

TEST_F(CliTest, WatchOfMissingWorldFails) {
  ToolRun run = RunAgainstServer({"watch", "missing", "--for", "5"});
  EXPECT_EQ(run.code, 1);
  EXPECT_EQ(run.err, "error: NOT_FOUND: worlds/missing not found\n");
}

// Reads from `fd` into `output` until it holds a newline, the writer closes, or `timeout`
// passes.
void ReadFirstLine(int fd, std::string& output, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  while (output.find('\n') == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    pollfd poll_fd = {.fd = fd, .events = POLLIN, .revents = 0};
    if (left.count() <= 0 || poll(&poll_fd, 1, static_cast<int>(left.count())) <= 0) return;
    const ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n <= 0) return;
    output.append(buffer, n);
  }
}

// Waits up to `timeout` for `pid` to end; kills it if it does not. Returns its wait status,
// or -1 when it had to be killed.
int WaitOrKill(pid_t pid, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return status;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return -1;
}

// Runs the real binary, interrupts it with SIGINT once frames flow, and expects a clean
// exit: the stream is cancelled and the process ends with code 0.
TEST_F(CliTest, WatchStopsCleanlyOnSigint) {
  const std::string address = server_.address();
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    // Only async-signal-safe calls between fork and exec.
    dup2(pipe_fds[1], STDOUT_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    execl(LIGATURE_CLI_PATH, "ligature", "watch", "demo", "--server", address.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(pipe_fds[1]);

  std::string output;
  ReadFirstLine(pipe_fds[0], output, std::chrono::seconds(10));
  EXPECT_THAT(output, StartsWith("worlds/demo tick=1 "));
  EXPECT_EQ(kill(pid, SIGINT), 0);

  // Closing our end would make the child's next write fail; keep reading until it exits.
  std::jthread drain([fd = pipe_fds[0]] {
    char buffer[4096];
    while (read(fd, buffer, sizeof(buffer)) > 0) {
    }
  });
  const int status = WaitOrKill(pid, std::chrono::seconds(10));
  drain.join();
  close(pipe_fds[0]);
  ASSERT_NE(status, -1) << "watch did not stop after SIGINT";
  ASSERT_TRUE(WIFEXITED(status)) << "child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace ligature::client::cli
