#!/usr/bin/env python3
"""A PyTorch program that ends badly, for the probe's fault-injection cases on a real GPU (fault_cases.sh).

usage: fault_program.py MODE [STEPS]

The GPU counterpart of tests/probe_inject/fault_host.cpp (same modes, same meaning), with real CUDA work and
the real CUPTI: each step multiplies a 2048x2048 matrix on the GPU and reads the sum back (`.item()`).
Prints only lines that do not depend on the run, so a probed and an unprobed run print the same. MODE, at
half of STEPS unless said otherwise:
  plain, exit3   the steps; exit 0 / exit 3
  fork-run       fork; the child does CPU work for 0.2 s (CUDA cannot be used in a forked child) and exits 7
  fork-exit      fork; the child calls sys.exit(5) at once
  fork-exec      fork; the child execs this program (plain, STEPS/2 steps): a new process of its own
  exec           after the steps, exec /bin/sh printing a line and exiting 3
  thread-exit    three threads read from the GPU all the while; another calls the C library's exit(9)
  segv, kill     after the steps, SIGSEGV / SIGKILL to itself
  term, int      a thread sends the process SIGTERM / SIGINT (Python: KeyboardInterrupt) mid-loop
  term-twice     the same SIGTERM twice, 1 ms apart
  group-term     SIGTERM to the whole process group
  fsize          after the steps, RLIMIT_FSIZE of 1 byte (Python ignores SIGXFSZ), exit 0
  rmdir          remove SYNCLINT_PROBE_DIR mid-run (nothing when unprobed)
  threads64      64 threads run STEPS steps each at once
  init-twice     the probe's InitializeInjection called again from another thread (nothing when unprobed)
A mode that waits to be killed gives up after 20 s with exit status 99.
"""
import ctypes
import os
import resource
import shutil
import signal
import sys
import threading
import time

import torch

MODE = sys.argv[1]
STEPS = int(sys.argv[2]) if len(sys.argv) > 2 else 200
x = torch.randn(2048, 2048, device="cuda")


def steps(n):
    total = 0.0
    for _ in range(n):
        total += (x @ x).sum().item()
    return total


def steps_until_ended():
    give_up = time.monotonic() + 20
    while time.monotonic() < give_up:
        steps(1)
    print("not ended", flush=True)
    sys.exit(99)


def wait_child(child):
    _, status = os.waitpid(child, 0)
    if os.WIFEXITED(status):
        print(f"child exited {os.WEXITSTATUS(status)}", flush=True)
    else:
        print(f"child killed by signal {os.WTERMSIG(status)}", flush=True)


def later(action, delay=0.3):
    threading.Thread(target=lambda: (time.sleep(delay), action()), daemon=True).start()


def main():
    print(f"mode {MODE}", flush=True)
    if MODE.startswith("fork"):
        steps(STEPS // 2)
        child = os.fork()
        if child == 0:
            if MODE == "fork-exit":
                sys.exit(5)
            if MODE == "fork-exec":
                os.execv(sys.executable, [sys.executable, os.path.abspath(__file__), "plain", str(STEPS // 2)])
            end = time.monotonic() + 0.2
            while time.monotonic() < end:
                sum(range(1000))
            os._exit(7)
        wait_child(child)
        steps(STEPS // 2)
        print("done", flush=True)
        return 0
    if MODE == "init-twice":
        path = os.environ.get("CUDA_INJECTION64_PATH")
        if path:
            lib = ctypes.CDLL(path)
            t = threading.Thread(target=lib.InitializeInjection)
            t.start()
            t.join()
    if MODE == "threads64":
        threads = [threading.Thread(target=steps, args=(STEPS,)) for _ in range(64)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print("done", flush=True)
        return 0
    if MODE == "thread-exit":
        for _ in range(3):
            threading.Thread(target=steps_until_ended, daemon=True).start()
        later(lambda: (sys.stdout.flush(), ctypes.CDLL(None).exit(9)), 0.5)
        steps_until_ended()
    if MODE in ("term", "int", "term-twice", "group-term"):
        sig = signal.SIGINT if MODE == "int" else signal.SIGTERM

        def send():
            os.kill(0 if MODE == "group-term" else os.getpid(), sig)
            if MODE == "term-twice":
                time.sleep(0.001)
                os.kill(os.getpid(), sig)
        steps(STEPS // 2)
        later(send)
        steps_until_ended()
    steps(STEPS // 2)
    if MODE == "rmdir":
        folder = os.environ.get("SYNCLINT_PROBE_DIR")
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    steps(STEPS - STEPS // 2)
    print("steps done", flush=True)
    if MODE == "exec":
        os.execv("/bin/sh", ["sh", "-c", "echo from sh; exit 3"])
    if MODE == "segv":
        os.kill(os.getpid(), signal.SIGSEGV)
    if MODE == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    if MODE == "fsize":
        resource.setrlimit(resource.RLIMIT_FSIZE, (1, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
        return 0
    return 3 if MODE == "exit3" else 0


if __name__ == "__main__":
    sys.exit(main())
