"""Write the small committed card fixture set (fixtures/images/cards/{tune,test}/).

    python benchmarks/card_fixtures.py

Each photo is a rendered phone photo (1600x1200 JPEG) with its ``card/1`` truth
beside it (``.json``, plus ``corners_px``: the grids' frame corners in the photo).
``tune/`` comes from the tuning split, ``test/`` from the held-out split and the
``print card`` board split (``print_*``). Keep the total under 5 MB.
"""

from __future__ import annotations

import json
from pathlib import Path

import cv2

from piecebridge.synth.card import split_photo

ROOT = Path(__file__).resolve().parent.parent / "fixtures" / "images" / "cards"
SIZE = (1600, 1200)
SETS = {"tune": [("tune", i) for i in (90001, 90002, 90003)]}
SETS["test"] = [("test", i) for i in (90001, 90002, 90003, 90004)] + [
    ("print", i) for i in (90001, 90002)
]


def main() -> None:
    total = 0
    for folder, items in SETS.items():
        out = ROOT / folder
        out.mkdir(parents=True, exist_ok=True)
        for split, index in items:
            img, truth = split_photo(split, index, SIZE)
            path = out / f"{split}_{index}.jpg"
            cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 88])
            path.with_suffix(".json").write_text(json.dumps(truth, indent=1))
            total += path.stat().st_size + path.with_suffix(".json").stat().st_size
            print(path, path.stat().st_size // 1024, "KiB")
    print(f"total {total / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
