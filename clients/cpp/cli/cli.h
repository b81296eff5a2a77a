#pragma once
// Entry point of the `ligature` command-line tool, separate from main() so that tests can
// run it with their own arguments and streams.

#include <ostream>
#include <string>
#include <vector>

namespace ligature::client::cli {

// The server address used when --server is not given.
inline constexpr char kDefaultServer[] = "127.0.0.1:50051";
// The environment variable that holds the bearer token when --token is not given.
inline constexpr char kTokenEnvironmentVariable[] = "LIGATURE_TOKEN";

// Runs the tool on `args` (argv without the program name). Returns the exit code: 0 on
// success, 1 when a call fails ("error: CODE: message" on `err`), 2 on a usage error
// (message and usage on `err`).
int RunCli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// The full help text.
std::string UsageText();

}  // namespace ligature::client::cli
