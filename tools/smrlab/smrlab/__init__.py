"""smrlab: declarative experiments over smrbench, a resumable results store, plots and reports."""

__version__ = "0.1.0"
