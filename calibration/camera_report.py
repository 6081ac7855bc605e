"""The calibration report picture: coverage, per-view errors, an undistorted sample.

>>> # report = render_report(fit, views, coverage, advice, sample_image)  # BGR uint8
>>> # cv2.imwrite("camera-report.png", report)
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np
from piecebridge.calibration.camera import (
    CalibrationFit,
    Undistorter,
    View,
    reprojection_error,
)
from piecebridge.calibration.camera_coverage import Coverage

from piecebridge.errors import UserError

PANEL_W, PANEL_H = 640, 480
FONT = cv2.FONT_HERSHEY_SIMPLEX
WHITE, BLACK, GREY = (255, 255, 255), (0, 0, 0), (150, 150, 150)
BLUE, RED, GREEN = (200, 110, 30), (40, 40, 220), (60, 160, 60)


def render_report(
    fit: CalibrationFit,
    all_views: Sequence[View],
    coverage: Coverage,
    advice: Sequence[str],
    sample: np.ndarray | None,
    sample_view: View | None = None,
) -> np.ndarray:
    """A BGR picture: coverage | per-view errors on top, raw | undistorted sample below."""
    top = np.hstack([_coverage_panel(fit, all_views, coverage), _error_panel(fit, all_views)])
    if sample is None:
        bottom = np.full((PANEL_H, 2 * PANEL_W, 3), 255, np.uint8)
    else:
        bottom = _sample_panels(fit, sample, sample_view)
    return np.vstack([top, bottom, _text_panel(fit, coverage, advice)])


def write_report(path: str | os.PathLike, picture: np.ndarray) -> None:
    """Write the PNG; raise UserError when it cannot be written."""
    path = Path(path)
    ok, data = cv2.imencode(".png", picture)
    try:
        if not ok:
            raise OSError("PNG encoding failed")
        path.write_bytes(data.tobytes())
    except OSError as error:
        raise UserError(f"cannot write report {path}: {error}") from None


def _fit_in_panel(size: tuple[int, int]) -> float:
    return min((PANEL_W - 20) / size[0], (PANEL_H - 50) / size[1])


def _title(panel: np.ndarray, text: str) -> None:
    cv2.putText(panel, text, (10, 24), FONT, 0.6, BLACK, 1, cv2.LINE_AA)


def _coverage_panel(
    fit: CalibrationFit, all_views: Sequence[View], coverage: Coverage
) -> np.ndarray:
    panel = np.full((PANEL_H, PANEL_W, 3), 255, np.uint8)
    width, height = coverage.image_size
    scale = _fit_in_panel(coverage.image_size)
    w, h = round(width * scale), round(height * scale)
    x0, y0 = (PANEL_W - w) // 2, 40
    # Heat: how many views' outlines cover each part of the frame.
    heat = coverage.mask.astype(np.float32) / max(1, int(coverage.mask.max()))
    heat = cv2.resize(heat, (w, h), interpolation=cv2.INTER_NEAREST)
    frame = np.full((h, w, 3), 235, np.uint8)
    tint = np.array([255, 200, 150], np.float32)  # light blue, darker = more views
    frame = (frame * (1 - 0.6 * heat[..., None]) + tint * 0.6 * heat[..., None] * 0.6).astype(
        np.uint8
    )
    frame[heat == 0] = (235, 235, 235)
    for k in (1, 2):  # thirds
        cv2.line(frame, (w * k // 3, 0), (w * k // 3, h), GREY, 1)
        cv2.line(frame, (0, h * k // 3), (w, h * k // 3), GREY, 1)
    used = {v.name for v in fit.views}
    for view in all_views:
        if not view.found:
            continue
        color = BLUE if view.name in used else RED
        for x, y in view.image_points * scale:
            cv2.circle(frame, (round(x), round(y)), 2, color, -1, cv2.LINE_AA)
    cv2.rectangle(frame, (0, 0), (w - 1, h - 1), BLACK, 1)
    panel[y0 : y0 + h, x0 : x0 + w] = frame
    _title(panel, f"coverage: target outlines cover {coverage.fraction:.0%} of the frame")
    return panel


def _error_panel(fit: CalibrationFit, all_views: Sequence[View]) -> np.ndarray:
    panel = np.full((PANEL_H, PANEL_W, 3), 255, np.uint8)
    used_errors = dict(zip([v.name for v in fit.views], fit.per_view_errors, strict=True))
    bars = []
    for view in all_views:
        if not view.found:
            bars.append((view.name, float("nan"), RED))
        elif view.name in used_errors:
            bars.append((view.name, float(used_errors[view.name]), BLUE))
        else:
            bars.append((view.name, reprojection_error(fit.calibration, view), RED))
    _title(panel, f"per-view error (px), rms {fit.calibration.rms:.3f}; red = rejected")
    if not bars:
        return panel
    finite = [e for _, e, _ in bars if np.isfinite(e)]
    top = max(max(finite, default=1.0) * 1.15, 0.5)
    left, right, base, ceiling = 50, PANEL_W - 10, PANEL_H - 110, 50
    step = (right - left) / len(bars)
    for value in np.linspace(0, top, 5):
        y = round(base - (base - ceiling) * value / top)
        cv2.line(panel, (left - 4, y), (right, y), (225, 225, 225), 1)
        cv2.putText(panel, f"{value:.2f}", (4, y + 4), FONT, 0.35, BLACK, 1, cv2.LINE_AA)
    for i, (name, error, color) in enumerate(bars):
        x = round(left + i * step)
        bar_w = max(2, round(step * 0.7))
        if np.isfinite(error):
            y = round(base - (base - ceiling) * error / top)
            cv2.rectangle(panel, (x, y), (x + bar_w, base), color, -1)
        else:
            cv2.putText(panel, "x", (x, base - 4), FONT, 0.4, RED, 1, cv2.LINE_AA)
        _vertical_text(panel, Path(name).stem[:14], x + bar_w // 2, base + 6)
    cv2.line(panel, (left, base), (right, base), BLACK, 1)
    return panel


def _vertical_text(panel: np.ndarray, text: str, x: int, y: int) -> None:
    (tw, th), _ = cv2.getTextSize(text, FONT, 0.35, 1)
    strip = np.full((th + 4, tw + 2, 3), 255, np.uint8)
    cv2.putText(strip, text, (1, th + 1), FONT, 0.35, BLACK, 1, cv2.LINE_AA)
    strip = np.rot90(strip, 3)
    h, w = strip.shape[:2]
    x0 = max(0, min(panel.shape[1] - w, x - w // 2))
    h = min(h, panel.shape[0] - y)
    panel[y : y + h, x0 : x0 + w] = np.minimum(panel[y : y + h, x0 : x0 + w], strip[:h])


def _sample_panels(fit: CalibrationFit, sample: np.ndarray, view: View | None) -> np.ndarray:
    if sample.ndim == 2:
        sample = cv2.cvtColor(sample, cv2.COLOR_GRAY2BGR)
    undistorter = Undistorter(fit.calibration, (sample.shape[1], sample.shape[0]))
    raw, flat = sample.copy(), undistorter(sample)
    if view is not None and view.found and len(view.image_points) >= 4:
        # The target's outer rows, drawn as straight lines between their end corners:
        # curved in the raw photo, straight once undistorted.
        _draw_rows(raw, view.image_points, view)
        _draw_rows(flat, undistorter.undistort_points(view.image_points), view)
    panels = []
    for image, title in ((raw, "sample as photographed"), (flat, "sample undistorted")):
        panel = np.full((PANEL_H, PANEL_W, 3), 255, np.uint8)
        scale = _fit_in_panel((image.shape[1], image.shape[0]))
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        y0, x0 = 40, (PANEL_W - small.shape[1]) // 2
        panel[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
        _title(panel, title + (" (green: straight lines through the end corners)" if view else ""))
        panels.append(panel)
    return np.hstack(panels)


def _draw_rows(image: np.ndarray, points: np.ndarray, view: View) -> None:
    """Straight segments between the first and last corner of the extreme rows."""
    obj = view.object_points[:, :2]
    thickness = max(1, round(image.shape[1] / 640))
    for y in (obj[:, 1].min(), obj[:, 1].max()):
        row = np.flatnonzero(np.isclose(obj[:, 1], y))
        if len(row) < 2:
            continue
        row = row[np.argsort(obj[row, 0])]
        for idx in row:
            cv2.circle(image, tuple(np.round(points[idx]).astype(int)), 2 * thickness, RED, -1)
        a, b = points[row[0]], points[row[-1]]
        cv2.line(
            image,
            tuple(np.round(a).astype(int)),
            tuple(np.round(b).astype(int)),
            GREEN,
            thickness,
            cv2.LINE_AA,
        )


def _text_panel(fit: CalibrationFit, coverage: Coverage, advice: Sequence[str]) -> np.ndarray:
    cal = fit.calibration
    lines = [
        f"{len(fit.views)} views used, {len(fit.rejected)} rejected; rms {cal.rms:.3f} px; "
        f"fx {cal.fx:.1f} fy {cal.fy:.1f} "
        f"cx {cal.principal_point[0]:.1f} cy {cal.principal_point[1]:.1f}; "
        f"{cal.model} dist " + " ".join(f"{c:.3g}" for c in cal.dist_coeffs),
    ]
    lines += [f"rejected {Path(r.name).name}: {r.reason}" for r in fit.rejected[:6]]
    lines += [f"advice: {a}" for a in advice] or ["the photos are good enough"]
    panel = np.full((20 + 22 * len(lines), 2 * PANEL_W, 3), 255, np.uint8)
    for i, line in enumerate(lines):
        cv2.putText(panel, _ascii(line)[:150], (10, 24 + 22 * i), FONT, 0.45, BLACK, 1, cv2.LINE_AA)
    return panel


def _ascii(text: str) -> str:
    """Hershey fonts draw ASCII only."""
    text = text.replace("°", " deg").replace("±", "+/-").replace("×", "x")
    return text.encode("ascii", "replace").decode()
