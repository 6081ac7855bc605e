"""The one-distribution, one-namespace layout of pyproject.toml holds."""

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAPPED = {
    "piecebridge": "piecebridge",
    "piecebridge.vision": "vision",
    "piecebridge.rules": "rules",
    "piecebridge.calibration": "calibration",
}


def test_every_package_folder_is_listed_so_a_wheel_contains_it():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    assert config["tool"]["setuptools"]["package-dir"] == MAPPED
    found = set()
    for package, folder in MAPPED.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    assert found <= listed, f"add to pyproject packages: {sorted(found - listed)}"


def test_rules_import_nothing_of_the_rest_and_no_opencv():
    for path in (ROOT / "rules").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(
                    ("cv2", "numpy", "piecebridge.vision", "piecebridge.calibration", "serial")
                ), (path, name)
                if name.startswith("piecebridge."):
                    assert name.startswith("piecebridge.rules"), (path, name)


def test_vision_does_not_import_the_rules_or_the_app():
    for path in (ROOT / "vision").rglob("*.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("piecebridge.rules"), (path, node.module)
