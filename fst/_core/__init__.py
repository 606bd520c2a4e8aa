"""Compiled core of fst: split space, memo store, search, segmentation, export."""
import platform
import sys


def cpu_lacks_popcnt(cpuinfo="/proc/cpuinfo"):
    """Whether this is an x86-64 Linux machine whose CPU lacks the POPCNT
    instruction. The core is built with it on x86-64 (setup.py: the hot loops are
    popcounts), so on such a CPU the first popcount would end the process with
    'Illegal instruction'; importing fst says why instead. Every x86-64 CPU since
    2008 has it; elsewhere, or when the CPU's flags cannot be read, False."""
    if not sys.platform.startswith("linux") or platform.machine() != "x86_64":
        return False
    try:
        with open(cpuinfo) as f:
            flags = [line for line in f if line.startswith("flags")]
    except OSError:
        return False
    return bool(flags) and not any("popcnt" in line.split() for line in flags)


if cpu_lacks_popcnt():
    raise ImportError(
        "fst's compiled core uses the POPCNT instruction, which this CPU lacks "
        "(every x86-64 CPU since 2008 has it): fst cannot run on this machine")
