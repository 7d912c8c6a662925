// smr's version: the one number for the library, the CMake package, smrbench and smrlab
// (CMakeLists.txt and smrlab read it from here). Bumped with each entry of CHANGELOG.md.
#pragma once

#define SMR_VERSION_MAJOR 0
#define SMR_VERSION_MINOR 2
#define SMR_VERSION_PATCH 0
#define SMR_VERSION_STRING "0.2.0"

namespace smr {
inline constexpr int version_major = SMR_VERSION_MAJOR;
inline constexpr int version_minor = SMR_VERSION_MINOR;
inline constexpr int version_patch = SMR_VERSION_PATCH;
inline constexpr const char* version_string = SMR_VERSION_STRING;
}  // namespace smr
