# SPDX-License-Identifier: GPL-2.0
"""Paths shared by the harness unit tests."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
SCRIPTS = os.path.join(ROOT, "scripts")
FX = os.path.join(SCRIPTS, "tests", "fixtures")
if os.path.join(SCRIPTS, "lib") not in sys.path:  # the Python modules
    sys.path.insert(0, os.path.join(SCRIPTS, "lib"))
