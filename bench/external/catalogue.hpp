// Every external baseline smr has an adapter for, built into this smrbench or not, with the
// Debian package its library comes from: smrbench refuses an unbuilt one saying what to install,
// and --list reports both kinds. Light on purpose: it includes none of the libraries.
#pragma once

#include <string_view>

#ifndef SMR_EXTERNAL_URCU
#define SMR_EXTERNAL_URCU 0
#endif
#ifndef SMR_EXTERNAL_CK
#define SMR_EXTERNAL_CK 0
#endif
#ifndef SMR_EXTERNAL_CDS
#define SMR_EXTERNAL_CDS 0
#endif

namespace smr::external {

// Every adapter smr has, with the Debian package its library comes from.
struct adapter {
  std::string_view reclaimer;
  std::string_view package;
  bool built;
};
inline constexpr adapter catalogue[] = {
    {"urcu_qsbr", "liburcu-dev", SMR_EXTERNAL_URCU != 0}, {"urcu_memb", "liburcu-dev", SMR_EXTERNAL_URCU != 0},
    {"ck_epoch", "libck-dev", SMR_EXTERNAL_CK != 0},      {"cds_hp", "libcds-dev", SMR_EXTERNAL_CDS != 0},
    {"cds_dhp", "libcds-dev", SMR_EXTERNAL_CDS != 0}};

}  // namespace smr::external
