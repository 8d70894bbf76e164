"""Conversions of host values: shapes, sizes, Python numbers, host results."""
import math

import torch

device = torch.device("cuda")
model = torch.nn.Linear(10, 1).to(device)
for step in range(1000):
    x = torch.randn(128, 10, device=device)
    y = model(x)
    batch = int(x.shape[0])
    width = float(x.size(1))
    rate = round(0.1 * math.cos(step / 1000), 6)
    scale = math.sqrt(batch)
    flag = bool(step % 2)
