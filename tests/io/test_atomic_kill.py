"""kill -9 during saves (issue 12): the target is always the old or the new complete file, and the
temp files the killed saves leave are swept by the next save of the same target."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ftcost_gui.io.atomic import atomic_write_bytes, sweep_stale_temps

KILLS = 50
SIZE = 4 << 20  # 4 MiB: long enough a write for kills to land inside it

# The child saves A, B, A, B, … to the target forever, saying "ready" once started.
CHILD = """
import sys
from ftcost_gui.io.atomic import atomic_write_bytes
target, size = sys.argv[1], int(sys.argv[2])
contents = [bytes([65]) * size, bytes([66]) * size]
print("ready", flush=True)
i = 0
while True:
    atomic_write_bytes(target, contents[i % 2])
    i += 1
"""


def temps_of(target: Path) -> list[str]:
    return sorted(p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}."))


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and flock are POSIX")
def test_kill_9_mid_save_leaves_old_or_new_and_the_next_save_sweeps(tmp_path):
    target = tmp_path / "plan.ftcost"
    old = b"O" * SIZE
    target.write_bytes(old)
    allowed = {old, b"A" * SIZE, b"B" * SIZE}
    rng = random.Random(12)
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=str(root))
    left_by_kills: set[str] = set()
    for _ in range(KILLS):
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(target), str(SIZE)],
            stdout=subprocess.PIPE,
            env=env,
        )
        assert child.stdout is not None
        assert child.stdout.readline() == b"ready\n"
        time.sleep(rng.uniform(0, 0.05))
        child.send_signal(signal.SIGKILL)
        child.wait()
        child.stdout.close()
        assert target.read_bytes() in allowed  # never a mix, never truncated
        left_by_kills.update(temps_of(target))
    # Kills inside a write leave temps behind (each is a whole file's worth of disk).
    leftovers = temps_of(target)
    new = b"N" * 1000
    atomic_write_bytes(target, new)
    assert target.read_bytes() == new
    assert temps_of(target) == [], "the next save sweeps every stale temp of its target"
    print(f"kills={KILLS} inside a write={len(left_by_kills)} left at the end={len(leftovers)}")


def test_sweep_spares_live_saves_and_other_files(tmp_path):
    import fcntl

    target = tmp_path / "plan.ftcost"
    target.write_text("x")
    stale = tmp_path / ".plan.ftcost.abcd1234.tmp"
    stale.write_text("stale")
    live = tmp_path / ".plan.ftcost.live5678.tmp"
    live.write_text("live")
    other = tmp_path / ".other.ftcost.abcd1234.tmp"  # another document's temp
    other.write_text("other")
    mine = tmp_path / ".plan.ftcost.notmine.tmp"  # not mkstemp's pattern
    mine.write_text("user file")
    linked = tmp_path / ".plan.ftcost.link0000.tmp"
    linked.symlink_to(other)
    with live.open("rb") as holder:  # a save in progress in another process holds its lock
        fcntl.flock(holder.fileno(), fcntl.LOCK_EX)
        child = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from ftcost_gui.io.atomic import sweep_stale_temps; "
                "print(sweep_stale_temps(sys.argv[1]))",
                str(target),
            ],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2])),
        )
    assert child.stdout.strip() == "1", child.stderr
    assert not stale.exists()
    assert live.exists() and other.exists() and mine.exists() and linked.is_symlink()
    assert sweep_stale_temps(target) == 1  # the live one, now that its save is over
