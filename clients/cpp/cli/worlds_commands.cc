// Commands on worlds: worlds list|create|get|delete|update|save|restore, and step.

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/cli/command.h"
#include "clients/cpp/cli/output_format.h"
#include "server/base/status_macros.h"
#include "clients/cpp/cli/value_parse.h"
#include "clients/cpp/client.h"
#include "clients/cpp/frame_format.h"
#include "google/protobuf/text_format.h"

namespace ligature::client::cli {

namespace {

namespace v1 = ::ligature::v1;

// worlds list: one line per world.
absl::Status ListWorlds(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const std::vector<v1::World> worlds, client.ListWorlds());
  for (const v1::World& world : worlds) invocation.out << FormatWorldLine(world) << "\n";
  return absl::OkStatus();
}

// worlds create: prints the new world's name, which is all a script needs to go on.
absl::Status CreateWorld(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::string scene, RequiredFlag(invocation, "scene", Verbatim));
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<std::string> id,
                            OptionalFlag(invocation, "id", Verbatim));
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const v1::World world,
                            client.CreateWorldFromSpec(id.value_or(""), scene));
  invocation.out << world.name() << "\n";
  return absl::OkStatus();
}

// worlds get: the whole World message in text format.
absl::Status GetWorld(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const v1::World world, client.GetWorld(invocation.args.positional[0]));
  std::string text;
  google::protobuf::TextFormat::PrintToString(world, &text);
  invocation.out << text;
  return absl::OkStatus();
}

absl::Status DeleteWorld(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  return client.DeleteWorld(invocation.args.positional[0]);
}

// worlds update: each flag given sets one settings field and adds its path to the mask,
// so fields not mentioned keep their values.
absl::Status UpdateWorld(const Invocation& invocation) {
  v1::World changes;
  std::vector<std::string> mask;
  v1::WorldSettings* settings = changes.mutable_settings();

  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> rate,
                            OptionalFlag(invocation, "rate", ParseNumber));
  if (rate.has_value()) {
    settings->set_rate_hz(*rate);
    mask.push_back("settings.rate_hz");
  }
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<bool> paused,
                            OptionalFlag(invocation, "paused", ParseBool));
  if (paused.has_value()) {
    settings->set_paused(*paused);
    mask.push_back("settings.paused");
  }
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::Vec3> gravity,
                            OptionalFlag(invocation, "gravity", ParseVec3));
  if (gravity.has_value()) {
    *settings->mutable_gravity() = *gravity;
    mask.push_back("settings.gravity");
  }
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<int32_t> iterations,
                            OptionalFlag(invocation, "iterations", ParseInt32));
  if (iterations.has_value()) {
    settings->mutable_solver()->set_max_iterations(*iterations);
    mask.push_back("settings.solver.max_iterations");
  }
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<int32_t> substeps,
                            OptionalFlag(invocation, "substeps", ParseInt32));
  if (substeps.has_value()) {
    settings->mutable_solver()->set_substeps(*substeps);
    mask.push_back("settings.solver.substeps");
  }
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::SolverKind> solver,
                            OptionalFlag(invocation, "solver", ParseSolverKind));
  if (solver.has_value()) {
    settings->mutable_solver()->set_kind(*solver);
    mask.push_back("settings.solver.kind");
  }
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<double> budget,
                            OptionalFlag(invocation, "budget-us", ParseNumber));
  if (budget.has_value()) {
    settings->mutable_solver()->set_time_budget_us(*budget);
    mask.push_back("settings.solver.time_budget_us");
  }
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<bool> sleep,
                            OptionalFlag(invocation, "sleep", ParseBool));
  if (sleep.has_value()) {
    settings->mutable_sleep()->set_enabled(*sleep);
    mask.push_back("settings.sleep");
  }
  if (mask.empty()) {
    return UsageError(
        "nothing to update: give --rate, --paused, --gravity, --iterations, --substeps, "
        "--solver, --budget-us or --sleep");
  }

  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const v1::World world,
                            client.UpdateWorld(invocation.args.positional[0], changes, mask));
  invocation.out << FormatWorldLine(world) << "\n";
  return absl::OkStatus();
}

// step: advances a paused world and prints the resulting frame.
absl::Status StepWorld(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const int32_t ticks, PositionalArg(invocation, 1, "N", ParseInt32));
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const v1::Frame frame,
                            client.StepWorld(invocation.args.positional[0], ticks));
  invocation.out << FormatFrameText(frame) << "\n";
  return absl::OkStatus();
}

// save: writes a world's snapshot to a file.
absl::Status SaveSnapshot(const Invocation& invocation) {
  const std::string& path = invocation.args.positional[1];
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const v1::SaveSnapshotResponse saved,
                            client.SaveSnapshot(invocation.args.positional[0]));
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(saved.snapshot().data(), static_cast<std::streamsize>(saved.snapshot().size()));
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", path));
  invocation.out << "tick " << saved.tick() << ", " << saved.snapshot().size() << " bytes -> "
                 << path << "\n";
  return absl::OkStatus();
}

// restore: puts a snapshot file into a world (replaced, or created).
absl::Status RestoreSnapshot(const Invocation& invocation) {
  const std::string& path = invocation.args.positional[1];
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream bytes;
  bytes << in.rdbuf();
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(
      const v1::World world,
      client.RestoreSnapshot(invocation.args.positional[0], std::move(bytes).str()));
  invocation.out << FormatWorldLine(world) << "\n";
  return absl::OkStatus();
}

}  // namespace

std::vector<Command> WorldCommands() {
  return {
      {{"worlds", "list"}, {}, "", "List all worlds.", {}, ListWorlds},
      {{"worlds", "create"},
       {},
       "[--id ID] --scene FILE|NAME",
       "Create a world from a scene file or a built-in scene; prints its name.",
       {{"id"}, {"scene"}},
       CreateWorld},
      {{"worlds", "get"}, {"W"}, "", "Print a world (text format).", {}, GetWorld},
      {{"worlds", "delete"}, {"W"}, "", "Delete a world.", {}, DeleteWorld},
      {{"worlds", "save"},
       {"W", "FILE"},
       "",
       "Write the world's complete state (a WorldSnapshot) to FILE.",
       {},
       SaveSnapshot},
      {{"worlds", "restore"},
       {"W", "FILE"},
       "",
       "Put the snapshot in FILE into world W (replacing it, or creating it).",
       {},
       RestoreSnapshot},
      {{"worlds", "update"},
       {"W"},
       "[--rate HZ] [--paused true|false] [--gravity x,y,z] [--iterations N] "
       "[--substeps N] [--solver gauss-seidel|tunable] [--budget-us US] [--sleep true|false]",
       "Change world settings; only the flags given are changed.",
       {{"rate"},
        {"paused"},
        {"gravity"},
        {"iterations"},
        {"substeps"},
        {"solver"},
        {"budget-us"},
        {"sleep"}},
       UpdateWorld},
      {{"step"},
       {"W", "N"},
       "",
       "Advance a paused world by N ticks; prints the resulting frame.",
       {},
       StepWorld},
  };
}

}  // namespace ligature::client::cli
