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


def _piecebridge_imports(folder: str) -> list[tuple[Path, str]]:
    """(file, module) for every piecebridge module imported under ``folder`` (``from
    piecebridge import x`` counts as ``piecebridge.x``; a relative import as the folder's)."""
    found = []
    for path in (ROOT / folder).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level:
                # from . import x stays in the folder; from .. import x reaches the namespace
                base = f"piecebridge.{folder}" if node.level == 1 else "piecebridge"
                names = [f"{base}.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module == "piecebridge":
                names = [f"piecebridge.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            else:
                continue
            found += [(path, n) for n in names if n.split(".")[0] == "piecebridge"]
    return found


# The one module of the app every layer may raise from: it imports nothing.
SHARED = ("piecebridge.errors",)


def _within(module: str, packages: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def test_rules_import_nothing_else_of_piecebridge():
    """Also ``from piecebridge import vision`` and relative imports out of the folder, which
    the module-name check above does not see."""
    found = _piecebridge_imports("rules")
    assert found  # the check sees them
    assert [(p, m) for p, m in found if not _within(m, ("piecebridge.rules",))] == []


def test_vision_uses_only_itself_and_calibration():
    allowed = ("piecebridge.vision", "piecebridge.calibration", *SHARED)
    found = _piecebridge_imports("vision")
    assert any(_within(m, ("piecebridge.calibration",)) for _, m in found)  # the check sees them
    assert [(p, m) for p, m in found if not _within(m, allowed)] == []


def test_calibration_imports_nothing_of_vision_rules_or_the_app():
    """The arrows point one way: vision uses calibration, never the other way round."""
    found = _piecebridge_imports("calibration")
    assert any(_within(m, SHARED) for _, m in found)  # the check sees them
    allowed = ("piecebridge.calibration", *SHARED)
    assert [(p, m) for p, m in found if not _within(m, allowed)] == []


def test_the_shared_error_module_imports_nothing_of_piecebridge():
    tree = ast.parse((ROOT / "piecebridge" / "errors.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)]
