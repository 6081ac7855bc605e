"""`piecebridge print card` and `piecebridge score` from the outside."""

from __future__ import annotations

import csv
import json
import multiprocessing
import os
import re
import shutil
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cv2
import numpy as np
import pytest

from piecebridge.cli import main
from piecebridge.commands.score import _single_threaded_children

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "images" / "cards"


def fixture_photo() -> Path:
    photos = sorted((FIXTURES / "test").glob("test_*.jpg"))
    assert photos
    return photos[0]


def test_print_card_pdf_is_exactly_business_card_size(tmp_path, capsys):
    out = tmp_path / "card.pdf"
    assert main(["print", "card", "--out", str(out)]) == 0
    data = out.read_bytes()
    assert data.startswith(b"%PDF")
    box = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)", data)
    assert box, "no page size in the PDF"
    w_pt, h_pt = float(box.group(1)), float(box.group(2))
    assert w_pt == pytest.approx(3.5 * 72, abs=0.01)
    assert h_pt == pytest.approx(2.0 * 72, abs=0.01)


def test_print_card_png_has_size_and_dpi(tmp_path):
    from PIL import Image

    out = tmp_path / "card.png"
    assert main(["print", "card", "--out", str(out), "--dpi", "300"]) == 0
    img = Image.open(out)
    assert img.size == (1050, 600)
    assert img.info["dpi"][0] == pytest.approx(300, abs=0.01)


def test_print_card_rejects_other_formats(tmp_path, capsys):
    assert main(["print", "card", "--out", str(tmp_path / "card.gif")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ".pdf or .png" in err


def test_printed_board_reads_as_empty_card(tmp_path, capsys):
    """The PNG of `print card` itself, read as a photo: two grids, nothing marked."""
    out = tmp_path / "card.png"
    assert main(["print", "card", "--out", str(out), "--dpi", "400"]) == 0
    img = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    canvas = np.full((img.shape[0] + 200, img.shape[1] + 200), 90, np.uint8)
    canvas[100:-100, 100:-100] = img
    photo = tmp_path / "flat.png"
    cv2.imwrite(str(photo), canvas)
    capsys.readouterr()
    assert main(["score", str(photo), "--json"]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["format"] == "card/1"
    assert [g["cells"] for g in card["grids"]] == [{}, {}]


def test_score_json_and_annotated_image(tmp_path, capsys):
    photo = fixture_photo()
    truth = json.loads(photo.with_suffix(".json").read_text())
    debug = tmp_path / "dbg"
    assert main(["score", str(photo), "--json", "--debug-dir", str(debug)]) == 0
    card = json.loads(capsys.readouterr().out)
    assert card["format"] == "card/1"
    assert len(card["grids"]) == len(truth["grids"])
    assert card["score"]["game"] == "reflector"
    assert card["score"]["status"] in ("win", "true_draw", "in_progress", "undetermined")
    annotated = debug / f"{photo.stem}.annotated.png"
    img = cv2.imread(str(annotated))
    assert img is not None and img.shape[1] > img.shape[0]
    assert (debug / f"{photo.stem}.detection.jpg").exists()


def test_score_human_summary(capsys):
    assert main(["score", str(fixture_photo())]) == 0
    out = capsys.readouterr().out
    assert "grid 1" in out and "result:" in out


def test_unreadable_photo_is_one_line_exit_1(tmp_path, capsys):
    bad = tmp_path / "bad.jpg"
    bad.write_bytes(b"not a jpeg at all")
    assert main(["score", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.jpg" in err and "Traceback" not in err


def test_batch_reports_and_skips_a_bad_photo(tmp_path, capsys):
    folder = tmp_path / "photos"
    folder.mkdir()
    good = fixture_photo()
    shutil.copy(good, folder / "a.jpg")
    cv2.imwrite(str(folder / "b.png"), np.full((300, 400), 180, np.uint8))  # no card
    report = tmp_path / "report"
    code = main(["score", str(folder), "--jobs", "2", "--report", str(report), "--quiet"])
    assert code == 1  # one photo could not be read; the other was still scored
    captured = capsys.readouterr()
    assert "skipped" in captured.err and "b.png" in captured.err
    rows = list(csv.DictReader(report.with_suffix(".csv").read_text().splitlines()))
    assert [Path(r["path"]).name for r in rows] == ["a.jpg", "b.png"]
    assert rows[0]["ok"] == "True" and rows[1]["ok"] == "False"
    assert "no card" in rows[1]["error"]
    data = json.loads(report.with_suffix(".json").read_text())
    assert data["photos"][0]["card"]["format"] == "card/1"


def _child_blas_threads() -> str | None:
    return os.environ.get("OPENBLAS_NUM_THREADS")


def test_batch_workers_start_with_one_blas_thread_and_the_parent_is_restored(monkeypatch):
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "7")
    monkeypatch.delenv("MKL_NUM_THREADS", raising=False)
    spawn = multiprocessing.get_context("spawn")
    with (
        _single_threaded_children(),
        ProcessPoolExecutor(max_workers=1, mp_context=spawn) as pool,
    ):
        assert pool.submit(_child_blas_threads).result() == "1"
    assert os.environ["OPENBLAS_NUM_THREADS"] == "7"
    assert "MKL_NUM_THREADS" not in os.environ


def test_batch_glob_pattern(tmp_path, capsys):
    for name in ("x1.jpg", "x2.jpg"):
        shutil.copy(fixture_photo(), tmp_path / name)
    report = tmp_path / "r"
    code = main(
        ["score", str(tmp_path / "x*.jpg"), "--jobs", "1", "--report", str(report), "--quiet"]
    )
    assert code == 0
    rows = list(csv.DictReader(report.with_suffix(".csv").read_text().splitlines()))
    assert len(rows) == 2 and all(r["ok"] == "True" for r in rows)


def test_camera_calibration_file_is_used(tmp_path, capsys):
    calib = tmp_path / "cam.yaml"
    fs = cv2.FileStorage(str(calib), cv2.FILE_STORAGE_WRITE)
    fs.write("camera_matrix", np.array([[1500.0, 0, 799.5], [0, 1500.0, 599.5], [0, 0, 1]]))
    fs.write("distortion_coefficients", np.zeros((1, 5)))
    fs.write("image_width", 1600)
    fs.write("image_height", 1200)
    fs.write("rms", 0.3)
    fs.release()
    assert main(["score", str(fixture_photo()), "--json", "--camera-calibration", str(calib)]) == 0
    assert json.loads(capsys.readouterr().out)["format"] == "card/1"
    assert (
        main(["score", str(fixture_photo()), "--camera-calibration", str(tmp_path / "no.yaml")])
        == 1
    )
