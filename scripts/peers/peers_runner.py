#!/usr/bin/env python3
"""Runs a peer script with the runner's stopwatch (runner_protocol.py) in place of its own.

    python3 peers_runner.py SCRIPT.py [ARGS...]

SCRIPT is tools/peers.py (from PYTHONPATH, as the plans pack it) or one of scripts/peers/; its
`bench` (peers.bench, and any `from peers import bench`) becomes runner_protocol.bench before the
script runs, and Triton's do_bench becomes the same protocol. Every row the script writes is then
on the runner's protocol; the plans record which (the protocol string in the results' notes)."""
import importlib.util
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import runner_protocol  # noqa: E402


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    script = sys.argv[1]
    try:
        import triton.testing
        def do_bench(fn, *args, **kwargs):
            return runner_protocol.time_like_runner(fn)["ms"]
        do_bench.kl_protocol = runner_protocol.PROTOCOL
        triton.testing.do_bench = do_bench
    except ImportError:
        pass
    # Imported as a module (not run as __main__), so that its own bench or time_like_runner can be
    # replaced after its definitions and before its main() calls them.
    name = os.path.splitext(os.path.basename(script))[0]
    spec = importlib.util.spec_from_file_location(name, script)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    replaced = [f for f, by in (("bench", runner_protocol.bench), ("time_like_runner", runner_protocol.time_like_runner))
                if hasattr(module, f) and not setattr(module, f, by)]
    if not replaced and "triton" not in sys.modules:
        sys.exit(f"peers_runner.py: {script} has no bench or time_like_runner to replace")
    sys.argv = sys.argv[1:]
    module.main()


if __name__ == "__main__":
    main()
