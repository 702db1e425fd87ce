"""The figures a sentence states: a measurement ("from 40 ms to 31 ms", "3.1x", "+12%"), whether it
is one at all (a figure hoped for, the size of a machine's memory) and which way it moves. Each
pattern is linear in the sentence."""

from __future__ import annotations

import re

BLOWUP_SECONDS = 600
DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s|secs?|seconds|mins?|minutes|h|hours)\b")
SECONDS = {"ms": 0.001, "s": 1, "sec": 1, "secs": 1, "seconds": 1, "min": 60, "mins": 60, "minutes": 60}
SECONDS |= {"h": 3600, "hours": 3600}
DIGIT = re.compile(r"\d")
GAIN = re.compile(
    r"\+[\d.]+\s*%|\b(?:faster|rais(?:es|ed|ing)|speed-?ups?|speeds? up|improv\w+|reduc\w+|sav(?:es?|ing)|gains?|"
    r"boost\w*|cuts?|"
    r"less memory|fewer|lower|higher throughput|increases? (?:throughput|mfu|tps))\b"
)
PERF_WORDS = re.compile(
    r"\b(?:ms|s|sec|seconds|minutes|hours|throughput|latency|tps|tok/s|tokens/s|tflops|mfu|memory|gb|gib|mb|mib|"
    r"speed\w*|faster|slower|time|overhead|step|steps|qps|bandwidth|gb/s|perf\w*|runtime|compile)\b"
)
# A number of its own, not the digits of a name: MI300X is a GPU, not a 300x speed-up.
# "02/14→02/15" is a date, not a change from 14 to 2; "13+6 us -> 30+11 us" holds two sums, not a
# change from 6 to 30.
NUMBER = r"(?<![\w.,~/])(?<!\d\+)~?\d++(?:,\d{3})*(?:\.\d++)?(?!/\d)(?!\+\d)"
UNIT = (
    # "80 GB/s" is a rate: each unit is tried before the shorter one it starts with.
    r"(?:ms|µs|us|s|secs?|seconds|mins?|minutes|h|hours|gb/s|gb|gib|mb|mib|kib|kb|tb|tps|tok/s|tokens/s|tflops"
    r"|it/s|%)"
)
# "resharding from 64 to 128 GPUs", "2 vs 4 ranks": a change of setup, counted in things, is no measurement.
COUNTED = (
    r"(?!\s*(?:gpus?|ranks?|nodes?|hosts?|workers?|processes|threads|layers|devices|shards?|cards?|machines?|"
    r"cores?|sockets?)\b)"
)
# "Architecture: riscv64 CPU(s): 64 ... scaling MHz: 100%": a listing of settings, read as one sentence.
LISTING_PAIRS = 4
MAGNITUDE = re.compile(
    rf"(?:(?:from\s+{NUMBER}\s*{UNIT}?\s+to\s+{NUMBER}\s*{UNIT}?|{NUMBER}\s*{UNIT}?\s*(?:->|→|=>)\s*{NUMBER}\s*{UNIT}?"
    rf"|{NUMBER}\s*{UNIT}?\s+(?:vs\.?|versus)\s+{NUMBER}\s*{UNIT}?){COUNTED}"
    # "2.5-4x slower" is a range, whole; a sign is one only where no number stands before it
    rf"|{NUMBER}\s*(?:%|x|×)?\s*[-–]\s*{NUMBER}\s*(?:%|x\b|×)|(?<![\d.])[+\-]?{NUMBER}\s*(?:%|x\b|×)"
    rf"|{NUMBER}\s*(?:ms|µs|us|s|secs?|seconds|mins?|minutes|hours|gb/s|gb|gib|mb|mib|kib|"
    rf"tps|tok/s|tokens/s|tflops)\b)"
)
# "may get", "expected to", "potentially": the figure after it is foreseen, not measured.
HEDGED = re.compile(
    r"\b(?:may|might|expect(?:ed|s)? to|potentially|possibly|hopefully|estimated|predicted|projected|theoretical\w*)\b"
)
# "a GPU with 80GiB memory", "a 12 MB model", "constants over 2 GB": an amount of memory alone is the
# size of something. It measures the problem only as what a program uses, allocates or grows by, or
# what a change saves.
SIZE = re.compile(rf"{NUMBER}\s*(?:gb|gib|mb|mib|kib|kb|tb)")
SIZE_USED = re.compile(
    r"\b(?:us(?:es?|ed|ing)|allocat\w*|consum\w*|grows?|grew|growing|leak\w*|increas\w*|ris(?:es?|ing)|rose|"
    r"peak\w*|reach\w*|occup\w*|reserv\w*|takes?|took|taking|jump\w*|spik\w*|reduc\w*|sav(?:es?|ed|ing)|cuts?|"
    r"free[sd]?|freeing|lower\w*|drops?|dropped|shr[iu]nk\w*)\W+(?:[\w~<>=.]+\W+){0,2}$"
)
SIZE_REACH = 40


def figure(plain: str) -> re.Match[str] | None:
    """The sentence's first measurement (`plain`: lower-cased, links removed), None where it states
    none: no figure of a metric, a listing of settings, a figure hoped for, or sizes alone."""
    if DIGIT.search(plain) is None or PERF_WORDS.search(plain) is None or plain.count(": ") >= LISTING_PAIRS:
        return None
    for magnitude in MAGNITUDE.finditer(plain):
        if HEDGED.search(plain, 0, magnitude.start()):
            return None  # "this may give a 15% speedup": a figure hoped for, not one measured
        start = magnitude.start()
        if not SIZE.fullmatch(magnitude.group(0).strip()) or SIZE_USED.search(
            plain[max(0, start - SIZE_REACH) : start]
        ):
            return magnitude
    return None


# "16 -> 23 MFU", "from 40 ms to 31 ms": a before and an after of a metric whose direction is known.
BEFORE_AFTER = re.compile(rf"(?:from\s+)?({NUMBER})\s*{UNIT}?\s*(?:->|→|=>|to)\s*({NUMBER})")
HIGHER_BETTER = re.compile(r"\b(?:mfu|tps|tok/s|tokens/s|tflops|throughput|qps|bandwidth|gb/s|speedup|it/s)\b")
LOWER_BETTER = re.compile(r"\b(?:latency|ms|µs|us|secs?|seconds|minutes|runtime|time|step time)\b")


def better(magnitude: re.Match[str], sentence: str) -> bool:
    """The magnitude moves a metric the right way: up for a rate, down for a time. A change the
    sentence does not call better or worse in words is read by its numbers alone."""
    change = BEFORE_AFTER.search(magnitude.group(0))
    if change is None:
        return False
    before, after = (float(n.lstrip("~").replace(",", "")) for n in change.groups())
    around = sentence[max(0, magnitude.start() - 40) : magnitude.end() + 20]
    if HIGHER_BETTER.search(around):
        return after > before
    if LOWER_BETTER.search(around):
        return after < before
    return False


def longest_seconds(magnitude: str) -> float:
    """The longest duration a magnitude states, in seconds (0 when it states none)."""
    return max((float(n.replace(",", "")) * SECONDS[unit] for n, unit in DURATION.findall(magnitude)), default=0.0)
