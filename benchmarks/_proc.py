"""What the side-by-side scripts share: one fit in its own process, its JSON line
read back (or a failure record), and the process's peak resident memory."""
import json
import resource
import subprocess


def run_one(cmd, timeout, failed):
    """Run `cmd` (a worker printing one JSON line last) and return that record; on a
    crash, a time-out or no record, the `failed` record."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        return json.loads(p.stdout.strip().splitlines()[-1])
    except (subprocess.TimeoutExpired, IndexError, ValueError):
        return dict(failed)


def peak_rss():
    """Peak resident bytes of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
