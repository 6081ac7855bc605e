"""Button presses while the host keeps the display busy, through the real firmware in simavr.

Players press whenever they like, also while the referee streams pictures. Every press
must reach the host exactly once and in order: the firmware queues presses and re-sends
each until its EVENT_ACK, the host acknowledges them between pictures and drops re-sent
copies by their event seq (``firmware/PROTOCOL.md``, "Button events").
"""

from __future__ import annotations

import random
import threading
import time

import pytest

from piecebridge.display import Display, SerialTransport, simavr
from piecebridge.display import protocol as P

pytestmark = pytest.mark.firmware
CELLS = [P.cell_name(i) for i in range(64)]
COLOURS = ["suns", "moons", "crowns", "arms", "white", "amber"]
PRESSES = 14


@pytest.fixture(scope="module", autouse=True)
def built() -> None:
    simavr.require_or_skip()
    simavr.build_firmware("uno", "sim")


class Spy(SerialTransport):
    """The real port, counting frames; optionally a line that loses EVENT_ACKs.

    With ``lose_acks`` every press's EVENT_ACK (and the host's re-sends of it) vanishes
    until the display has re-sent that press: only the display's re-send can get it
    acknowledged, however the host's wall-clock ack timeout compares with simulated time.
    """

    def __init__(self, port: str, lose_acks: bool = False) -> None:
        super().__init__(port)
        self.lose_acks = lose_acks
        self.rx, self.tx = P.FrameReader(), P.FrameReader()
        self.received: list[P.Frame] = []
        self.sent: list[P.Frame] = []
        self.timeline: list[tuple[str, P.Frame]] = []  # ("tx" | "rx", frame), in order
        self.dropped: list[int] = []  # event seqs whose EVENT_ACK vanished on the wire
        self._losing: int | None = None  # the event seq whose EVENT_ACKs vanish
        self._resent = False  # whether the display re-sent that press since

    def read(self) -> bytes:
        data = super().read()
        frames = self.rx.feed(data)
        self.received.extend(frames)
        self.timeline += [("rx", f) for f in frames]
        if any(f.type == P.BUTTON and f.seq == self._losing for f in frames):
            self._resent = True  # the host had answered it: this is the display's re-send
        return data

    def write(self, data: bytes) -> None:
        frames = self.tx.feed(data)
        self.sent.extend(frames)
        self.timeline += [("tx", f) for f in frames]
        if any(self._lost(f) for f in frames):
            return  # lost on the line: the display re-sends BUTTON meanwhile
        super().write(data)

    def _lost(self, frame: P.Frame) -> bool:
        if frame.type != P.EVENT_ACK or not self.lose_acks:
            return False
        seq = frame.payload[0]
        if seq == self._losing:
            return not self._resent
        if seq in self.dropped:
            return False  # an earlier press, already recovered: a late re-send gets through
        self.dropped.append(seq)
        self._losing, self._resent = seq, False
        return True


def stream(display: Display, stop: threading.Event) -> None:
    """Board and laser updates back to back, faster than the link can carry them."""
    rng = random.Random(11)
    while not stop.is_set():
        display.show_board({c: rng.choice(COLOURS) for c in rng.sample(CELLS, 12)})
        start = rng.randrange(0, 56)
        display.show_laser(CELLS[start : start + rng.randrange(1, 8)], step_ms=0)
        time.sleep(0.001)


def press_script(
    board: simavr.SimavrBoard, rng: random.Random, n: int, busy: int = 0
) -> list[tuple[str, int]]:
    """Press ``n`` buttons (sometimes two overlapping), and more (at most ``3 n``) until
    ``busy`` of them were debounced while the LEDs were being written; returns (button,
    cycle) in order. How many presses meet a picture depends on how briskly the host
    answers the display's ACKs, which a loaded machine slows down: keep pressing rather
    than hope."""
    ms = simavr.F_CPU // 1000
    pressed: list[tuple[str, int]] = []
    while len(pressed) < n or (
        sum(debounced_during_leds(board.frames, pressed)) < busy and len(pressed) < 3 * n
    ):
        # Some quick taps: 25 ms is 20 ms of debounce plus an LED send or two. (With
        # millis(), slowed by the LED sends, the firmware needed 26 ms while streaming.)
        first = rng.choice(P.BUTTONS)
        hold = 25 if len(pressed) % 3 == 0 else rng.randrange(30, 70)
        at = int(board.press(first, hold_ms=hold)["cycle"])
        pressed.append((first, at))
        released = at + hold * ms
        if rng.random() < 0.3 and len(pressed) < n:
            # A second button 25 ms later, while the first is still held: the firmware
            # queues both and must send them in the order they were debounced.
            board.wait_cycle(at + 25 * ms)
            second = rng.choice([b for b in P.BUTTONS if b != first])
            at2 = int(board.press(second, hold_ms=60)["cycle"])
            pressed.append((second, at2))
            released = max(released, at2 + 60 * ms)
        # Everything released and the release debounced (20 ms) before the next press.
        board.wait_cycle(released + rng.randrange(30, 90) * ms)
    return pressed


def debounced_during_leds(frames: list[simavr.LedFrame], pressed: list[tuple[str, int]]):
    """For each press, whether an LED frame began within its 20 ms debounce (interrupts
    off, PORTD rewritten: what used to "release" a held button in simavr)."""
    window = simavr.DEBOUNCE_MS * simavr.F_CPU // 1000
    starts = [f.start for f in list(frames)]
    return [any(at <= s < at + window for s in starts) for _, at in pressed]


def frames_sent_in_flight(timeline: list[tuple[str, P.Frame]]) -> list[int]:
    """Seqs of host frames sent while another one was still unanswered (ACK, NACK or the
    HELLO a SYNC gets): the host must never have two frames on the wire at once."""
    waiting: int | None = None
    bad = []
    for way, f in timeline:
        if way == "tx" and f.seq:
            # The same seq is a re-send. A SYNC starts the session over: the host repeats
            # it (new seq) every 0.3 wall seconds until a HELLO answers, which a slowed
            # simulation can take longer than.
            if waiting is not None and f.seq != waiting and f.type != P.SYNC:
                bad.append(f.seq)
            waiting = f.seq
        elif way == "rx" and _answers(f, waiting):
            waiting = None
    return bad


def _answers(frame: P.Frame, seq: int | None) -> bool:
    """Whether a display frame answers the host frame ``seq``."""
    if frame.type == P.HELLO:
        return True
    return frame.type in (P.ACK, P.NACK) and frame.payload[:1] == bytes([seq or 0])


def run_presses(
    lose_acks: bool,
    faults: tuple[int, int, int],
    seed: int,
    ack_timeout: float = 0.25,
    busy: int = 0,
    max_tries: int = 8,
):
    with simavr.SimavrBoard(boot_ms=300) as board:
        spy: Spy | None = None

        def open_spy() -> Spy:
            nonlocal spy
            spy = Spy(board.pty, lose_acks)
            return spy

        display = Display(open_spy, ack_timeout=ack_timeout, max_tries=max_tries).start()
        stop = threading.Event()
        streamer = threading.Thread(target=stream, args=(display, stop), daemon=True)
        try:
            assert display.wait_idle(5.0)
            board.fault(*faults, seed=seed)
            streamer.start()
            time.sleep(0.1)
            pressed = press_script(board, random.Random(seed), PRESSES, busy)
            # Deadlines in simulated time: a loaded machine runs the simulation slowly.
            got, until = [], pressed[-1][1] + 3 * simavr.F_CPU
            wall_deadline = time.monotonic() + 60.0
            while len(got) < len(pressed) and time.monotonic() < wall_deadline:
                event = display.get_event(timeout=0.1)
                if event is not None:
                    got.append(event.button)
                elif board.cycle() > until:
                    break
            stop.set()
            streamer.join()
            # Re-sent BUTTONs still on their way must not become events.
            board.wait_ms(500)
            got += [e.button for e in display.events()]
            frames = list(board.frames)
        finally:
            stop.set()
            display.close()
    assert spy is not None
    return pressed, got, spy, frames, display.stats


def test_presses_while_pictures_stream_arrive_once_and_in_order():
    # The host's ack timeout counts wall seconds, the firmware runs in simulated time: on a
    # loaded machine simavr falls behind the clock, and a 0.25 s timeout re-sent frames
    # the display was still working through. Given a simulated line that slow, the host
    # waits longer; nothing may need re-sending on a clean line all the same.
    pressed, got, spy, frames, stats = run_presses(
        lose_acks=False, faults=(0, 0, 0), seed=5, ack_timeout=2.0, busy=PRESSES // 2
    )
    assert got == [b for b, _ in pressed]
    # The link really was busy: both kinds of picture kept going out (neither starved)...
    # Counted per press, not as a fixed total: the simulation runs at most at real time
    # and slower on a loaded host, and how many pictures fit in the presses' simulated
    # seconds depends on how briskly the host answers (25 to 100 of each, quiet or loaded).
    sent_types = [f.type for f in spy.sent]
    boards, lasers = sent_types.count(P.BOARD), sent_types.count(P.LASER)
    assert min(boards, lasers) >= len(pressed), (boards, lasers)
    assert abs(boards - lasers) <= 2, (boards, lasers)
    # ... and the LEDs were being written within the 20 ms debounce of half as many
    # presses as asked for (the script pressed on until they were, or gave up).
    busy = debounced_during_leds(frames, pressed)
    assert sum(busy) >= PRESSES // 2, busy
    # Acknowledged between pictures, never two host frames in flight: no retransmits.
    assert frames_sent_in_flight(spy.timeline) == []
    assert stats.retransmits == 0 and stats.nacks == 0
    assert sum(1 for f in spy.sent if f.type == P.EVENT_ACK) >= len(pressed)


def test_lost_event_acks_and_a_bad_line_neither_lose_nor_double_a_press():
    # Every press's EVENT_ACK vanishes until the display re-sends the press, and the line
    # drops, corrupts and repeats bytes. The host re-sends a lost EVENT_ACK every 0.25 wall
    # seconds and gives up (reconnects: a reset that loses the presses queued) after its
    # tries: 16 give the display's re-send, 100 ms of simulated time, 4 wall seconds.
    pressed, got, spy, _, stats = run_presses(
        lose_acks=True, faults=(1500, 1500, 1500), seed=9, max_tries=16
    )
    assert got == [b for b, _ in pressed], stats
    # The display sends a press only once the one before is acknowledged: every press's
    # first EVENT_ACK was lost, but the last one's may still wait behind a picture.
    assert len(spy.dropped) >= len(pressed) - 1, (spy.dropped, len(pressed))
    # The display re-sent those presses (same event seq) and the host took them once. (The
    # line lets an EVENT_ACK through only after a re-send, so a slow simulation cannot
    # let the host's own ack timeout recover the press first.)
    buttons = [f for f in spy.received if f.type == P.BUTTON]
    seqs = [f.seq for f in buttons]
    not_resent = [s for s in spy.dropped if seqs.count(s) < 2]
    assert not not_resent, "the display did not re-send unacknowledged presses"
    assert len(buttons) > len(pressed)
    assert stats.retransmits > 0


def test_the_in_flight_check_flags_a_pipelined_frame_but_not_a_repeated_sync():
    def tx(ftype: int, seq: int) -> tuple[str, P.Frame]:
        return ("tx", P.Frame(ftype, seq, b""))

    def ack(seq: int) -> tuple[str, P.Frame]:
        return ("rx", P.Frame(P.ACK, 0, bytes([seq])))

    hello = ("rx", P.Frame(P.HELLO, 0, b""))
    handshake = [tx(P.SYNC, 1), tx(P.SYNC, 2), hello]
    assert frames_sent_in_flight([*handshake, tx(P.BOARD, 3), ack(3), tx(P.LASER, 4)]) == []
    assert frames_sent_in_flight([*handshake, tx(P.BOARD, 3), tx(P.LASER, 4), ack(3)]) == [4]
    assert frames_sent_in_flight([tx(P.SYNC, 1), tx(P.BOARD, 2)]) == [2]
