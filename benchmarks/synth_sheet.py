"""Contact sheet of the fixture renderer's difficulty sweeps (one row per factor).

Each row is the same shot with one factor at levels 0, 0.5 and 1 (others at the mild baseline),
then two photos of the realistic mix; the picture shows what each named factor does.

    python benchmarks/synth_sheet.py --out benchmarks/results/synth_sweeps.jpg
"""

from __future__ import annotations

import argparse

import cv2
import numpy as np

from piecebridge.synth.reflec import FACTORS, Difficulty, sample


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="benchmarks/results/synth_sweeps.jpg")
    ap.add_argument("--index", type=int, default=2, help="shot index in the tune split")
    args = ap.parse_args()
    tw, th = 320, 180
    rows = []
    for k, factor in enumerate(FACTORS):
        cells = []
        for level in (0.0, 0.5, 1.0):
            shot = sample(
                "tune", args.index, Difficulty.sweep(factor, level), image_size=(960, 540)
            )
            img = cv2.resize(shot.image, (tw, th), interpolation=cv2.INTER_AREA)
            cv2.putText(img, f"{factor}={level:g}", (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
                        (255, 255, 255), 2, cv2.LINE_AA)  # fmt: skip
            cells.append(img)
        real = sample("tune", 40 + 4 * k, image_size=(960, 540))
        img = cv2.resize(real.image, (tw, th), interpolation=cv2.INTER_AREA)
        cv2.putText(img, "realistic", (6, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 2,
                    cv2.LINE_AA)  # fmt: skip
        cells.append(img)
        rows.append(np.hstack(cells))
    sheet = np.vstack(rows)
    cv2.imwrite(args.out, sheet, [cv2.IMWRITE_JPEG_QUALITY, 80])
    print(f"wrote {args.out} ({sheet.shape[1]}x{sheet.shape[0]})")


if __name__ == "__main__":
    main()
