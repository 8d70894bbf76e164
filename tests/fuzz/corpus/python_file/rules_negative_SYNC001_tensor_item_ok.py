"""Looks like SYNC001, but nothing reads a GPU value in hot code."""
import numpy as np
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(16, 4).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
weights = torch.linspace(0.0, 1.0, steps=8)  # a CPU tensor


def summarize(losses):
    # Never called from a loop and not a per-step callback: cold.
    return torch.stack(losses).mean().item()


total = 0.0
for step in range(100):
    x = torch.randn(32, 16, device=device)
    loss = model(x).pow(2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    # Host values: a CPU tensor and a numpy scalar.
    w = weights[step % 8].item()
    total += np.float32(w).item() * 0.5
    for v in weights:
        total += v.item()

# Module level, after the loop: runs once.
final = loss.item()
print(f"final loss {final:.4f} total {total}")
