#!/usr/bin/env python3
"""One sentence at a time: starts COMMAND (stdin a pipe, stdout a terminal, so that a program using C stdio
flushes each line), sends it INPUT's lines one by one, waits for each answer line, and prints the latency per
sentence: p50, p90, p99 and mean in milliseconds, after --warmup lines not counted, and the answers to --output.
What a person at a prompt or a client of a server sees of a translator that stays loaded.

  line_latency.py --input FILE [--warmup 10] [--output FILE] -- COMMAND ARGS..."""
import argparse
import os
import pty
import statistics
import subprocess
import sys
import termios
import time


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("--input", required=True)
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--output")
    parser.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for one answer")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("give the command after --")
    lines = open(args.input, encoding="utf-8").read().split("\n")[:-1]
    master, slave = pty.openpty()
    attrs = termios.tcgetattr(slave)
    attrs[1] &= ~termios.ONLCR  # answers as written: "\n", not "\r\n"
    termios.tcsetattr(slave, termios.TCSANOW, attrs)
    process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=slave, stderr=subprocess.DEVNULL)
    os.close(slave)
    pending = b""
    answers, times = [], []

    def answer():
        nonlocal pending
        deadline = time.monotonic() + args.timeout
        while b"\n" not in pending:
            if time.monotonic() > deadline or process.poll() is not None:
                sys.exit(f"line_latency: no answer from {command[0]} within {args.timeout} s (exit {process.poll()})")
            try:
                pending += os.read(master, 65536)
            except OSError:
                sys.exit(f"line_latency: {command[0]} closed its output")
        line, pending = pending.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    for i, line in enumerate(lines):
        start = time.perf_counter()
        process.stdin.write(line.encode("utf-8") + b"\n")
        process.stdin.flush()
        answers.append(answer())
        if i >= args.warmup:
            times.append((time.perf_counter() - start) * 1000.0)
    process.stdin.close()
    process.wait(timeout=args.timeout)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as out:
            out.write("".join(a + "\n" for a in answers))
    if not times:
        sys.exit("line_latency: no timed lines (fewer lines than --warmup)")
    times.sort()
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    print(f"p50 {pick(0.5):.2f} p90 {pick(0.9):.2f} p99 {pick(0.99):.2f} mean {statistics.fmean(times):.2f} "
          f"ms over {len(times)} sentences")


if __name__ == "__main__":
    main()
