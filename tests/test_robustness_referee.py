"""The referee when its display vanishes mid-game: the game goes on and nothing is lost.

Found by the robustness audit: killing simavr (the display's firmware) mid-game made the
next scripted button press raise BrokenPipeError, which ended the whole session, exit 0,
without its summary and with the rest of the game unrefereed.
"""

from __future__ import annotations

import pytest
from piecebridge.rules import reflec as R

from piecebridge.referee.app import Referee


def _referee() -> Referee:
    state = R.new_game(["suns", "moons"])
    return Referee.for_test(state)


def test_a_press_the_vanished_display_cannot_take_is_applied_directly():
    referee = _referee()

    def presser(button: str) -> None:
        raise BrokenPipeError(32, "Broken pipe")  # the simulator's stdin: it is gone

    referee.presser = presser
    referee._press("north", 3.0)
    assert [e.t for e in referee.stats.events] == [3.0]  # judged, at the press's time


def test_buttons_while_a_replay_waits_are_taken_at_game_time():
    # The wait between two frames of a paced recording polled the display at t=0: a
    # press (or "display unplugged") there was shown and logged at 0.00 s.
    referee = _referee()
    times: list[float] = []
    referee.poll = times.append  # type: ignore[method-assign]
    referee._idle(0.06, 10.0, 1.0)
    assert times and all(9.9 <= t <= 10.0 for t in times), times
    assert times == sorted(times)


@pytest.mark.firmware
def test_simavr_killed_mid_game_the_game_goes_on_and_the_log_replays(tmp_path):
    from test_referee_e2e import DEMO, expected_actions

    from piecebridge.display import simavr
    from piecebridge.referee.gamelog import action_segments
    from piecebridge.referee.session import SessionOptions, run_session

    simavr.require_or_skip()
    boards: list[simavr.SimavrBoard] = []

    class Board(simavr.SimavrBoard):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            boards.append(self)

    def unplug(referee, events) -> None:
        if any(e.kind == "accepted" for e in events) and boards[0]._proc.poll() is None:
            boards[0]._proc.kill()  # the USB cable pulled, the MCU gone
            boards[0]._proc.wait()

    log = tmp_path / "game.jsonl"
    opts = SessionOptions(
        source=str(DEMO), display="simavr", speed=0.0, quiet=True, png=None, log=str(log)
    )
    opts.observer = unplug
    mp = pytest.MonkeyPatch()
    mp.setattr(simavr, "SimavrBoard", Board)
    try:
        result = run_session(opts)
    finally:
        mp.undo()
    assert boards and boards[0]._proc.poll() is not None  # it was killed mid-game
    assert action_segments(result.judge.actions) == action_segments(expected_actions())
    replayed = R.replay(log.read_text().splitlines())
    assert len(replayed) == len(expected_actions()) + 1


def test_ctrl_c_stops_the_referee_with_its_summary_and_the_way_back(tmp_path, monkeypatch, capsys):
    # Ctrl-C is how a live game is stopped: it printed only "piecebridge: interrupted",
    # no summary and no word of the log to resume.
    from piecebridge.cli import main
    from piecebridge.referee import session

    def ctrl_c(referee, events) -> None:
        if len(referee.judge.actions) >= 3:
            raise KeyboardInterrupt

    real = session.run_session
    monkeypatch.setattr(
        "piecebridge.commands.referee.run_session",
        lambda opts, console: real(dataclass_replace(opts, observer=ctrl_c), console),
    )
    log = tmp_path / "game.jsonl"
    code = main(["referee", "--speed", "0", "--display", "none", "--log", str(log)])
    assert code == 130
    out = capsys.readouterr().out
    assert "actions logged" in out  # the summary
    assert f"--resume {log}" in " ".join(out.split())  # however the console wrapped it
    assert len(R.replay(log.read_text().splitlines())) - 1 >= 3


def dataclass_replace(opts, **changes):
    import dataclasses

    return dataclasses.replace(opts, **changes)


def test_resume_with_another_log_is_refused_not_ignored(tmp_path, capsys):
    from piecebridge.cli import main

    log = tmp_path / "game.jsonl"
    log.write_text("")
    other = tmp_path / "other.jsonl"
    assert main(["referee", "--resume", str(log), "--log", str(other)]) == 1
    assert "leave out --log" in capsys.readouterr().err
    assert not other.exists()


def test_two_games_started_in_one_second_get_two_logs(tmp_path, monkeypatch):
    # the second was refused: "the log exists already (use --resume ... to continue it)"
    from piecebridge.referee import session

    monkeypatch.setattr(session.tempfile, "gettempdir", lambda: str(tmp_path))
    monkeypatch.setattr(session.time, "strftime", lambda fmt: "20261123-120000")
    first = session.default_log_path()
    first.write_text("{}\n")
    second = session.default_log_path()
    assert second != first and not second.exists()
