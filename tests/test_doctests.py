"""Every docstring example in the four packages runs and holds (python-chess style: the
examples are the first documentation a reader tries, so a stale one is a bug)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("piecebridge", "piecebridge.vision", "piecebridge.rules", "piecebridge.calibration")


def _modules() -> list[str]:
    names = []
    for top in PACKAGES:
        package = importlib.import_module(top)
        names.append(top)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, top + ".")]
    return [n for n in dict.fromkeys(names) if not n.endswith("__main__")]


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_hold(name: str) -> None:
    result = doctest.testmod(importlib.import_module(name), report=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples fail in {name}"


def test_the_packages_have_examples() -> None:
    finder = doctest.DocTestFinder()
    tests = [t for n in _modules() for t in finder.find(importlib.import_module(n))]
    assert sum(len(t.examples) for t in tests) >= 300
