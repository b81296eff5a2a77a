// The `ligature` command-line tool.

#include <iostream>
#include <string>
#include <vector>

#include "clients/cpp/cli/cli.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return ligature::client::cli::RunCli(args, std::cout, std::cerr);
}
