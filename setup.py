"""Builds the package nmt from the project's CMake build: the extension _nmt, its Python face and stub, and
the SentencePiece bridge (python/CMakeLists.txt puts them in BUILD/python/nmt). BUILD is NMT_BUILD_DIR, or
build/ (the README's set-up) when it holds a CMake build, or build-pip/ configured here."""

import os
import pathlib
import re
import shutil
import subprocess

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

ROOT = pathlib.Path(__file__).resolve().parent


def version():
    return re.search(r"project\(nmt VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


def cmake_build_dir():
    given = os.environ.get("NMT_BUILD_DIR")
    if given:
        return pathlib.Path(given).resolve()
    default = ROOT / "build"
    return default if (default / "CMakeCache.txt").exists() else ROOT / "build-pip"


class BuildWithCMake(build_py):
    """The package's files, as the CMake build makes them (configured first where it was not)."""

    def run(self):
        build = cmake_build_dir()
        if not (build / "CMakeCache.txt").exists():
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), "-G", "Ninja",
                            "-DCMAKE_BUILD_TYPE=Release"], check=True)
        subprocess.run(["cmake", "--build", str(build), "--target", "nmt_python", "nmt_python_package"], check=True)
        target = pathlib.Path(self.build_lib) / "nmt"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(build / "python" / "nmt", target, ignore=shutil.ignore_patterns("__pycache__"))


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # a platform wheel: the package holds compiled code
        return True


setup(
    version=version(),
    packages=["nmt"],
    package_dir={"nmt": "python/nmt"},  # the sources; what is installed is the CMake build's copy
    cmdclass={"build_py": BuildWithCMake},
    distclass=BinaryDistribution,
    options={"build": {"build_base": str(ROOT / "build-pip" / "setuptools")}, "egg_info": {"egg_base": str(ROOT / "build-pip")}},
    zip_safe=False,
)
