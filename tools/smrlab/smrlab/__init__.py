"""smrlab: declarative experiments over smrbench, a resumable results store, plots and reports.
Its version is the project's (smrlab.version.version(), read from include/smr/version.hpp)."""
