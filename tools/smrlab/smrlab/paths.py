"""Where things live, relative to the repository that contains this package."""

import os
from pathlib import Path

from smrlab.errors import BadInput

PACKAGE_ROOT = Path(__file__).resolve().parent.parent          # tools/smrlab
REPO_ROOT = PACKAGE_ROOT.parent.parent
EXPERIMENTS_DIR = PACKAGE_ROOT / "experiments"
RESULTS_DIR = REPO_ROOT / "results"
DEFAULT_SMRBENCH = REPO_ROOT / "build" / "release" / "bench" / "smrbench"


def smrbench_path(option: str | None) -> Path:
    """--smrbench wins over $SMRBENCH, which wins over the release build in the repo."""
    chosen = option or os.environ.get("SMRBENCH") or str(DEFAULT_SMRBENCH)
    path = Path(chosen)
    if not (path.is_file() and os.access(path, os.X_OK)):
        source = "--smrbench" if option else "$SMRBENCH" if os.environ.get("SMRBENCH") else "default"
        raise BadInput(
            f"smrbench not found or not executable at {path} ({source}); build it "
            f"(make) or pass --smrbench PATH or set SMRBENCH"
        )
    return path


def default_results_dir(experiment_name: str, quick: bool) -> Path:
    # Quick smoke runs never share a store with real measurements.
    return RESULTS_DIR / (f"{experiment_name}-quick" if quick else experiment_name)


def output_dir_problem(path: Path, option: str = "--out") -> str:
    """Why `path` cannot serve as a results directory ("" when it can), checked before anything
    runs so that a run never ends in an unwritable place."""
    if path.exists():
        if not path.is_dir():
            return f"{option} {path}: exists and is not a directory"
        if not os.access(path, os.W_OK | os.X_OK):
            return f"{option} {path}: directory is not writable"
        return ""
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        return f"{option} {path}: cannot be created: {ancestor} is not a directory"
    if not os.access(ancestor, os.W_OK | os.X_OK):
        return f"{option} {path}: cannot be created: {ancestor} is not writable"
    return ""
