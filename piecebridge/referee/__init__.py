"""The live referee: a camera watches a Reflec game, the rules engine judges it, the
referee display shows the verdicts.

``piecebridge referee`` with no arguments replays the bundled recording of a short scripted
game (``fixtures/recordings/demo``) on the simulated display. The parts, in the order a frame
goes through them:

* :mod:`.sources` — frames from a camera, a video file, an RTSP/HTTP stream, a folder of
  images or a recording (``open_source(spec)``); live sources keep only the newest frame and
  retry when the device goes away.
* :mod:`.motion` — the cheap look at every frame: a small grey picture (a JPEG decoded
  straight at 1/2-1/8 size) and each cell's change against earlier frames.
* :mod:`.tracker` — ``StableTracker.feed(t, frame, read)`` commits a view only when it has
  been still and unobstructed for ``hold_s`` seconds and ``hold_frames`` frames (a hand, a
  blur or a half-moved piece never commits). It asks for a vision read
  (``BoardReader.read(frame, cells=...)``: a ``reflec-board/1`` view with confidences and
  ``unknown`` cells, from :mod:`piecebridge.vision.reader`) only once the view is still and
  something changed since the last reading, and only of the cells that changed since they
  were last read; a moved piece is read on the first frame known still, a change of many
  cells (a hand) after ``read_after``; cells unchanged since the last commit keep its reading.
* :mod:`.judge` — ``Judge.observe(board, unknown)`` explains each committed view with the rules
  engine (cheapest legal actions since the turn began or the last shot), charges the points,
  flags impossible changes in one sentence; ``fire``, ``end_turn``, ``confirm``.
* :mod:`.gamelog` — the append-only, fsync'd JSONL game log (replayable with
  ``piecebridge reflec check``) and ``read_log`` for ``--resume``.
* :mod:`.view` — the display presenter (board, status strip, beam, blinking) and the terminal.
* :mod:`.app` — :class:`~piecebridge.referee.app.Referee`, the loop that joins them, with the
  display's buttons and typed commands; :mod:`.session` sets one up from options.
* :mod:`.record_demo` — the scripted games and their rendering into recordings.

>>> from piecebridge.referee.session import SessionOptions
>>> SessionOptions().display
'sim'
"""
