"""Ctrl-C during a 9-seat ICM push/fold's chip EV comparison ends the command at once (the comparison runs in a
forked process that is killed; in-process, building its game held Ctrl-C inside the kernels for 5-34 s)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

STOP_WITHIN = 5.0  # seconds from Ctrl-C to exit: well under one on a quiet machine, generous on a shared one


def test_ctrl_c_during_the_nine_seat_comparison_exits_at_once():
    process = subprocess.Popen(
        [sys.executable, "-m", "pokerlab.cli.main", "pushfold", "--stacks", "10,12,8,9,11,10,7,13,10", "--payouts",
         "50,30,20", "--iterations", "2", "--multiway-samples", "400"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL), env={**os.environ, "PYTHONUNBUFFERED": "1"})
    assert process.stdout is not None
    while True:  # the last line before the chip EV solve
        line = process.stdout.readline()
        assert line, process.communicate(timeout=60)[1][-3000:]
        if "(the sampling's effect)" in line:
            break
    time.sleep(1.0)  # inside the comparison's game building
    process.send_signal(signal.SIGINT)
    sent = time.monotonic()
    out, err = process.communicate(timeout=120)
    waited = time.monotonic() - sent
    assert process.returncode == 130 and "Traceback" not in err, err[-3000:]
    assert err.strip() == "interrupted during the chip EV comparison: the ICM strategy above is complete"
    assert waited < STOP_WITHIN, waited
    assert "jams first in" in out and "chip EV jams" not in out
