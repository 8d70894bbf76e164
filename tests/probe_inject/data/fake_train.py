"""A training loop played to the injected probe through the stand-in CUPTI (fake_cupti.cpp), from Python:
the probe is loaded and initialized with ctypes as the CUDA driver would, and each step makes a kernel
launch and a read (stream synchronize) through the stand-in, the GIL released as torch's calls do.
The run ends with an uncaught exception: the probe's report must still be written.

  python3 fake_train.py PROBE_LIBRARY FAKE_CUPTI_LIBRARY STEPS
"""
import ctypes
import os
import sys
import time

LAUNCH, SYNC = 211, 131  # CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, _cudaStreamSynchronize_v3020
ENTER, EXIT = 0, 1

probe = ctypes.CDLL(sys.argv[1])
if probe.InitializeInjection() != 1:
    sys.exit(4)
fake = ctypes.CDLL(sys.argv[2])
fake.fake_cupti_call.argtypes = [ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32, ctypes.POINTER(ctypes.c_uint64),
                                 ctypes.c_void_p]
fake.fake_cupti_kernel.argtypes = [ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32]
correlation = 0


def api(cbid, until_ns):
    global correlation
    correlation += 1
    data = ctypes.c_uint64(0)
    fake.fake_cupti_call(cbid, ENTER, correlation, ctypes.byref(data), None)
    while time.monotonic_ns() < until_ns:
        pass
    fake.fake_cupti_call(cbid, EXIT, correlation, ctypes.byref(data), None)
    return correlation


def train_step():
    t = time.monotonic_ns()
    c = api(LAUNCH, t + 5_000)
    fake.fake_cupti_kernel(t + 10_000, t + 200_000, c)
    return t + 200_000


def read_loss(kernel_end):
    api(SYNC, kernel_end + 2_000)  # the read: waits for the step's kernel


print(os.getpid(), flush=True)
for step in range(int(sys.argv[3])):
    read_loss(train_step())
raise RuntimeError("loss diverged")  # uncaught: the interpreter exits with status 1
