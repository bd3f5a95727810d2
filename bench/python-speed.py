#!/usr/bin/env python3
"""What `import nmt` costs against the programs, on one trained model, in one run.

Whole file: nmt-translate --stats (translation time, after loading) against Translator.translate on
the same lines, same options (greedy, or --beam K), same threads; the outputs must be identical.
Read as it comes: Translator.translate_iterable over the open file (its default window) against
translate on the whole list; the texts must be identical.
One sentence a call: Translator.translate(text) against nmt-bench-translate's batch-1 latency
(p50, p95) over the same first N sentences. ROUNDS rounds, alternating; best of each.

    PYTHONPATH=build/python /usr/bin/python3 bench/python-speed.py --model DIR [--input FILE]
        [--threads 1] [--beam 1] [--rounds 3] [--sentences 200]
"""

import argparse
import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
BIN = pathlib.Path(os.environ.get("NMT_BIN", ROOT / "build" / "bin"))


def program_seconds(args, lines_file, out_file):
    done = subprocess.run([BIN / "nmt-translate", "--model", args.model, "--input", lines_file, "--output", out_file,
                           "--threads", str(args.threads), "--beam", str(args.beam), "--stats"],
                          capture_output=True, text=True, check=True)
    return float(re.search(r"pieces in ([0-9.]+) s", done.stderr).group(1))


def program_latency(args):
    done = subprocess.run([BIN / "nmt-bench-translate", "--model", args.model, "--input", args.input,
                           "--threads", str(args.threads), "--latency", str(args.sentences), "--beam", "1"],
                          capture_output=True, text=True, check=True)
    found = re.search(r"batch 1 +p50 ([0-9.]+) ms +p95 ([0-9.]+) ms", done.stdout)
    return float(found.group(1)), float(found.group(2))


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True)
    parser.add_argument("--input", default=str(ROOT / "data" / "multi30k" / "test_2016_flickr.de"))
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--beam", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sentences", type=int, default=200)
    args = parser.parse_args()
    import nmt  # noqa: PLC0415 - after the usage check

    lines = pathlib.Path(args.input).read_text(encoding="utf-8").splitlines()
    translator = nmt.Translator(args.model, threads=args.threads)
    print(f"# {translator.runtime}; CPU: {cpu_name()}; model {args.model}; {len(lines)} sentences, "
          f"beam {args.beam}, {args.threads} thread(s)")
    whole_program, whole_python, latency_program, latency_python, iterated = [], [], [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        out = pathlib.Path(tmp) / "out.txt"
        for _ in range(args.rounds):
            whole_program.append(program_seconds(args, args.input, out))
            start = time.perf_counter()
            translations = translator.translate(lines, beam=args.beam)
            whole_python.append(time.perf_counter() - start)
            if [t.text for t in translations] != out.read_text(encoding="utf-8").splitlines():
                sys.exit("python-speed: Translator.translate and nmt-translate disagree: not timing further")
            start = time.perf_counter()
            with open(args.input, encoding="utf-8") as stream:  # read as it comes, the default window
                lazily = list(translator.translate_iterable(stream, beam=args.beam))
            iterated.append(time.perf_counter() - start)
            if [t.text for t in lazily] != [t.text for t in translations]:
                sys.exit("python-speed: translate_iterable and translate disagree: not timing further")
            latency_program.append(program_latency(args))
            calls = []
            for text in lines[:args.sentences]:
                start = time.perf_counter()
                translator.translate(text)
                calls.append((time.perf_counter() - start) * 1000)
            latency_python.append((statistics.median(calls), percentile(calls, 0.95)))
    best_program, best_python = min(whole_program), min(whole_python)
    print(f"whole file     nmt-translate {best_program:.3f} s   Translator.translate {best_python:.3f} s   "
          f"python / program {best_python / best_program:.3f}")
    print(f"iterable       Translator.translate_iterable over the file {min(iterated):.3f} s   "
          f"iterable / translate {min(iterated) / best_python:.3f}")
    p50_program, p95_program = min(latency_program)
    p50_python, p95_python = min(latency_python)
    print(f"one sentence   C++ p50 {p50_program:.2f} ms p95 {p95_program:.2f} ms   "
          f"Python p50 {p50_python:.2f} ms p95 {p95_python:.2f} ms   p50 difference {p50_python - p50_program:+.2f} ms")


def cpu_name():
    with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
        return next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "unknown")


if __name__ == "__main__":
    main()
