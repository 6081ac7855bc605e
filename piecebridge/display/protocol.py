"""The display wire protocol: COBS framing, CRC-16, sequence numbers.

A frame on the wire is ``COBS(type, seq, payload..., crc_hi, crc_lo) + b"\\x00"`` with
CRC-16/GENIBUS over ``type, seq, payload``. It mirrors
``firmware/piecebridge_display/pb_core.c``; ``firmware/PROTOCOL.md`` is the reference.

>>> frame = encode_frame(PING, 7)
>>> decode_frame(frame[:-1])
Frame(type=2, seq=7, payload=b'')
>>> len(board_payload({"a1": 1, "h8": 3}))
32
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

PROTO_VERSION = 2  # 2: EVENT_ACK is a sequenced, ACKed command; SYNC carries the last event seq

# Host -> display.
SYNC = 0x01
PING = 0x02
EVENT_ACK = 0x03
PALETTE = 0x10
BOARD = 0x11
LASER = 0x12
BLINK = 0x13
STATUS = 0x14
BRIGHTNESS = 0x15
CLEAR = 0x16
# Display -> host.
HELLO = 0x80
ACK = 0x81
NACK = 0x82
BUTTON = 0x83
HEARTBEAT = 0x84

HELLO_REPLY = 0x01
NACK_FRAME, NACK_TYPE, NACK_PAYLOAD, NACK_NOT_SYNCED = 1, 2, 3, 4

MAX_PAYLOAD = 120
MAX_LASER = MAX_PAYLOAD - 3
MATRIX_LEDS = 64
STATUS_LEDS = 16
LED_COUNT = MATRIX_LEDS + STATUS_LEDS
PALETTE_SIZE = 16
BUTTONS = ("north", "east", "south", "west", "end_turn")


class FrameError(ValueError):
    """Bytes between two delimiters that are not a valid frame."""


@dataclass(frozen=True)
class Frame:
    type: int
    seq: int
    payload: bytes


def crc16(data: bytes) -> int:
    """CRC-16/GENIBUS (poly 0x1021, init 0xFFFF, final xor 0xFFFF).

    The final xor keeps a frame from staying valid with zero bytes appended.

    >>> hex(crc16(b"123456789"))
    '0xd64e'
    """
    crc = 0xFFFF
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc ^ 0xFFFF


def cobs_encode(data: bytes) -> bytes:
    """Consistent-overhead byte stuffing, without the trailing delimiter.

    >>> cobs_encode(b"\\x11\\x00\\x22")
    b'\\x02\\x11\\x02"'
    """
    out = bytearray([0])
    code_at, code = 0, 1
    for byte in data:
        if byte == 0:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
            continue
        out.append(byte)
        code += 1
        if code == 0xFF:
            out[code_at] = code
            code_at, code = len(out), 1
            out.append(0)
    out[code_at] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Inverse of :func:`cobs_encode`; raises :class:`FrameError` on malformed input."""
    out = bytearray()
    i, n = 0, len(data)
    while i < n:
        code = data[i]
        i += 1
        if code == 0 or i + code - 1 > n:
            raise FrameError("bad COBS block")
        block = data[i : i + code - 1]
        if 0 in block:
            raise FrameError("zero inside a COBS block")
        out += block
        i += code - 1
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


def encode_frame(ftype: int, seq: int, payload: bytes = b"") -> bytes:
    """A complete wire frame, delimiter included."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    raw = bytes([ftype, seq & 0xFF]) + bytes(payload)
    crc = crc16(raw)
    return cobs_encode(raw + bytes([crc >> 8, crc & 0xFF])) + b"\x00"


def decode_frame(encoded: bytes) -> Frame:
    """Decode the bytes between two delimiters (without them)."""
    raw = cobs_decode(encoded)
    if len(raw) < 4:
        raise FrameError("frame too short")
    crc = crc16(raw[:-2])
    if raw[-2:] != bytes([crc >> 8, crc & 0xFF]):
        raise FrameError("CRC mismatch")
    return Frame(raw[0], raw[1], bytes(raw[2:-2]))


class FrameReader:
    """Splits a byte stream into frames; garbage between delimiters is counted, not raised.

    >>> r = FrameReader()
    >>> [f.type for f in r.feed(b"junk\\x00" + encode_frame(ACK, 0, b"\\x05"))]
    [129]
    >>> r.errors
    1
    """

    def __init__(self, max_len: int = 2 * MAX_PAYLOAD) -> None:
        self._buf = bytearray()
        self._max = max_len
        self.errors = 0

    def feed(self, data: bytes) -> list[Frame]:
        frames = []
        for byte in data:
            if byte:
                if len(self._buf) <= self._max:
                    self._buf.append(byte)
                continue
            chunk, self._buf = bytes(self._buf), bytearray()
            if not chunk:
                continue
            try:
                if len(chunk) > self._max:
                    raise FrameError("frame too long")
                frames.append(decode_frame(chunk))
            except FrameError:
                self.errors += 1
        return frames


# ---- cells and payloads ----

COLUMNS = "abcdefgh"


def cell_index(cell: str) -> int:
    """Reflec cell name to matrix index: a1 = 0, h1 = 7, a8 = 56.

    >>> cell_index("c4")
    26
    """
    c = cell.strip().lower()
    if len(c) != 2 or c[0] not in COLUMNS or c[1] not in "12345678":
        raise ValueError(f"not a Reflec cell: {cell!r} (expected a1..h8)")
    return (int(c[1]) - 1) * 8 + COLUMNS.index(c[0])


def cell_name(index: int) -> str:
    """Inverse of :func:`cell_index`."""
    return f"{COLUMNS[index % 8]}{index // 8 + 1}"


def board_payload(cells: Mapping[str, int]) -> bytes:
    """64 palette indices, 4 bits each: 32 bytes, cell a1 in the high nibble of byte 0."""
    nibbles = [0] * MATRIX_LEDS
    for cell, colour in cells.items():
        if not 0 <= colour < PALETTE_SIZE:
            raise ValueError(f"palette index {colour} out of range")
        nibbles[cell_index(cell)] = colour
    return bytes((nibbles[i] << 4) | nibbles[i + 1] for i in range(0, MATRIX_LEDS, 2))


def laser_payload(path: Iterable[str], colour: int, step_ms: int = 40) -> bytes:
    cells = [cell_index(c) for c in path]
    if len(cells) > MAX_LASER:
        raise ValueError(f"laser path of {len(cells)} cells exceeds {MAX_LASER}")
    step = max(0, min(255, round(step_ms / 4)))
    return bytes([colour, step, len(cells), *cells])


def blink_payload(cells: Iterable[str], colour: int, half_period_ms: int, cycles: int) -> bytes:
    mask = bytearray(8)
    for c in cells:
        i = cell_index(c)
        mask[i >> 3] |= 1 << (i & 7)
    half = max(1, min(255, round(half_period_ms / 10)))
    return bytes([colour, half, max(0, min(255, cycles)), *mask])


def palette_payload(first: int, colours: list[tuple[int, int, int]]) -> bytes:
    if first + len(colours) > PALETTE_SIZE:
        raise ValueError("palette overflow")
    return bytes([first, len(colours), *(v for rgb in colours for v in rgb)])


def status_payload(colour: int, tile_points: int, die: int) -> bytes:
    if not 0 <= tile_points <= 4:
        raise ValueError(f"tile points {tile_points} not in 0..4")
    if not 0 <= die <= 5:
        raise ValueError(f"die {die} not in 0..5")
    return bytes([colour, tile_points, die])


@dataclass(frozen=True)
class Hello:
    proto: int
    fw_version: str
    led_count: int
    reply: bool
    echo_seq: int
    reset_cause: int

    @classmethod
    def parse(cls, payload: bytes) -> Hello:
        if len(payload) != 8:
            raise FrameError("HELLO must carry 8 bytes")
        p = payload
        return cls(p[0], f"{p[1]}.{p[2]}", p[3] | p[4] << 8, bool(p[5] & HELLO_REPLY), p[6], p[7])


@dataclass(frozen=True)
class Heartbeat:
    """The display's once-a-second report: uptime, bad frames seen, RAM never used."""

    uptime_s: int
    rx_errors: int
    never_used_ram: int | None

    @classmethod
    def parse(cls, payload: bytes) -> Heartbeat:
        if len(payload) < 4:
            raise FrameError("HEARTBEAT must carry at least 4 bytes")
        p = payload
        spare = p[4] | p[5] << 8 if len(p) >= 6 else None
        return cls(p[0] | p[1] << 8, p[2] | p[3] << 8, spare)
