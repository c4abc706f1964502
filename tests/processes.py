"""Stopping the servers tests start, by PID, bounded in time."""

import subprocess


def stop(process: subprocess.Popen) -> None:
    """Terminate ``process``, kill it if it is still running after 10 s, and reap it."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
