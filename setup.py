"""Only marks the wheel as platform-specific: it carries a compiled extension
and static binaries (staged by scripts/build_wheel.sh), not pure Python. The
project's metadata is in pyproject.toml."""

from setuptools import setup
from setuptools.dist import Distribution


class BinaryDistribution(Distribution):
    def has_ext_modules(self) -> bool:
        return True


setup(distclass=BinaryDistribution)
