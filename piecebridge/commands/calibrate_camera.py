"""``piecebridge calibrate camera``: learn the lens from photos (or live) of a target.

Batch::

    piecebridge calibrate camera photos/*.jpg --pattern chessboard:9x6 --square-mm 25 \\
        --out camera.yaml

Live (a webcam, a video file or a folder of frames)::

    piecebridge calibrate camera --camera 0 --pattern charuco:11x8 --square-mm 20 \\
        --marker-mm 15 --out camera.yaml

Writes the spec's FileStorage YAML and a report PNG (coverage, per-view errors,
an undistorted sample); with ``--json`` prints ``{"rms", "images_used",
"images_rejected", ...}``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from piecebridge.calibration.camera import (
    DEFAULT_DICTIONARY,
    FISHEYE,
    PINHOLE,
    CalibrationFit,
    Pattern,
    View,
    board_tilt_degrees,
    calibrate_detected,
    detect_in_images,
    expand_image_paths,
    load_color,
    parse_pattern,
)
from piecebridge.calibration.camera_coverage import Coverage, advice_for, summary_sentence
from piecebridge.calibration.camera_live import LiveCalibrator, open_frames
from piecebridge.calibration.camera_report import render_report, write_report
from piecebridge.errors import UserError
from piecebridge.outputs import check_output


def register(cli) -> None:
    parser = cli.command(
        "camera",
        group="calibrate",
        help="learn the camera lens (focal length, distortion) from photos of a target",
    )
    parser.add_argument(
        "images", nargs="*", metavar="IMAGES", help="photos of the target (or folders)"
    )
    parser.add_argument(
        "--pattern",
        required=True,
        metavar="KIND:COLSxROWS",
        help="chessboard:COLSxROWS (inner corners, e.g. 9x6) or charuco:COLSxROWS (squares)",
    )
    parser.add_argument(
        "--square-mm", type=float, required=True, metavar="S", help="side of one square in mm"
    )
    parser.add_argument(
        "--marker-mm",
        type=float,
        metavar="M",
        help="ChArUco marker side in mm (default 0.75 x square)",
    )
    parser.add_argument(
        "--dictionary",
        default=DEFAULT_DICTIONARY,
        help=f"ChArUco marker dictionary (default {DEFAULT_DICTIONARY})",
    )
    parser.add_argument(
        "--out", required=True, metavar="FILE.yaml", help="calibration file to write"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument(
        "--report", metavar="FILE.png", help="report picture (default: next to --out)"
    )
    parser.add_argument("--no-report", action="store_true", help="do not write the report picture")
    parser.add_argument(
        "--reject-ratio",
        type=float,
        default=3.0,
        metavar="R",
        help="reject views whose error exceeds this many times the median (0: keep all)",
    )
    model = parser.add_argument_group("lens model")
    model.add_argument("--fix-aspect-ratio", action="store_true", help="square pixels (fx = fy)")
    model.add_argument("--zero-tangent", action="store_true", help="no tangential distortion")
    model.add_argument(
        "--rational", action="store_true", help="8-coefficient rational model (wide lenses)"
    )
    model.add_argument(
        "--fisheye",
        action="store_true",
        help="OpenCV's fisheye model (4 coefficients) for lenses that see towards 180 degrees; "
        "takes none of the options above",
    )
    live = parser.add_argument_group("live mode (instead of IMAGES)")
    source = live.add_mutually_exclusive_group()
    source.add_argument("--camera", type=int, metavar="N", help="grab frames from webcam N")
    source.add_argument("--video", metavar="FILE", help="read frames from a video file")
    source.add_argument(
        "--frames", metavar="DIR", help="read frames from a folder (sorted by name)"
    )
    live.add_argument(
        "--min-views", type=int, default=8, metavar="N", help="views before stopping (default 8)"
    )
    live.add_argument(
        "--max-views", type=int, default=30, metavar="N", help="stop after this many views"
    )
    live.add_argument("--max-frames", type=int, metavar="N", help="stop after this many frames")
    live.add_argument("--save-views", metavar="DIR", help="save the kept frames here")
    live.add_argument(
        "--preview",
        metavar="FILE.png",
        help="keep rewriting this picture with the current frame, corners and coverage",
    )
    # A usage error found once all options are parsed: argparse's message and exit 2.
    parser.set_defaults(handler=run, usage_error=parser.error)


def run(args: argparse.Namespace) -> int:
    pattern = parse_pattern(args.pattern, args.square_mm, args.marker_mm, args.dictionary)
    out = Path(args.out)
    if out.suffix.lower() not in (".yaml", ".yml"):
        raise UserError(f"--out must end in .yaml or .yml, not {out.name!r}")
    check_output(out)  # a folder, or a folder that is missing or not writable
    if not args.no_report:  # refused now: after the fit the calibration file is written
        check_output(args.report or _default_report(out), (".png",), "report")
    live = args.camera is not None or args.video or args.frames
    if live and args.images:
        raise UserError("give either IMAGES or a live source (--camera/--video/--frames), not both")
    if not live and not args.images:
        raise UserError("no images given (or use --camera N, --video FILE or --frames DIR)")
    flags = _flags(args)
    model = FISHEYE if args.fisheye else PINHOLE
    if model == FISHEYE and flags:
        args.usage_error(
            "--fisheye takes none of --fix-aspect-ratio, --zero-tangent and --rational "
            "(they are options of the pinhole model)"
        )
    if live:
        fit, all_views, samples, note = _run_live(args, pattern, flags, model)
    else:
        paths = expand_image_paths(args.images)
        all_views = detect_in_images(paths, pattern)
        fit = calibrate_detected(
            all_views, pattern, flags=flags, reject_ratio=args.reject_ratio, model=model
        )
        samples, note = {}, ""
    _finish(args, pattern, fit, all_views, samples, note)
    return 0


def _flags(args: argparse.Namespace) -> int:
    flags = 0
    if args.fix_aspect_ratio:
        flags |= cv2.CALIB_FIX_ASPECT_RATIO
    if args.zero_tangent:
        flags |= cv2.CALIB_ZERO_TANGENT_DIST
    if args.rational:
        flags |= cv2.CALIB_RATIONAL_MODEL
    return flags


def _run_live(args, pattern: Pattern, flags: int, model: str):
    live = LiveCalibrator(
        pattern, min_views=args.min_views, max_views=args.max_views, flags=flags, model=model
    )
    last_kind = ""
    try:
        for name, frame in open_frames(args.camera, args.video, args.frames, args.max_frames):
            event = live.feed(name, frame)
            # Progress on stderr: every kept view, and changes of state in between.
            changed = event.kind == "kept" or event.kind != last_kind
            if changed:
                print(event.message, file=sys.stderr)
            if args.preview and (changed or live.seen % 10 == 0):
                _write_preview(Path(args.preview), live.preview(frame, event))
            last_kind = event.kind
            if event.done:
                break
    except KeyboardInterrupt:  # "enough views": a live camera never ends by itself
        print(
            f"stopped by Ctrl-C: calibrating from the {len(live.views)} views kept "
            "(Ctrl-C again to give up)",
            file=sys.stderr,
        )
    fit = live.final_fit(args.reject_ratio)
    note = (
        ""
        if live.stable
        else (
            f"the estimate had not settled after {live.seen} frames and {len(live.views)} views: "
            "record more views"
        )
    )
    if args.save_views:
        folder = Path(args.save_views)
        folder.mkdir(parents=True, exist_ok=True)
        for name, frame in live.frames.items():
            cv2.imwrite(str(folder / (Path(name).stem + ".png")), frame)
    return fit, live.views, live.frames, note


def _write_preview(path: Path, picture: np.ndarray) -> None:
    """Replace the preview atomically, so a viewer never shows half a file."""
    _, data = cv2.imencode(".png", picture)
    temp = path.with_name(f".{path.name}.tmp")
    try:
        temp.write_bytes(data.tobytes())
        os.replace(temp, path)
    except OSError as error:
        raise UserError(f"cannot write preview {path}: {error.strerror}") from None


def _finish(
    args, pattern: Pattern, fit: CalibrationFit, all_views: list[View], samples: dict, note: str
) -> None:
    cal = fit.calibration
    coverage = Coverage.of([v.image_points for v in fit.views], cal.image_size)
    tilts = [board_tilt_degrees(r) for r in fit.rvecs]
    std = fit.std_intrinsics
    advice = advice_for(
        coverage,
        views=len(fit.views),
        rms=cal.rms,
        max_tilt_degrees=max(tilts) if tilts else None,
        focal_uncertainty=float(std[0] / cal.fx) if std is not None and len(std) else None,
    )
    if note:
        advice.append(note)
    errors = {
        v.name: round(float(e), 4) for v, e in zip(fit.views, fit.per_view_errors, strict=True)
    }
    report_path = None if args.no_report else Path(args.report or _default_report(Path(args.out)))
    extra = {
        "pattern": pattern.describe(),
        "square_size_mm": pattern.square_mm,
        "calibration_time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "images_used": len(fit.views),  # as in the --json output
        "images_rejected": [r.name for r in fit.rejected],
        "rejection_reasons": [f"{r.name}: {r.reason}" for r in fit.rejected],
        "image_names": [v.name for v in fit.views],
        "per_view_reprojection_errors": fit.per_view_errors.reshape(-1, 1).astype(np.float64),
        "coverage": round(coverage.fraction, 4),
    }
    if pattern.kind == "charuco":
        extra["marker_size_mm"] = float(pattern.marker_mm)
        extra["dictionary"] = pattern.dictionary
    if std is not None and len(std) >= 4:
        extra["std_fx_fy_cx_cy"] = std[:4].reshape(1, 4).astype(np.float64)
    report = None
    if report_path is not None:
        sample_view = _sample_view(fit)
        sample = samples.get(sample_view.name) if samples else None
        if sample is None:
            sample = load_color(sample_view.name)
        report = render_report(fit, all_views, coverage, advice, sample, sample_view)
    # Everything that can fail on bad input has run: now write.
    cal.save(args.out, extra)
    if report is not None:
        write_report(report_path, report)
    if args.json:
        print(json.dumps(_json(fit, coverage, advice, errors, args.out, report_path), indent=2))
    else:
        _print_summary(fit, pattern, coverage, advice, errors, args.out, report_path)


def _default_report(out: Path) -> Path:
    return out.with_name(out.stem + "-report.png")


def _sample_view(fit: CalibrationFit) -> View:
    """The used view whose corners reach farthest from the centre: distortion shows most."""
    cx, cy = fit.calibration.principal_point
    reach = [
        np.hypot(v.image_points[:, 0] - cx, v.image_points[:, 1] - cy).max() for v in fit.views
    ]
    return fit.views[int(np.argmax(reach))]


def _json(fit, coverage, advice, errors, out, report_path) -> dict:
    cal = fit.calibration
    return {
        "rms": round(cal.rms, 5),
        "images_used": len(fit.views),
        "images_rejected": [r.name for r in fit.rejected],
        "rejected": [{"image": r.name, "reason": r.reason} for r in fit.rejected],
        "per_view_errors": errors,
        "camera_matrix": np.round(cal.camera_matrix, 6).tolist(),
        "distortion_coefficients": np.round(cal.dist_coeffs, 8).tolist(),
        "distortion_model": cal.model,
        "image_width": cal.image_size[0],
        "image_height": cal.image_size[1],
        "coverage": round(coverage.fraction, 4),
        "advice": list(advice),
        "out": str(out),
        "report": None if report_path is None else str(report_path),
    }


def _print_summary(fit, pattern, coverage, advice, errors, out, report_path) -> None:
    cal = fit.calibration
    cx, cy = cal.principal_point
    total = len(fit.views) + len(fit.rejected)
    print(
        f"calibrated from {len(fit.views)} of {total} images "
        f"({pattern.describe()}, {pattern.square_mm:g} mm squares)"
    )
    print(f"  rms {cal.rms:.3f} px   fx {cal.fx:.2f}  fy {cal.fy:.2f}  cx {cx:.2f}  cy {cy:.2f}")
    print(f"  distortion ({cal.model}) " + " ".join(f"{c:.5g}" for c in cal.dist_coeffs))
    print("per-view error (px): " + ", ".join(f"{Path(n).name} {e:.2f}" for n, e in errors.items()))
    for rejection in fit.rejected:
        print(f"rejected {rejection.name}: {rejection.reason}")
    print(summary_sentence(coverage, advice))
    print(f"wrote {out}" + (f" and {report_path}" if report_path else ""))
