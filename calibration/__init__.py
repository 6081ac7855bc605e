"""piecebridge.calibration: what a camera setup is, and the lens fit.

``camera`` fits a lens from photos of a target and undistorts frames (pinhole or fisheye);
``geometry`` and ``pose`` place the board in the image (``BoardPose``); ``looks`` holds
what the calibration photo taught about the pieces (``LearnedLooks``); ``board`` is the
setup file (``BoardSetup``). It imports nothing of vision, the rules or the app (only
``piecebridge.errors``): vision uses it, and learns a setup from a photo
(``piecebridge.vision.learn``).
"""
