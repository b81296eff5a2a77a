#include "tests/bench/registry.h"

#include <algorithm>
#include <utility>

namespace ligature::bench {

Registry& Registry::Global() {
  // Function-local so registrations from other translation units' statics find it built.
  static Registry* registry = new Registry();
  return *registry;
}

void Registry::Add(StepBench bench) {
  benches_.push_back(std::move(bench));
  // Static initialisation order across files is unspecified; keep --list stable by name.
  std::sort(benches_.begin(), benches_.end(),
            [](const StepBench& a, const StepBench& b) { return a.name < b.name; });
}

}  // namespace ligature::bench
