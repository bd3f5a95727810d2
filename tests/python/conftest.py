"""Fixtures of the Python module's tests: the programs' directory and a tiny model trained by nmt-train.

Run by ctest (test python.nmt) as: python3 -m pytest tests/python, with PYTHONPATH holding the
package (build/python) and NMT_BIN the programs (build/bin).
"""

import os
import pathlib
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parent
TINY_CORPUS = HERE.parent / "e2e" / "tiny_corpus.sh"


@pytest.fixture(scope="session")
def bin_dir():
    path = pathlib.Path(os.environ.get("NMT_BIN", HERE.parent.parent / "build" / "bin")).resolve()
    assert (path / "nmt-translate").exists(), f"no nmt-translate in {path}: set NMT_BIN"
    return path


def run_process(*args, **kwargs):
    """A program's finished process (stdout and stderr as text); its failure fails the test with its stderr."""
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, **kwargs)
    assert done.returncode == 0, f"{args[0]} exited {done.returncode}: {done.stderr}"
    return done


def run(*args, **kwargs):
    """A program's stdout; its failure fails the test with its stderr."""
    return run_process(*args, **kwargs).stdout


@pytest.fixture(scope="session")
def corpus(tmp_path_factory):
    """The end-to-end tests' tiny corpus: train.{src,tgt} (600 pairs), valid.{src,tgt} (40)."""
    folder = tmp_path_factory.mktemp("corpus")
    run("bash", "-c", f'source "{TINY_CORPUS}" && make_tiny_corpus "{folder}"')
    return folder


@pytest.fixture(scope="session")
def model_dir(bin_dir, corpus):
    """A tiny RNN model (with the shortlist nmt-train makes), trained in a few seconds."""
    run("bash", "-c",
        f'source "{TINY_CORPUS}" && cd "{corpus}" && "{bin_dir}/nmt-train" "${{TINY_DATA[@]}}" "${{TINY_MODEL[@]}}" '
        "--max-length 40 --max-steps 300 --valid-every 100 --model-dir run --device cpu")
    return corpus / "run"


@pytest.fixture(scope="session")
def sources(corpus):
    return (corpus / "valid.src").read_text(encoding="utf-8").splitlines()


@pytest.fixture(scope="session")
def tiny_options():
    """The e2e tests' TINY_MODEL options (tiny_corpus.sh) as nmt.train keywords."""
    words = run("bash", "-c", f'source "{TINY_CORPUS}" && printf "%s\\n" "${{TINY_MODEL[@]}}"').split()
    return {words[i][2:].replace("-", "_"): typed(words[i + 1]) for i in range(0, len(words), 2)}


def typed(text):
    """A command line's value as a Python keyword's: True, 16, 0.5 or text."""
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text
