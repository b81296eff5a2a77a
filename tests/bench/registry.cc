#include "tests/bench/registry.h"

#include <algorithm>
#include <memory>
#include <utility>

#include "tests/bench/runner.h"

namespace ligature::bench {

Registry& Registry::Global() {
  // Function-local so registrations from other translation units' statics find it built.
  static Registry* registry = new Registry();
  return *registry;
}

void Registry::Add(Benchmark bench) {
  benches_.push_back(std::move(bench));
  // Static initialisation order across files is unspecified; keep --list stable by name.
  std::stable_sort(benches_.begin(), benches_.end(),
                   [](const Benchmark& a, const Benchmark& b) { return a.name < b.name; });
}

Registrar::Registrar(Benchmark bench) { Registry::Global().Add(std::move(bench)); }

Registrar::Registrar(StepBench bench) {
  // The spec is shared by the closure; running it never changes it.
  auto spec = std::make_shared<const StepBench>(std::move(bench));
  Registry::Global().Add(
      {spec->name, [spec](const RunOptions& options) { return RunStepBench(*spec, options); }});
}

}  // namespace ligature::bench
