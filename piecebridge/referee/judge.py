"""The judge: committed views in, rulings out, the game state kept.

A turn is judged in *segments*: from the turn's start (or its last shot) the judge asks
the rules engine's :func:`~piecebridge.rules.reflec.explain.explain` for the cheapest
legal actions that turn the segment's starting board into the view now seen. So a coin
nudged twice, or moved and then moved back, is charged once, as the players mean it; the
segment's actions go into the log when the segment closes (a shot or the end of the turn).

Every change the judge sees becomes an :class:`Event` for the display and the terminal:
``accepted`` (actions and points), ``flagged`` (an impossible change: one sentence and the
offending cells; the judge then waits until the board is put back or made legal),
``cleared``, ``fired`` (the beam's path), ``remove`` (pieces to take off), ``removed``,
``turn``, ``eliminated``, ``game_over``, ``unsure`` (cells unreadable), ``info``.

>>> from piecebridge.rules import reflec
>>> judge = Judge(reflec.new_game(["suns", "moons"]))
>>> board = {"coins": [{"cell": "c4", "suit": "suns", "facing": "north"}],
...          "pawns": judge.state.board.to_json()["pawns"]}
>>> [e.kind for e in judge.observe(board, [])]
['accepted']
>>> judge.actions
['place c4 suns north']
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from piecebridge.referee.gamelog import GameLog, Resumed
from piecebridge.rules import reflec as R
from piecebridge.rules.reflec.core import (
    CELL_NAMES,
    NEIGHBOURS,
    Board,
    BoardError,
    Coin,
    Pawn,
    manhattan,
)
from piecebridge.rules.reflec.explain import explain

#: A reading that contradicts what the judge expects must be at least this sure to count;
#: below it a coin's facing is taken to be unchanged (facings are the hardest thing to see).
FACING_CONFIDENCE = 0.75

#: A coin or pawn read at most this sure (the reader's "half sure" rules: a piece told by
#: elimination or beside a hand) that is not the piece expected there is taken as unread:
#: the judge waits for a clearer view rather than flag a move on a guess.
UNSURE_PIECE = 0.5


@dataclass
class Event:
    """Something for the display and the terminal. ``text`` is one sentence for a person."""

    kind: str
    text: str
    cells: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    path: list[str] = field(default_factory=list)
    t: float = 0.0


@dataclass
class Flag:
    reason: str
    cells: list[str]
    seen: Board | None = None  # the view that was flagged


def _names(cells: Any) -> list[str]:
    return [CELL_NAMES[c] if isinstance(c, int) else c for c in cells]


class Judge:
    """Keeps the game; see the module docstring. ``log`` (a :class:`GameLog`) is optional."""

    def __init__(self, state: R.GameState, log: GameLog | None = None) -> None:
        self.state = state  # after every accepted action, the open segment's included
        self.base = state  # where the open segment starts
        self.pending: tuple[R.Action, ...] = ()
        self.actions: list[str] = []  # closed segments' actions, as logged
        self.log = log
        self.flag: Flag | None = None
        self.removal: list[str] = []  # cells whose pieces must come off the board
        self.unsure: list[str] = []
        self._removal_board = state.board
        self.frame: int | None = None  # the source's frame index, for the log
        #: cell -> (what the camera shows, what it means): misreads the players confirmed.
        #: An alias holds only while it is the same misread of the same piece; it is
        #: dropped (said and logged as ``alias_dropped``) when (1) the piece expected there
        #: changed (an action moved it, or a shot takes it off), (2) the camera reads the
        #: cell as anything but the confirmed look (the misread is over; an unreadable
        #: cell keeps it), or (3) the view is legal only without it: the look it stands
        #: for is also what a real move looks like (an empty-looking cell whose coin was
        #: moved away, a phantom coin on a cell a coin moved onto), so it must not hide one.
        self.aliases: dict[int, tuple[Any, Any]] = {}
        self._applied: list[int] = []  # aliases applied to the view being judged
        self._dropped: dict[str, str] = {}  # aliases dropped by this view: cell -> why
        #: cell -> how its coin's facing was decided without a sure reading (last view)
        self.assumed: dict[int, str] = {}
        self._kept: dict[str, str] = {}

    # ---- resume ----

    @classmethod
    def resume(cls, resumed: Resumed, log: GameLog | None = None) -> Judge:
        judge = cls(resumed.state, log)
        judge.actions = list(resumed.actions)
        judge.removal = list(resumed.removal)
        for name, (shown, meant) in resumed.aliases.items():
            judge.aliases[R.parse_cell(name)] = (_piece(shown), _piece(meant))
        if judge.removal:
            pieces = dict(zip(range(64), judge.state.board.squares, strict=True))
            gone = Board.from_json(resumed.removal_pieces)
            pieces.update({c: p for c, p in enumerate(gone.squares) if p is not None})
            judge._removal_board = Board.from_pieces(pieces)
        if resumed.observed is not None:
            quiet = judge.log
            judge.log = None  # re-judging the last view must not log it again
            judge.observe(resumed.observed, list(resumed.observed.get("unknown", [])))
            judge.log = quiet
        return judge

    # ---- what the table should show ----

    def expected_board(self) -> Board:
        """The board the table should hold: the state's, plus pieces not yet taken off."""
        if not self.removal:
            return self.state.board
        return self._removal_board

    def display_cells(self) -> dict[str, str]:
        """Cell -> colour for the display: suit colours, neutral coins grey."""
        cells: dict[str, str] = {}
        board = self.expected_board()
        for cell, coin in board.coins():
            owner = self.state.owner_of(coin.suit)
            cells[CELL_NAMES[cell]] = coin.suit.value if owner is not None else "grey"
        for cell, pawn in board.pawns():
            cells[CELL_NAMES[cell]] = pawn.suit.value
        return cells

    @property
    def points_spent(self) -> int:
        return sum(a.cost for a in self.pending)

    def summary(self) -> str:
        s = self.state
        if s.phase == "over":
            return f"game over: {_player(s, s.winner)} win"
        if s.phase == "drop":
            return f"Drop round: {_player(s, s.current)} to place a coin"
        return (
            f"{_player(s, s.current)} to play: {s.tile_points} tile point"
            f"{'' if s.tile_points == 1 else 's'} and die {s.die} left"
        )

    # ---- views ----

    def observe(self, board: dict[str, Any], unknown: list[str], t: float = 0.0) -> list[Event]:
        """Judge a committed view (reflec-board/1 dict, cells that could not be read).

        A guess of the reader that contradicts the expected board is taken as unread, and
        said (an ``unsure`` event), so a player who really did take that piece off knows the
        referee has not seen it.
        """
        board, doubted = self._unsure_as_unread(board)
        events = self._observe(board, sorted(set(unknown) | set(doubted)), t)
        if doubted:
            text = f"{_cells_text(doubted)} read only half sure: taken as the board was"
            events.append(Event("unsure", text, doubted, t=t))
        return events

    def _observe(self, board: dict[str, Any], unknown: list[str], t: float) -> list[Event]:
        try:
            seen = self._reconcile(board, unknown)
        except BoardError as error:
            return [
                *self._dropped_event(t),
                Event("unsure", f"the view makes no sense ({error})", t=t),
            ]
        events: list[Event] = self._dropped_event(t) + self._kept_facings(seen, t)
        if self.removal:
            still = [c for c in self.removal if seen.squares[R.parse_cell(c)] is not None]
            if still:
                if set(still) & set(unknown):
                    return []
                return [Event("remove", f"take {_cells_text(still)} off the board", still, t=t)]
            events.append(Event("removed", "the removed pieces are off the board", t=t))
            self.removal = []
            self._note(removal=[])
        if self.state.phase == "drop":
            return events + self._observe_drop(seen, unknown, t)
        if seen.squares == self.state.board.squares:
            if self.flag:
                self.flag = None
                events.append(Event("cleared", "the board is back as it was: play on", t=t))
            return events
        if self.state.phase == "over":
            return [*events, self._raise_flag("the game is over: nothing may move", seen, t)]
        found, seen = self._explain(seen, unknown)
        if not found.found and self._applied:
            # an alias may hide a real move (its look is also the look of a move): if the
            # camera's own reading is legal, the alias is over
            plain = self._without_applied(seen)
            again, plain = self._explain(plain, unknown)
            if again.found:
                for cell in self._applied:
                    self._drop_alias(cell, "the view is legal only as the camera reads it")
                self._applied = []
                events += self._dropped_event(t)
                found, seen = again, plain
        if not found.found:
            if unknown:
                self.unsure = list(unknown)
                return [
                    *events,
                    Event("unsure", f"cannot read {_cells_text(unknown)}: keep it clear", t=t),
                ]
            # Blame what changed last (the whole segment's sum can point at an innocent piece).
            last = explain(self.state.board, seen, self.state)
            if not last.found and last.reason:
                found = last
            return [*events, self._raise_flag(found.reason, seen, t, _names(found.cells))]
        if seen.squares == self.state.board.squares:
            return events
        sequence = found.sequences[0]
        state = self.base
        for action in sequence:
            state, _ = R.apply(state, action)
        before = {str(a) for a in self.pending}
        before_board = self.state.board
        self.pending = tuple(sequence)
        self.state = state
        if self.flag:
            self.flag = None
            events.append(Event("cleared", "the board is legal again: play on", t=t))
        changed = [str(a) for a in sequence if str(a) not in before]
        cost = found.cost or 0
        text = (
            f"{_player(state, state.current)}: {', '.join(map(str, sequence)) or 'no change'} "
            f"({cost} point{'' if cost == 1 else 's'} this segment)"
        )
        text += self._assumptions(before_board, state.board)
        events.append(Event("accepted", text, actions=changed or [str(a) for a in sequence], t=t))
        return events

    def _explain(self, seen: Board, unknown: list[str]) -> tuple[Any, Board]:
        """The cheapest legal reading of the view: unreadable cells first as expected, then
        as holding a piece that left a readable cell nearby, or emptied by one that arrived.
        """
        first = None
        for board in self._hypotheses(seen, unknown):
            if board.squares == self.state.board.squares:
                return explain(self.state.board, board, self.state), board
            found = explain(self.base.board, board, self.base)
            if found.found:
                return found, board
            first = first or (found, board)
        assert first is not None
        return first

    def _hypotheses(self, seen: Board, unknown: list[str], limit: int = 12) -> list[Board]:
        expected = self.expected_board()
        hidden = [R.parse_cell(u) for u in unknown]
        if not hidden:
            return [seen]
        budget = max(self.base.points_left, 1)
        shown = [c for c in range(64) if c not in hidden]
        vanished = [
            expected.squares[c]
            for c in shown
            if expected.squares[c] is not None and seen.squares[c] != expected.squares[c]
        ]
        arrived = [
            (c, seen.squares[c])
            for c in shown
            if seen.squares[c] is not None and seen.squares[c] != expected.squares[c]
        ]
        options: list[list[Any]] = []
        for cell in hidden:
            here = [seen.squares[cell]]
            want = expected.squares[cell]
            if want is not None and any(
                _same_piece(want, p) and manhattan(cell, c) <= budget for c, p in arrived
            ):
                here.append(None)
            here += [p for p in vanished if p not in here]
            options.append(here)
        combos = sorted(
            itertools.islice(itertools.product(*[range(len(o)) for o in options]), 4096),
            key=lambda combo: sum(1 for i in combo if i),
        )[:limit]
        boards = []
        for combo in combos:
            pieces = dict(enumerate(seen.squares))
            pieces.update(
                {cell: options[k][i] for k, (cell, i) in enumerate(zip(hidden, combo, strict=True))}
            )
            try:
                boards.append(Board.from_json(Board.from_pieces(pieces).to_json()))
            except BoardError:
                continue  # two pawns of a suit, too many coins: not a possible board
        return boards or [seen]

    def _unsure_as_unread(self, board: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
        """The view without the guesses that contradict the expected board, and the cells
        they were on (to be taken as unread): each coin or pawn read at most
        :data:`UNSURE_PIECE` sure that is not the piece expected there (a facing alone is
        left to :meth:`_reconcile`), and each cell read empty only under doubt
        (``unsure_empty``: glare, a textured tile) where a piece is expected, unless that
        piece is to be taken off after a shot (empty is then what is expected)."""
        expected = self.expected_board().squares
        doubted = [
            c
            for c in board.get("unsure_empty", [])
            if expected[R.parse_cell(c)] is not None and c not in self.removal
        ]
        kept: dict[str, list[dict]] = {"coins": [], "pawns": []}
        for kind, piece_type in (("coins", Coin), ("pawns", Pawn)):
            for item in board.get(kind, []):
                want = expected[R.parse_cell(item["cell"])]
                same = type(want) is piece_type and want.suit is R.Suit.parse(item["suit"])
                if float(item.get("confidence", 1.0)) <= UNSURE_PIECE and not same:
                    doubted.append(item["cell"])
                else:
                    kept[kind].append(item)
        return {**board, **kept}, sorted(doubted)

    def _reconcile(self, board: dict[str, Any], unknown: list[str]) -> Board:
        """The view as a Board: unreadable cells keep what is expected there, and an unsure
        facing that contradicts the expected coin is taken to be unchanged.
        """
        expected = self.expected_board()
        pieces: dict[int, Any] = {}
        self.assumed = {}
        seen_cells = {
            R.parse_cell(i["cell"]) for i in board.get("coins", []) + board.get("pawns", [])
        }
        for item in board.get("coins", []):
            cell = R.parse_cell(item["cell"])
            suit = R.Suit.parse(item["suit"])
            want = expected.squares[cell]
            conf = float(item.get("confidence", 1.0))
            if item["facing"] == "?":
                coin, why = _guess_facing(cell, suit, expected, seen_cells)
                self.assumed[cell] = why
            else:
                coin = Coin(suit, R.Direction.parse(item["facing"]))
            if type(want) is Coin and want.suit is coin.suit and conf < FACING_CONFIDENCE:
                if coin != want and item["facing"] != "?":
                    self.assumed[cell] = f"read {item['facing']} unsure ({conf:.2f}): kept"
                coin = want
            pieces[cell] = coin
        for item in board.get("pawns", []):
            pieces[R.parse_cell(item["cell"])] = Pawn(R.Suit.parse(item["suit"]))
        for name in unknown:
            cell = R.parse_cell(name)
            if expected.squares[cell] is not None:
                pieces[cell] = expected.squares[cell]
            else:
                pieces.pop(cell, None)
        # Cells the players confirmed as misread: that look means the expected piece.
        self._applied = []
        hidden = {R.parse_cell(u) for u in unknown}
        for cell, (shown, meant) in list(self.aliases.items()):
            if expected.squares[cell] != meant:
                self._drop_alias(cell, "the piece there changed")
            elif cell in hidden:
                continue  # not read this time: the expected piece stands, the alias too
            elif pieces.get(cell) != shown:
                self._drop_alias(cell, f"now read as {_piece_text(pieces.get(cell))}")
            else:
                pieces[cell] = meant
                self._applied.append(cell)
        return Board.from_pieces(pieces)

    def _drop_alias(self, cell: int, why: str) -> None:
        del self.aliases[cell]
        self._dropped[CELL_NAMES[cell]] = why

    def _without_applied(self, seen: Board) -> Board:
        """The view with the aliases applied to it undone (the camera's own reading)."""
        pieces = dict(enumerate(seen.squares))
        for cell in self._applied:
            pieces[cell] = self.aliases[cell][0]
        return Board.from_pieces(pieces)

    def _dropped_event(self, t: float) -> list[Event]:
        """The aliases dropped since the last call: noted in the log, said once."""
        if not self._dropped:
            return []
        dropped, self._dropped = self._dropped, {}
        self._note(alias_dropped=dropped)
        text = "; ".join(f"{c} {why}" for c, why in sorted(dropped.items()))
        return [Event("info", f"confirmed misread no longer applies: {text}", sorted(dropped),
                      t=t)]  # fmt: skip

    def _observe_drop(self, seen: Board, unknown: list[str], t: float) -> list[Event]:
        """Drop round: new coins on open cells, placed in turn order (several at once too)."""
        now = self.state.board
        if seen.squares == now.squares:
            if self.flag:
                self.flag = None
                return [Event("cleared", "the board is back as it was: play on", t=t)]
            return []
        changed = [c for c in range(64) if seen.squares[c] != now.squares[c]]
        bad = [c for c in changed if now.squares[c] is not None]
        if bad:
            return [self._raise_flag(
                f"{_cells_text(_names(bad))} changed during the Drop round, when coins are only "
                "placed on open cells", seen, t, _names(bad))]  # fmt: skip
        new = {c: seen.squares[c] for c in changed}
        if any(type(p) is not Coin for p in new.values()):
            cells = [c for c, p in new.items() if type(p) is not Coin]
            return [self._raise_flag("lasers are never added to the board", seen, t, _names(cells))]
        state, placed = self.state, []
        todo = dict(new)
        # Unreadable open cells may hold coins (their suit unseen): they fill the gaps of the
        # turn order, and with few of them in a still view (not a hand) they end the batch.
        spare = [R.parse_cell(u) for u in unknown if now.squares[R.parse_cell(u)] is None]
        tail = len(spare) <= 2
        while todo or (tail and spare):
            mine = [c for c, p in sorted(todo.items()) if state.controls(p.suit)]
            mine = [c for c in mine if todo[c].suit in state.current_suits] or mine
            if not mine and spare:
                suits = [s for s in state.current_suits if state.unplaced[R.SUITS.index(s)]]
                if suits:
                    cell = spare.pop(0)
                    todo[cell] = Coin(suits[0], R.Direction.NORTH)  # facing unreadable: north
                    self.assumed[cell] = f"not read: taken as the {suits[0].value} coin due"
                    mine = [cell]
            if not mine and not todo:
                break
            if not mine:
                if unknown:
                    return [Event("unsure", f"cannot read {_cells_text(unknown)}", t=t)]
                suits = sorted({p.suit.value for p in todo.values()})
                who = _player(state, state.current)
                return [self._raise_flag(
                    f"{' and '.join(suits)} coins were placed but it is {who}'s turn to place "
                    "one (the Drop round goes one coin at a time, in turn order)",
                    seen, t, _names(todo))]  # fmt: skip
            cell = mine[0]
            coin = todo.pop(cell)
            action = R.Place(cell, coin.suit, coin.facing)
            try:
                state, _ = R.apply(state, action)
            except R.IllegalAction as error:
                return [self._raise_flag(str(error), seen, t, [CELL_NAMES[cell]])]
            placed.append(action)
        self.flag = None
        events = []
        self._commit_actions(placed, t)
        self.state = self.base = state
        text = f"placed: {', '.join(map(str, placed))}" + self._assumptions(now, state.board)
        events.append(Event("accepted", text,
                            actions=[str(a) for a in placed], t=t))  # fmt: skip
        if state.phase == "play":
            events.append(self._turn_event(t))
        return events

    def _kept_facings(self, seen: Board, t: float) -> list[Event]:
        """Coins read with another facing than expected, but unsure: the expected facing
        is kept (a spin the camera cannot confirm is not charged). Said once per change."""
        kept = {
            CELL_NAMES[c]: f"{why} {seen.squares[c].facing.value}"
            for c, why in sorted(self.assumed.items())
            if why.endswith(": kept")
        }
        if kept == self._kept:
            return []
        self._kept = kept
        if not kept:
            return []
        self._note(facing_kept=kept)
        text = "; ".join(f"{c} facing {why}" for c, why in kept.items())
        return [Event("info", text, sorted(kept), t=t)]

    def _assumptions(self, before: Board, after: Board) -> str:
        """The coins that changed in this view whose facing was not read surely: said in
        the terminal and noted in the log (``{"referee": {"facing_assumed": ...}}``)."""
        cells = {
            CELL_NAMES[c]: f"{after.squares[c].facing.value} ({self.assumed[c]})"
            for c in sorted(self.assumed)
            if type(after.squares[c]) is Coin and after.squares[c] != before.squares[c]
        }
        if not cells:
            return ""
        self._note(facing_assumed=cells)
        return "; facing " + ", ".join(f"{c} {why}" for c, why in cells.items())

    def _raise_flag(self, reason: str, seen: Board, t: float, cells: list[str] | None = None):
        if cells is None:
            cells = [
                CELL_NAMES[c] for c in range(64) if seen.squares[c] != self.state.board.squares[c]
            ]
        self.flag = Flag(reason, sorted(cells), seen)
        self._note(flag=reason, cells=self.flag.cells)
        return Event("flagged", reason[0].upper() + reason[1:] + ".", self.flag.cells, t=t)

    def confirm(self, t: float = 0.0) -> list[Event]:
        """The players confirm the referee's board over a flagged view (the camera misread):
        the flagged look of those cells is taken to mean what the referee expects there.
        """
        if self.flag is None or self.flag.seen is None:
            return [Event("info", "nothing to confirm", t=t)]
        expected, seen = self.expected_board(), self.flag.seen
        cells = [c for c in range(64) if seen.squares[c] != expected.squares[c]]
        for c in cells:
            self.aliases[c] = (seen.squares[c], expected.squares[c])
        names = [CELL_NAMES[c] for c in cells]
        self.flag = None
        # the log carries the meaning itself, so a resumed game reads these cells the same
        aliases = {
            CELL_NAMES[c]: [_piece_json(seen.squares[c]), _piece_json(expected.squares[c])]
            for c in cells
        }
        self._note(confirmed=names, aliases=aliases)
        return [Event("cleared", f"confirmed by the players: {_cells_text(names)} read as "
                      "the referee's board (a misread)", names, t=t)]  # fmt: skip

    # ---- buttons ----

    def can_act(self) -> str | None:
        """Why a shot or the end of the turn cannot happen now (None: it can)."""
        if self.state.phase != "play":
            return "the game is over" if self.state.phase == "over" else "it is the Drop round"
        if self.flag:
            return f"first put the board right ({self.flag.reason})"
        if self.removal:
            return f"first take {_cells_text(self.removal)} off the board"
        return None

    def fire(self, direction: str, pawn: str | None = None, t: float = 0.0) -> list[Event]:
        """Fire the current player's laser (closing the open segment first)."""
        why = self.can_act()
        if why:
            return [Event("info", f"cannot fire: {why}", t=t)]
        text = f"fire {pawn + ' ' if pawn else ''}{direction}"
        try:
            action = R.parse_action(text)
            state, events = R.apply(self.state, action)
        except (R.NotationError, R.IllegalAction) as error:
            return [Event("info", f"cannot fire: {error}", t=t)]
        self._close_segment(t)
        self._commit_action(action, t)
        out: list[Event] = []
        removal: list[str] = []
        board_before = self.state.board
        for ev in events:
            if isinstance(ev, R.Fired):
                path = _names(ev.beam.path)
                end = ev.beam.end
                out.append(Event("fired", f"{ev.suit.value} fire {ev.direction.value}: the beam "
                                 f"ends at {'the edge' if end == 'edge' else end}", path[-1:],
                                 path=path, t=t))  # fmt: skip
            elif isinstance(ev, R.CoinsRemoved):
                removal += _names(ev.cells)
                out.append(Event("remove", f"a loop! remove {_cells_text(_names(ev.cells))}",
                                 _names(ev.cells), t=t))  # fmt: skip
            elif isinstance(ev, R.LaserDestroyed):
                removal.append(CELL_NAMES[ev.cell])
                out.append(Event("remove", f"the {ev.suit.value} laser on {CELL_NAMES[ev.cell]} "
                                 "is hit: take it off", [CELL_NAMES[ev.cell]], t=t))  # fmt: skip
            elif isinstance(ev, R.PlayerEliminated):
                suits = "+".join(s.value for s in ev.suits)
                out.append(Event("eliminated", f"{suits} are out: their coins are neutral", t=t))
            elif isinstance(ev, R.GameOver):
                out.append(Event("game_over", f"{_player(state, ev.winner)} win the game", t=t))
            elif isinstance(ev, R.TurnStarted):
                pass
        self._removal_board = board_before
        self.removal = sorted(set(removal))
        for name in self.removal:
            if R.parse_cell(name) in self.aliases:
                self._drop_alias(R.parse_cell(name), "its piece must come off the board")
        out += self._dropped_event(t)
        self.state = self.base = state
        self.pending = ()
        if self.removal:
            gone = board_before.to_json()
            gone["coins"] = [c for c in gone["coins"] if c["cell"] in self.removal]
            gone["pawns"] = [p for p in gone["pawns"] if p["cell"] in self.removal]
            self._note(removal=self.removal, pieces=gone)
        if any(isinstance(e, R.TurnStarted) for e in events):
            out.append(self._turn_event(t))
        return out

    def end_turn(self, t: float = 0.0) -> list[Event]:
        why = self.can_act()
        if why:
            return [Event("info", f"cannot end the turn: {why}", t=t)]
        try:
            state, _ = R.apply(self.state, R.EndTurn())
        except R.IllegalAction as error:
            return [Event("info", f"cannot end the turn: {error}", t=t)]
        self._close_segment(t)
        self._commit_action(R.EndTurn(), t)
        self.state = self.base = state
        self.pending = ()
        return [self._turn_event(t)]

    def _turn_event(self, t: float) -> Event:
        return Event("turn", self.summary(), t=t)

    # ---- log ----

    def _close_segment(self, t: float) -> None:
        self._commit_actions(self.pending, t)
        self.pending = ()

    def _commit_action(self, action: R.Action, t: float) -> None:
        self._commit_actions([action], t)

    def _commit_actions(self, actions: Any, t: float) -> None:
        """Log actions, all in one write (one fsync: it is on the way to the display)."""
        names = [str(a) for a in actions]
        self.actions += names
        if self.log is not None and names:
            extra = {} if self.frame is None else {"frame": self.frame}
            self.log.actions(names, t=t, **extra)

    def _note(self, **info: Any) -> None:
        if self.log is not None:
            self.log.note(**info, **({} if self.frame is None else {"frame": self.frame}))


def _piece_json(piece: Any) -> dict[str, str] | None:
    """A piece as plain data for the log: {"coin": suit, "facing": dir}, {"pawn": suit}.

    >>> _piece_json(Coin(R.Suit.SUNS, R.Direction.EAST))
    {'coin': 'suns', 'facing': 'east'}
    """
    if piece is None:
        return None
    if type(piece) is Coin:
        return {"coin": piece.suit.value, "facing": piece.facing.value}
    return {"pawn": piece.suit.value}


def _piece(data: dict[str, str] | None) -> Any:
    """The inverse of :func:`_piece_json`."""
    if data is None:
        return None
    if "coin" in data:
        return Coin(R.Suit.parse(data["coin"]), R.Direction.parse(data["facing"]))
    return Pawn(R.Suit.parse(data["pawn"]))


def _piece_text(piece: Any) -> str:
    """A piece in words: "empty", "a suns coin facing east", "the moons laser".

    >>> _piece_text(Coin(R.Suit.SUNS, R.Direction.EAST))
    'a suns coin facing east'
    """
    if piece is None:
        return "empty"
    if type(piece) is Coin:
        return f"a {piece.suit.value} coin facing {piece.facing.value}"
    return f"the {piece.suit.value} laser"


def _same_piece(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a.suit is b.suit


def _guess_facing(
    cell: int, suit: R.Suit, expected: Board, seen_cells: set[int]
) -> tuple[Coin, str]:
    """A coin whose facing could not be read: as expected there; else as the coin of its
    suit that left a neighbouring cell (moves mostly keep the facing); else north. Also
    says which (for the log and the terminal).
    """
    want = expected.squares[cell]
    if type(want) is Coin and want.suit is suit:
        return want, "not read: as before"
    for n in NEIGHBOURS[cell]:
        there = expected.squares[n]
        if type(there) is Coin and there.suit is suit and n not in seen_cells:
            return there, f"not read: as the coin that left {CELL_NAMES[n]}"
    return Coin(suit, R.Direction.NORTH), "not read: north"


def _player(state: R.GameState, player: int | None) -> str:
    if player is None:
        return "nobody"
    return "+".join(s.value for s in state.players[player])


def _cells_text(cells: Any) -> str:
    names = sorted(_names(cells))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
