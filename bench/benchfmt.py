# SPDX-License-Identifier: ISC
# Formatting shared by the benchmark reports (coll.sh, run.sh, cpu.sh,
# compare.sh import it with PYTHONPATH set to bench/).


def fmt(v, width=9):
    """A figure with 3 or so significant digits, right-aligned; - if None."""
    if v is None:
        return "-".rjust(width)
    if abs(v) >= 1000:
        return ("%.0f" % v).rjust(width)
    if abs(v) >= 10:
        return ("%.1f" % v).rjust(width)
    return ("%.2f" % v).rjust(width)


def size_name(b):
    """A message size in bytes as "8 B", "64 KiB" or "4 MiB"."""
    if b >= 1 << 20 and b % (1 << 20) == 0:
        return "%d MiB" % (b >> 20)
    if b >= 1 << 10 and b % (1 << 10) == 0:
        return "%d KiB" % (b >> 10)
    return "%d B" % b
