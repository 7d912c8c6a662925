// A consumer of smr: uses the umbrella header and checks the version it was given (the package's
// or pkg-config's, when the build passes one) against the header's.
#include <cstdio>
#include <cstring>

#include "smr/smr.hpp"
#include "smr/version.hpp"

int main() {
#ifdef SMR_CONSUMER_EXPECTED_VERSION
  if (std::strcmp(SMR_CONSUMER_EXPECTED_VERSION, smr::version_string) != 0) {
    std::fprintf(stderr, "consumer: the package says %s but smr/version.hpp says %s\n",
                 SMR_CONSUMER_EXPECTED_VERSION, smr::version_string);
    return 1;
  }
#endif
  smr::ebr domain;
  smr::treiber_stack<int, smr::ebr> stack(domain);
  auto h = domain.attach();
  stack.push(h, 42);
  const auto popped = stack.pop(h);
  if (!popped || *popped != 42) {
    std::fprintf(stderr, "consumer: the stack lost its element\n");
    return 1;
  }
  std::printf("consumer: smr %s works\n", smr::version_string);
  return 0;
}
