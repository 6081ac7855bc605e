"""The code base stays ruff clean (configuration in pyproject.toml)."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def ruff(*args: str) -> subprocess.CompletedProcess:
    # the ruff installed beside this Python (the test extra) first, then any on PATH
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if exe is None:
        pytest.skip("ruff is not installed (pip install -e '.[test]')")
    return subprocess.run([exe, *args], cwd=ROOT, capture_output=True, text=True)


def test_ruff_check_is_clean():
    result = ruff("check", ".")
    assert result.returncode == 0, result.stdout[-3000:]


def test_ruff_format_is_clean():
    result = ruff("format", "--check", ".")
    assert result.returncode == 0, result.stdout[-3000:]
