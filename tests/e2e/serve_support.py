"""What the nmt-serve end-to-end tests share: a tiny model trained on the spot, a server on a
free port, and plain HTTP calls (standard library only)."""
import http.client
import json
import os
import re
import subprocess
import tempfile
import time

E2E = os.path.dirname(os.path.abspath(__file__))


def fail(message):
    raise SystemExit(f"FAIL: {message}")


checks = 0  # passed so far


def check(condition, message):
    global checks
    if not condition:
        fail(message)
    checks += 1


def tiny_model(bin_dir, workdir):
    """Trains the tiny model of the other end-to-end tests into WORKDIR/run; returns its path."""
    subprocess.run(["bash", "-c", f'source "{E2E}/tiny_corpus.sh" && make_tiny_corpus "{workdir}"'], check=True)
    tiny = subprocess.run(["bash", "-c", f'source "{E2E}/tiny_corpus.sh" && printf "%s\\n" "${{TINY_MODEL[@]}}"'],
                          check=True, capture_output=True, text=True).stdout.split("\n")[:-1]
    run = os.path.join(workdir, "run")
    done = subprocess.run([f"{bin_dir}/nmt-train", "--train-src", "train.src", "--train-tgt", "train.tgt",
                           "--valid-src", "valid.src", "--valid-tgt", "valid.tgt", *tiny, "--max-length", "40",
                           "--max-steps", "300", "--valid-every", "100", "--model-dir", run, "--device", "cpu"],
                          cwd=workdir, capture_output=True, text=True)
    if done.returncode != 0:
        fail(f"training the test model failed: {done.stderr[-2000:]}")
    return run


class Server:
    """nmt-serve on a free port of 127.0.0.1, stopped (SIGTERM) when the block ends, where it must
    exit 0 (a crash, or an exit code of a stop inside the block that was not checked, fails)."""

    def __init__(self, bin_dir, *args):
        self.err = tempfile.TemporaryFile(mode="w+")
        self.process = subprocess.Popen([f"{bin_dir}/nmt-serve", "--port", "0", "--device", "cpu", *args],
                                        stdout=subprocess.DEVNULL, stderr=self.err, text=True)
        deadline = time.time() + 60
        self.port = None
        while self.port is None:
            if self.process.poll() is not None or time.time() > deadline:
                fail(f"nmt-serve did not start: {self.stderr()}")
            m = re.search(r"on http://127\.0\.0\.1:(\d+)/", self.stderr())
            if m:
                self.port = int(m.group(1))
            else:
                time.sleep(0.05)

    def stderr(self):
        self.err.seek(0)
        return self.err.read()

    def request(self, method, path, body=None, headers=None):
        """(status, parsed JSON or text) of one request on a new connection."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        kind = response.getheader("Content-Type", "")
        return response.status, json.loads(data) if kind.startswith("application/json") else data.decode()

    def translate(self, body):
        return self.request("POST", "/v1/translate", body, {"Content-Type": "application/json"})

    def stop(self):
        """SIGTERM, then the exit code (fails after 30 s)."""
        if self.process.poll() is None:
            self.process.terminate()
        try:
            return self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            fail("nmt-serve did not stop within 30 s of SIGTERM")

    def __enter__(self):
        return self

    def __exit__(self, kind, value, traceback):
        code = self.stop()
        if kind is None and code != 0:  # (a failure already on its way says more)
            fail(f"nmt-serve exited {code} when stopped, not 0: {self.stderr()[-2000:]}")
