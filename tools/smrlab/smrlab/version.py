"""smrlab's version is the project's: SMR_VERSION_STRING in include/smr/version.hpp."""

import re

from smrlab.paths import REPO_ROOT

HEADER = REPO_ROOT / "include" / "smr" / "version.hpp"
_DEFINE = re.compile(r'^#define SMR_VERSION_STRING "([^"]+)"', re.MULTILINE)


def version() -> str:
    try:
        found = _DEFINE.search(HEADER.read_text(encoding="utf-8"))
    except OSError:
        found = None
    return found.group(1) if found else f"unknown (no SMR_VERSION_STRING in {HEADER})"
