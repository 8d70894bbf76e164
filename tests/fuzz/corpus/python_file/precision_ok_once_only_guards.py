"""Look-alikes: code under a once-only guard (`step == 0`, `i == warmup_steps`, the step that ends the run)
runs once per run, not every step; so does the failure path that ends the program, and a helper that
maps a host converter over a collection gives host values."""
import math
import sys

import torch
from helpers import convert_all, schedule

device = torch.device("cuda")
net = torch.nn.Linear(32, 1).to(device)
warmup_steps, max_steps = 100, 5_000

for epoch in range(10):
    for step in range(1_000):
        loss = net(torch.randn(8, 32, device=device)).mean()
        if step == 0:
            print("first loss", loss.item())
        if epoch == 0 and step == warmup_steps:
            print("after warm-up", loss.item())
        if step >= max_steps:
            print("final", loss.item())
            break
        lr = schedule(step)
        if not math.isfinite(lr):
            print("stopping at", loss.item())
            sys.exit(1)
        values = convert_all({"loss": loss}, torch.Tensor, lambda t: t.item())
        print(f"{values['loss']:.3f}")
