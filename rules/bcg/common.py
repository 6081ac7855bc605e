"""Pieces every Business Card Games engine shares: errors, events and results.

Engines follow one shape (python-chess manner): an immutable state,
``legal_actions(state)``, ``apply(state, action) -> (new_state, events)``, and
:class:`IllegalAction` with a human reason when an action breaks a rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from piecebridge.rules.bcg.grid import cell_name


class BcgError(ValueError):
    """Bad input to a Business Card Games engine (a state, record or notation)."""


class IllegalAction(BcgError):
    """An action the rules forbid in this state; ``str(error)`` says why.

    >>> str(IllegalAction("F3 is not next to your territory"))
    'F3 is not next to your territory'
    """


@dataclass(frozen=True)
class Event:
    """Something that happened while an action was applied.

    ``kind`` is one of ``claim``, ``capture``, ``retain``, ``reveal``, ``deflect``,
    ``activate``, ``reflect``, ``noop``, ``rotate``, ``eliminate``, ``ally``,
    ``disband``, ``desert``, ``home``, ``win``, ``draw``, ``pass``.
    ``grid`` is the grid index, ``cell`` a cell index, ``player`` who gains or acts,
    ``target`` who loses or answers, ``answer`` the Target's answer.
    """

    kind: str
    player: int | None = None
    grid: int | None = None
    cell: int | None = None
    target: int | None = None
    answer: str | None = None
    detail: tuple[Any, ...] = field(default=())

    def text(self) -> str:
        parts = [self.kind]
        if self.player is not None:
            parts.append(f"player={self.player}")
        if self.grid is not None:
            parts.append(f"grid={self.grid}")
        if self.cell is not None:
            parts.append(f"cell={cell_name(self.cell)}")
        if self.target is not None:
            parts.append(f"target={self.target}")
        if self.answer is not None:
            parts.append(f"answer={self.answer}")
        if self.detail:
            parts.append(" ".join(str(d) for d in self.detail))
        return " ".join(parts)


@dataclass(frozen=True)
class Result:
    """How a game ended: ``winners`` (empty for a draw) and a short reason."""

    winners: tuple[int, ...]
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"winners": list(self.winners), "reason": self.reason}

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> Result | None:
        if data is None:
            return None
        return cls(tuple(int(w) for w in data["winners"]), str(data["reason"]))


def options_from_json(cls: type, data: dict[str, Any] | None) -> Any:
    """Build an options dataclass, rejecting unknown names with one clear line."""
    data = dict(data or {})
    known = set(cls.__dataclass_fields__)
    unknown = sorted(set(data) - known)
    if unknown:
        raise BcgError(f"unknown option(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    return cls(**data)
