"""SYNC012: host timers around GPU work without a synchronization, in a benchmark loop."""
import time

import torch

device = torch.device("cuda")
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).to(device)
x = torch.randn(64, 1024, device=device)


def forward_backward(batch):
    out = model(batch)
    out.sum().backward()
    return out


timings = []
for it in range(100):
    t0 = time.perf_counter()
    y = model(x)
    y.sum().backward()
    timings.append(time.perf_counter() - t0)
#                  ^ SYNC012 warning
    start = time.time()
    forward_backward(x)
    end = time.time()
    timings.append(end - start)
#                  ^ SYNC012 warning
