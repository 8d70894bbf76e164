"""Timers that wait for the GPU first: a synchronize (accepted here with a suppression: this loop exists
to measure), or a helper that synchronizes."""
import time

import torch

device = torch.device("cuda")
model = torch.nn.Linear(1024, 1024).to(device)
x = torch.randn(64, 1024, device=device)


def step_and_wait(batch):
    loss = model(batch).square().mean()
    loss.backward()
    torch.cuda.synchronize()  # synclint: ignore[SYNC007]


timings = []
for it in range(100):
    torch.cuda.synchronize()  # synclint: ignore[SYNC007]
    t0 = time.perf_counter()
    y = model(x)
    torch.cuda.synchronize()  # synclint: ignore[SYNC007]
    timings.append(time.perf_counter() - t0)
    t1 = time.perf_counter()
    step_and_wait(x)
    timings.append(time.perf_counter() - t1)
    t2 = time.monotonic()
    rows = [i * 2 for i in range(1000)]
    timings.append(time.monotonic() - t2)
