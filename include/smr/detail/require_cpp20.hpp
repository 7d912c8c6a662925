// Included first by every public header: under an older standard the first error a user sees
// says what is wrong, instead of an error deep inside a header ("'constinit' does not name a
// type", a missing concept).
#pragma once

#if !defined(__cplusplus) || __cplusplus < 202002L
#error "smr requires C++20: compile with -std=c++20 (or later), or link the smr::smr CMake target, which asks for it"
#endif
