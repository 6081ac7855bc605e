"""`piecebridge score` batches when things go wrong: nothing scored is lost.

Found by the robustness audit: Ctrl-C threw away every photo already scored (no report),
a killed worker process ended the batch with a traceback, a report that could not be
written failed only after the whole batch (with a traceback), ``--jobs -1`` was taken,
and an unreadable photo was reported as an "internal error".
"""

from __future__ import annotations

import csv
import shutil
from concurrent.futures import Future
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path

import pytest

from piecebridge.cli import main
from piecebridge.commands import score

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "images" / "cards"


def _photos(tmp_path: Path, n: int) -> list[str]:
    good = sorted((FIXTURES / "test").glob("test_*.jpg"))[0]
    paths = []
    for i in range(n):
        shutil.copy(good, tmp_path / f"p{i}.jpg")
        paths.append(str(tmp_path / f"p{i}.jpg"))
    return paths


def _fake_item(work) -> dict:
    return {"path": work[0], "ok": True, "card": None}


def test_ctrl_c_keeps_the_photos_scored_so_far_in_the_report(tmp_path, monkeypatch, capsys):
    paths = [str(tmp_path / f"p{i}.jpg") for i in range(4)]
    calls = []

    def item(work):
        calls.append(work[0])
        if len(calls) == 3:
            raise KeyboardInterrupt
        return _fake_item(work)

    monkeypatch.setattr(score, "_batch_item", item)
    report = tmp_path / "report"
    with pytest.raises(KeyboardInterrupt):
        score.run_batch(paths, None, None, None, 1, report, quiet=True)
    rows = list(csv.DictReader(report.with_suffix(".csv").read_text().splitlines()))
    assert [r["path"] for r in rows] == paths[:2]
    assert "scored 2 of 4 photos before the interrupt" in capsys.readouterr().err


class _PoolWithADeadWorker:
    """A process pool whose second job's worker was killed (SIGKILL, out of memory)."""

    def __init__(self, *args, **kwargs) -> None:
        self.jobs = 0

    def submit(self, fn, work):
        future: Future = Future()
        self.jobs += 1
        if self.jobs == 2:
            future.set_exception(BrokenProcessPool("a child process terminated abruptly"))
        elif self.jobs == 1:
            future.set_result(fn(work))
        return future  # the others never finish: the pool is broken

    def shutdown(self, wait=True, cancel_futures=False) -> None:
        pass


def test_a_killed_worker_reports_the_photos_left_instead_of_a_traceback(tmp_path, monkeypatch):
    paths = [str(tmp_path / f"p{i}.jpg") for i in range(4)]
    monkeypatch.setattr(score, "_batch_item", _fake_item)
    monkeypatch.setattr(score, "ProcessPoolExecutor", _PoolWithADeadWorker)
    monkeypatch.setattr(score.time, "sleep", lambda s: None)
    results = score.run_batch(paths, None, None, None, 2, tmp_path / "report", quiet=True)
    assert sorted(r["path"] for r in results) == paths
    assert [r["ok"] for r in results] == [True, False, False, False]
    assert all("process died" in r["error"] for r in results[1:])


def test_a_report_that_cannot_be_written_is_refused_before_scoring(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(score, "run_batch", lambda *a, **k: pytest.fail("scored first"))
    paths = _photos(tmp_path, 2)
    (tmp_path / "rep.csv").mkdir()  # the report's name is taken by a folder
    code = main(["score", *paths, "--report", str(tmp_path / "rep"), "--quiet"])
    assert code == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "rep.csv" in err and "Traceback" not in err


def test_negative_jobs_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["score", str(tmp_path), "--jobs", "-1"])
    assert stop.value.code == 2


def test_an_unreadable_photo_in_a_batch_is_no_internal_error(tmp_path, monkeypatch):
    def denied(path, *args):
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(score, "read_and_score", denied)
    item = score._batch_item(("x.jpg", None, None, None))
    assert item == {"path": "x.jpg", "ok": False, "error": "Permission denied"}


def test_a_node_off_the_grid_is_refused_before_any_photo_is_read(tmp_path, capsys):
    # was an internal error (GridError) after reading the photo, for every photo of a batch
    photo = tmp_path / "never-read.jpg"
    assert main(["score", str(photo), "--nodes0", "A1,Z99"]) == 1
    err = capsys.readouterr().err
    assert err == "piecebridge: error: --nodes0: 'Z99' is not a cell of a 10x10 grid (A1..J10)\n"


def test_scoring_a_node_off_the_grid_is_a_user_error():
    from piecebridge.errors import UserError
    from piecebridge.scoring import ScoreOptions, score_card1

    card = {"format": "card/1", "grids": [{"cells": {}}, {"cells": {}}]}
    options = ScoreOptions(symbols=("x", "o"), nodes=(["Z99"], ["A1"]))
    with pytest.raises(UserError, match="Z99"):
        score_card1(card, options)


def test_photos_finished_before_the_break_keep_their_result_once():
    collected, finished, failed, lost = Future(), Future(), Future(), Future()
    collected.set_result({"path": "a.jpg", "ok": True})
    finished.set_result({"path": "b.jpg", "ok": True})
    failed.set_exception(BrokenProcessPool("worker gone"))
    futures = {collected: "a.jpg", finished: "b.jpg", failed: "c.jpg", lost: "d.jpg"}
    items = list(score._left_after_break(futures, {collected}))
    assert [(i["path"], i["ok"]) for i in items] == [
        ("b.jpg", True),  # finished before the break: kept, not re-reported
        ("c.jpg", False),
        ("d.jpg", False),
    ]
    assert all("process died" in i["error"] for i in items[1:])
