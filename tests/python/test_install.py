"""pip install of the package into a fresh venv (offline, Debian's setuptools), then import nmt from outside the
repository: the package holds the extension, the stub and the SentencePiece bridge."""

import ast
import os
import pathlib
import subprocess
import sys

import pytest

import nmt

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_pip_installs_nmt_into_a_venv_and_it_imports_from_anywhere(tmp_path):
    build = pathlib.Path(nmt.__file__).resolve().parents[2]  # BUILD/python/nmt/__init__.py
    if not (build / "CMakeCache.txt").exists():
        pytest.skip(f"nmt is not imported from a CMake build ({nmt.__file__})")
    venv = tmp_path / "venv"
    made = subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], capture_output=True,
                          text=True)
    if made.returncode != 0 or not (venv / "bin" / "pip").exists():
        pytest.skip(f"no venv with pip here (python3-venv, python3-pip): {made.stderr.strip()}")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    installed = subprocess.run([str(venv / "bin" / "pip"), "install", "--no-build-isolation", "--no-deps",
                                "--no-index", str(ROOT)], capture_output=True, text=True,
                               env={**env, "NMT_BUILD_DIR": str(build)})
    assert installed.returncode == 0, installed.stdout + installed.stderr
    imported = subprocess.run([str(venv / "bin" / "python"), "-c",
                               "import nmt, pathlib; print(nmt.__version__); print(pathlib.Path(nmt.__file__).parent);"
                               "print(sorted(p.name for p in pathlib.Path(nmt.__file__).parent.iterdir()))"],
                              capture_output=True, text=True, cwd=tmp_path, env=env)
    assert imported.returncode == 0, imported.stderr
    version, folder, listed = imported.stdout.splitlines()
    files = ast.literal_eval(listed)
    assert version == nmt.__version__
    assert pathlib.Path(folder).is_relative_to(venv)
    for name in ("__init__.py", "_nmt.pyi", "py.typed", "libnmt_spm_bridge.so"):
        assert name in files
    assert any(f.startswith("_nmt.") and f.endswith(".so") for f in files)
