#!/usr/bin/env python3
"""window_state.py: wait for the window's own state instead of sleeping (issue 38).

The window run with `--state-file FILE` rewrites FILE (atomically, JSON) each time it goes idle
(its redraw gate closed: recorded results in, nothing animating, no settle frames, no news) and
each time it wakes, and once at exit (test_driver.cpp, TestDriver::write_state). A test waits for
a state, not for a time: the overall time-out is minutes long and only a window that hangs (or
never goes idle) reaches it.

    window_state.py wait FILE PID SECONDS CONDITION
        until FILE's state satisfies CONDITION, a Python expression over `s` (the JSON object),
        e.g. 's["idle"] and s["runner"]["hello"]'; prints the state as one line and exits 0.
        Exit 1 (with the last state) when SECONDS pass, the process PID is gone, or the window
        exited first.
"""
import json
import os
import sys
import time


def read_state(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):  # not written yet (the writer renames, so never half a file)
        return None


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (exited, not yet waited for by the test's shell) has gone for our purposes.
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return True


def wait(path, pid, seconds, condition):
    deadline = time.monotonic() + seconds
    state = None
    while True:
        state = read_state(path) or state
        if state is not None:
            if eval(condition, {}, {"s": state}):  # noqa: S307 (the test's own expression)
                print(json.dumps(state))
                return 0
            if state.get("exited"):
                print(f"FAIL: the window exited before {condition}: {json.dumps(state)}")
                return 1
        if not alive(pid):
            print(f"FAIL: the window (pid {pid}) is gone before {condition}; last state: {json.dumps(state)}")
            return 1
        if time.monotonic() > deadline:
            print(f"FAIL: not {condition} after {seconds:g} s (a hang); last state: {json.dumps(state)}")
            return 1
        time.sleep(0.1)


def main():
    if len(sys.argv) != 6 or sys.argv[1] != "wait":
        print(__doc__)
        return 2
    return wait(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5])


if __name__ == "__main__":
    sys.exit(main())
