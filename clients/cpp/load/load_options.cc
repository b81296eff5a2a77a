#include "clients/cpp/load/load_options.h"

#include <cstdlib>
#include <map>
#include <functional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace ligature::load {
namespace {

template <typename T>
std::function<bool(const std::string&)> Number(T* out) {
  return [out](const std::string& v) {
    if constexpr (std::is_same_v<T, double>) {
      return absl::SimpleAtod(v, out);
    } else {
      return absl::SimpleAtoi(v, out);
    }
  };
}

std::function<bool(const std::string&)> Text(std::string* out) {
  return [out](const std::string& v) {
    *out = v;
    return true;
  };
}

std::function<bool(const std::string&)> Bool(bool* out) {
  return [out](const std::string& v) {
    if (v != "true" && v != "false") return false;
    *out = v == "true";
    return true;
  };
}

}  // namespace

std::string LoadUsage() {
  return "usage: ligature-load (--address=HOST:PORT [--server_pid=PID] | --spawn=LIGATURED)\n"
         "  [--worlds=N] [--watchers=M] [--haptics=K] [--edit_rate=PER_WORLD_PER_S]\n"
         "  [--duration=S] [--warmup=S] [--rss_interval=S] [--check_interval=S]\n"
         "  [--rate_hz=HZ] [--balls=N] [--max_live_edits=N] [--seed=N]\n"
         "  [--server_args='FLAGS'] [--server_log=PATH]\n"
         "  [--tls=true [--tls_ca=FILE] [--tls_cert=FILE --tls_key=FILE]]\n"
         "  [--token=TOKEN (default: $LIGATURE_TOKEN)]\n";
}

absl::StatusOr<LoadOptions> ParseLoadOptions(int argc, char** argv) {
  LoadOptions o;
  if (const char* token = std::getenv("LIGATURE_TOKEN")) o.credentials.token = token;
  const std::map<std::string, std::function<bool(const std::string&)>> flags = {
      {"address", Text(&o.address)},
      {"spawn", Text(&o.spawn)},
      {"server_args", Text(&o.server_args)},
      {"server_log", Text(&o.server_log)},
      {"server_pid", Number(&o.server_pid)},
      {"worlds", Number(&o.worlds)},
      {"watchers", Number(&o.watchers)},
      {"haptics", Number(&o.haptics)},
      {"edit_rate", Number(&o.edit_rate)},
      {"duration", Number(&o.duration_s)},
      {"warmup", Number(&o.warmup_s)},
      {"rss_interval", Number(&o.rss_interval_s)},
      {"check_interval", Number(&o.check_interval_s)},
      {"rate_hz", Number(&o.rate_hz)},
      {"balls", Number(&o.balls)},
      {"max_live_edits", Number(&o.max_live_edits)},
      {"seed", Number(&o.seed)},
      {"tls", Bool(&o.credentials.tls)},
      {"tls_ca", Text(&o.credentials.ca_file)},
      {"tls_cert", Text(&o.credentials.cert_file)},
      {"tls_key", Text(&o.credentials.key_file)},
      {"token", Text(&o.credentials.token)},
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      return absl::InvalidArgumentError(absl::StrCat("expected --name=value, got ", arg));
    }
    const std::string name = arg.substr(2, eq - 2);
    auto it = flags.find(name);
    if (it == flags.end()) return absl::InvalidArgumentError(absl::StrCat("unknown flag --", name));
    if (!it->second(arg.substr(eq + 1))) {
      return absl::InvalidArgumentError(absl::StrCat("--", name, ": bad value ", arg.substr(eq + 1)));
    }
  }
  if (o.address.empty() == o.spawn.empty()) {
    return absl::InvalidArgumentError("give exactly one of --address and --spawn");
  }
  if (o.worlds < 1 || o.watchers < 0 || o.haptics < 0 || o.haptics > o.worlds * 8) {
    return absl::InvalidArgumentError("--worlds >= 1, --watchers >= 0, 0 <= --haptics <= 8 per world");
  }
  if (!(o.edit_rate >= 0) || !(o.duration_s > 0) || !(o.rss_interval_s > 0) ||
      !(o.check_interval_s > 0) || !(o.rate_hz >= 1 && o.rate_hz <= 1000)) {
    return absl::InvalidArgumentError(
        "--edit_rate >= 0, --duration, --rss_interval, --check_interval > 0, --rate_hz in [1, 1000]");
  }
  // The credential files are read and checked here, before anything starts.
  if (auto maker = client::ChannelMaker::Create(o.credentials); !maker.ok()) return maker.status();
  return o;
}

}  // namespace ligature::load
