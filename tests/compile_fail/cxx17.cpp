// Compiled with -std=c++17 by expect_first_error.cmake: the first diagnostic must be the
// library's own "smr requires C++20", not an error from deep inside a header.
#include "smr/smr.hpp"

int main() { return 0; }
