"""One line describing the machine a benchmark ran on, for its results file.

    >>> describe()  # doctest: +SKIP
    '2 cores, Intel(R) Xeon(R) Processor; Python 3.11.7, numpy 2.4.6, OpenCV 5.0.0; load 1.2'

Benchmarks run as scripts (``python benchmarks/NAME.py``), so this folder is on ``sys.path``
and they import it as ``from machine import describe``.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path


def cpu_model() -> str:
    """The CPU's model name from /proc/cpuinfo ("?" where there is none)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "?"


def describe(load: bool = True) -> str:
    """Cores, CPU, Python, numpy and OpenCV versions, and (``load``) the 1/5/15-minute load."""
    import cv2
    import numpy as np

    text = (
        f"{os.cpu_count()} cores, {cpu_model()}; Python {platform.python_version()}, "
        f"numpy {np.__version__}, OpenCV {cv2.__version__}"
    )
    if load:
        text += "; load average " + " ".join(f"{v:.1f}" for v in os.getloadavg())
    return text
