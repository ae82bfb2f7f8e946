#!/usr/bin/env python3
"""The other reader design of issue 12, measured before choosing (docs/BENCHMARKS.md "Detection"):
let the chip wait for the tag instead of polling it. libnfc's own API, through ctypes, on the
emulated PN532: `nfc_initiator_init` leaves infinite select on (MxRtyPassiveActivation = 0xFF),
so InListPassiveTarget answers the moment a tag enters the field; libnfc bounds the host's wait at
300 ms (`nfc_initiator_select_passive_target`), so a second thread cancels each wait with
`nfc_abort_command` before that (the driver then ACKs the chip, which abandons the command) and
the wait starts again. Prints the same figures as bench/cadence.py for this design, then what
happens when the chip stops answering in the middle of a wait. Asserts nothing.

  python3 bench/chip-waits.py .build/release     (after swift build -c release; about a minute)

Environment: PUCK_CHIP_WAIT_MS (250: how long each wait runs before it is cancelled),
PUCK_CHIP_WAIT_TAGS (60).
"""
import ctypes, ctypes.util, os, random, resource, shutil, sys, tempfile, threading, time

import record
from benchlib import pct

WAIT_MS = int(os.environ.get("PUCK_CHIP_WAIT_MS", "250"))
TAGS = int(os.environ.get("PUCK_CHIP_WAIT_TAGS", "60"))
NFC_EOPABORTED, NFC_ETIMEOUT = -7, -6


class Modulation(ctypes.Structure):
    _fields_ = [("nmt", ctypes.c_int), ("nbr", ctypes.c_int)]


ISO14443A_106 = Modulation(1, 1)  # NMT_ISO14443A, NBR_106


class Reader:
    """One libnfc device in infinite-select mode, with a canceller thread."""

    def __init__(self, connstring):
        self.nfc = ctypes.CDLL(ctypes.util.find_library("nfc"))
        self.nfc.nfc_open.restype = ctypes.c_void_p
        self.nfc.nfc_open.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
        for name in ("nfc_initiator_init", "nfc_abort_command", "nfc_idle"):
            getattr(self.nfc, name).argtypes = [ctypes.c_void_p]
        self.nfc.nfc_initiator_select_passive_target.argtypes = [
            ctypes.c_void_p, Modulation, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        self.context = ctypes.c_void_p()
        self.nfc.nfc_init(ctypes.byref(self.context))
        self.device = self.nfc.nfc_open(self.context, connstring.encode())
        if not self.device:
            raise RuntimeError(f"nfc_open({connstring}) failed")
        if self.nfc.nfc_initiator_init(self.device) < 0:
            raise RuntimeError("nfc_initiator_init failed")
        self.target = ctypes.create_string_buffer(2048)  # larger than any nfc_target
        self.waiting = threading.Event()
        self.stopped = False
        threading.Thread(target=self.canceller, daemon=True).start()

    def canceller(self):
        """Cancels each wait WAIT_MS after it started."""
        while not self.stopped:
            if not self.waiting.wait(0.05):
                continue
            started = self.wait_started
            time.sleep(max(0, started + WAIT_MS / 1000 - time.monotonic()))
            if self.waiting.is_set() and self.wait_started == started:
                self.nfc.nfc_abort_command(self.device)
                self.waiting.clear()

    def select(self):
        """One wait: returns libnfc's result (1 found, 0 none, negative an error) and its duration."""
        self.wait_started = time.monotonic()
        self.waiting.set()
        result = self.nfc.nfc_initiator_select_passive_target(self.device, ISO14443A_106, None, 0, self.target)
        self.waiting.clear()
        return result, time.monotonic() - self.wait_started

    def close(self):
        self.stopped = True
        self.nfc.nfc_close(ctypes.c_void_p(self.device))
        self.nfc.nfc_exit(self.context)


def cpu_now():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main():
    tmp = tempfile.mkdtemp(prefix="puck-chip-waits-")
    emulator, link = record.start_emulator(tmp)
    os.environ["LIBNFC_AUTO_SCAN"] = "false"
    reader = Reader(f"pn532_uart:{link}")
    results = {}

    def watch(seconds):
        """Waits again and again for `seconds`; returns [(monotonic end, result)]."""
        seen, end = [], time.monotonic() + seconds
        while time.monotonic() < end:
            result, _ = reader.select()
            seen.append((time.monotonic_ns(), result))
            if result > 0:
                break
        return seen

    try:
        # CPU with no tag: the process does nothing else.
        wall0, cpu0 = time.monotonic(), cpu_now()
        outcomes = watch(10)
        share = 100 * (cpu_now() - cpu0) / (time.monotonic() - wall0)
        kinds = {r: sum(1 for _, x in outcomes if x == r) for r in {x for _, x in outcomes}}
        print(f"  no tag for 10 s: {share:.2f} % of a core; waits ended with {kinds} "
              f"({NFC_EOPABORTED} = cancelled)", flush=True)
        # Detection: a tag laid down at a random moment of the waiting.
        seen = []
        for _ in range(TAGS):
            presented = []

            def present():
                presented.append(time.monotonic_ns())
                record.tell(emulator, f"present {record.STICKER}")

            timer = threading.Timer(random.uniform(0.05, 0.6), present)
            timer.start()
            outcome = watch(5)
            timer.join()
            if outcome and outcome[-1][1] > 0 and presented:
                seen.append(record.ms(outcome[-1][0] - presented[0]))
            record.tell(emulator, "remove")
            time.sleep(0.05)
        print(f"  tag → found ({len(seen)} of {TAGS}): p50 {pct(seen, .5):.1f} ms, p95 {pct(seen, .95):.1f} ms, "
              f"max {max(seen):.1f} ms", flush=True)
        results["detection"] = (share, seen)
        # The chip stops answering in the middle of a wait.
        silence = threading.Timer(0.1, lambda: record.tell(emulator, "silent"))
        silence.start()
        t0 = time.monotonic()
        trail = []
        while time.monotonic() - t0 < 3:
            result, took = reader.select()
            trail.append(f"{result} after {took * 1000:.0f} ms")
            if result not in (0, NFC_EOPABORTED):
                break
        print(f"  chip silent 100 ms into a wait: {', '.join(trail)}; the fault shows "
              f"{(time.monotonic() - t0 - 0.1) * 1000:.0f} ms after the chip went quiet", flush=True)
        # A reader that goes on retrying a silent chip: each cancel that lands while libnfc waits
        # for the chip's ACK (which the abort does not watch) is lost, and libnfc has already
        # replaced its abort pipe: count the descriptors.
        before = len(os.listdir("/proc/self/fd"))
        end = time.monotonic() + 10
        failures = 0
        while time.monotonic() < end:
            result, _ = reader.select()
            failures += result == NFC_ETIMEOUT
        after = len(os.listdir("/proc/self/fd"))
        print(f"  10 s more of retrying the silent chip: {failures} timeouts; open descriptors "
              f"{before} → {after}", flush=True)
        results["leak"] = (failures, before, after)
        record.tell(emulator, "revive")
    finally:
        reader.close()
        emulator.terminate()
        emulator.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    share, seen = results["detection"]
    print()
    print("| reader | CPU while polling (% of one core) | tag → seen p50 | p95 | max | samples |")
    print("| --- | --- | --- | --- | --- | --- |")
    print(f"| chip waits (MxRtyPassiveActivation 0xFF), cancelled every {WAIT_MS} ms | {share:.2f} | "
          f"{pct(seen, .5):.1f} ms | {pct(seen, .95):.1f} ms | {max(seen):.1f} ms | {len(seen)} |")


if __name__ == "__main__":
    main()
