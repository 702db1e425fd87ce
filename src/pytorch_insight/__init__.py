"""pytorch-insight: weekly intelligence reports on an open-source community."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pytorch-insight")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0"

__all__ = ["__version__"]
