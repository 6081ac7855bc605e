"""Numeric options are checked where they are parsed: a usage error (exit 2), never a crash
or a silent nonsense run."""

from __future__ import annotations

import argparse

import pytest

from piecebridge.cli import main, non_negative, positive, positive_int


@pytest.mark.parametrize(
    ("parse", "text", "value"),
    [
        (non_negative, "0", 0.0),
        (non_negative, "0.5", 0.5),
        (positive, "30", 30.0),
        (positive_int, "3", 3),
    ],
)
def test_good_values_parse(parse, text, value):
    assert parse(text) == value


@pytest.mark.parametrize(
    ("parse", "text", "message"),
    [
        (non_negative, "-1", "0 or more"),
        (non_negative, "nan", "0 or more"),
        (non_negative, "x", "expected a number"),
        (positive, "0", "above 0"),
        (positive_int, "0", "1 or more"),
        (positive_int, "2.5", "whole number"),
    ],
)
def test_bad_values_are_refused_with_a_reason(parse, text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse(text)


@pytest.mark.parametrize(
    "args", [["--hold", "-1"], ["--hold-frames", "0"], ["--fps", "0"], ["--read-after", "x"]]
)
def test_referee_refuses_nonsense_timing_as_a_usage_error(args, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["referee", *args])
    assert stop.value.code == 2
    assert args[0] in capsys.readouterr().err
