// Linked with smrbench's objects (bench/CMakeLists.txt), which register treiber_stack during
// static initialization; this file registers the name once more. Whichever registration runs
// second must stop the program before main() with the registry's message
// (expect_abort.cmake checks both). Reaching main() means the duplicate went unnoticed.
#include <cstdio>

#include "registry.hpp"

namespace {

[[maybe_unused]] const bool registered_again = [] {
  smrbench::registry::instance().add_data_structure({"treiber_stack", smrbench::ds_kind::stack});
  return true;
}();

}  // namespace

int main() {
  std::puts("smrbench_registers_twice: the second registration of treiber_stack was accepted");
  return 0;
}
