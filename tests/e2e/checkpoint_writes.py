"""End-to-end test of how often nmt-train writes last.pt: once per validation, early stopping
included (it used to write it twice at the stop), watched through inotify while training runs.

Usage: checkpoint_writes.py BIN_DIR
"""
import csv
import ctypes
import os
import struct
import subprocess
import sys
import tempfile

from serve_support import E2E, fail

IN_MOVED_TO, IN_CLOSE_WRITE, IN_NONBLOCK = 0x80, 0x8, 0o4000
libc = ctypes.CDLL(None, use_errno=True)


def writes_of(directory, run):
    """Runs run() while watching DIRECTORY; returns the names written or renamed into it, in order."""
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, directory.encode(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0:
        fail(f"inotify: {os.strerror(ctypes.get_errno())}")
    names = []
    try:
        run()
        while True:
            try:
                data = os.read(fd, 1 << 20)
            except BlockingIOError:
                break
            offset = 0
            while offset < len(data):
                _, mask, _, length = struct.unpack_from("iIII", data, offset)
                name = data[offset + 16:offset + 16 + length].rstrip(b"\0").decode()
                if mask & IN_MOVED_TO:
                    names.append(name)
                offset += 16 + length
    finally:
        os.close(fd)
    return names


def main():
    bin_dir = os.path.abspath(sys.argv[1])
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(["bash", "-c", f'source "{E2E}/tiny_corpus.sh" && make_tiny_corpus "{work}"'], check=True)
        model = os.path.join(work, "stale")
        os.mkdir(model)
        # a learning rate too small to improve: early stopping after the first validation and two more
        command = [f"{bin_dir}/nmt-train", "--train-src", "train.src", "--train-tgt", "train.tgt", "--valid-src",
                   "valid.src", "--valid-tgt", "valid.tgt", "--vocab-size", "60", "--embedding-size", "16",
                   "--hidden-size", "16", "--max-length", "40", "--lr", "1e-9", "--valid-every", "2",
                   "--patience", "2", "--max-steps", "100", "--model-dir", model, "--device", "cpu"]
        done = []
        renamed = writes_of(model, lambda: done.append(subprocess.run(command, cwd=work, capture_output=True, text=True)))
        if done[0].returncode != 0:
            fail(f"nmt-train exited {done[0].returncode}: {done[0].stderr[-2000:]}")
        if "early stopping: no better validation BLEU in 2 validations" not in done[0].stderr:
            fail(f"training did not stop early: {done[0].stderr[-2000:]}")
        with open(os.path.join(model, "metrics.csv"), newline="") as f:
            validations = [row["step"] for row in csv.DictReader(f) if row["valid_bleu"]]
        last = renamed.count("last.pt")
        if len(validations) != 3 or last != len(validations):
            fail(f"{len(validations)} validations (steps {', '.join(validations)}) wrote last.pt {last} times; "
                 f"expected once each: {renamed}")
        print(f"PASS: {len(validations)} validations, last.pt written {last} times")


main()
