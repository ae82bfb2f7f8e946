#!/usr/bin/env python3
"""How the reader's poll cadence was chosen (docs/BENCHMARKS.md "Detection"): puckd with the real
libnfc on the emulated PN532, for each `[reader] poll_interval`, the CPU share of the daemon while
a wake-up polls and the time from a tag presented to the scan seen; then libnfc's nfc-poll
against the same emulator for comparison. Prints a table; asserts nothing.

  make bench-cadence    (builds release binaries first; about 5 minutes)

Environment: PUCK_CADENCE_INTERVALS (default "100ms 50ms 30ms 20ms 10ms"), PUCK_CADENCE_TAGS (60),
PUCK_CADENCE_POLL_SECONDS (10), PUCK_CADENCE_PEER (1; 0 leaves out nfc-poll), and record.py's
PUCK_BENCH_EMULATOR_ARGS ("--slot-faithful": the emulator at a real PN532's UART and RF pace).
"""
import os, shutil, sys, tempfile

import record
from benchlib import pct

INTERVALS = os.environ.get("PUCK_CADENCE_INTERVALS", "100ms 50ms 30ms 20ms 10ms").split()
TAGS = int(os.environ.get("PUCK_CADENCE_TAGS", "60"))
POLL_SECONDS = int(os.environ.get("PUCK_CADENCE_POLL_SECONDS", "10"))
PEER = os.environ.get("PUCK_CADENCE_PEER", "1") != "0"


def main():
    tmp = tempfile.mkdtemp(prefix="puck-cadence-")
    docks = []
    emulator, link = record.start_emulator(tmp)
    rows = []
    try:
        for interval in INTERVALS:
            share, seen = record.detection(tmp, f"dock-{interval}", docks, link, emulator, interval, TAGS, POLL_SECONDS)
            rows.append((f"puckd, poll_interval = {interval}", share, seen))
            print(f"  {rows[-1][0]}: {share:.2f} % of a core, p50 {pct(seen, .5):.1f} ms, "
                  f"p95 {pct(seen, .95):.1f} ms", flush=True)
        peer = record.nfc_poll_peer(link, emulator, max(10, TAGS // 3)) if PEER else None
        if peer:
            rows.append(("nfc-poll (InAutoPoll, 300 ms rounds)", peer[0], peer[1]))
    finally:
        for dock in docks:
            dock.stop()
        emulator.terminate()
        emulator.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print()
    print(f"| reader | CPU while polling (% of one core) | tag → seen p50 | p95 | max | samples |")
    print(f"| --- | --- | --- | --- | --- | --- |")
    for name, share, seen in rows:
        print(f"| {name} | {share:.2f} | {pct(seen, .5):.1f} ms | {pct(seen, .95):.1f} ms | {max(seen):.1f} ms | {len(seen)} |")
    print(f"\nmachine: {record.machine()}; emulator: {' '.join(record.EMULATOR_ARGS) or 'instant'}; "
          f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
