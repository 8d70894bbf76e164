"""Synchronizing once, outside any loop: before a benchmark and after training."""
import torch

device = torch.device("cuda")
model = torch.nn.Linear(64, 64).to(device)
x = torch.randn(32, 64, device=device)
torch.cuda.synchronize()
for _ in range(10):
    y = model(x)
    event = torch.cuda.Event(enable_timing=True)
    event.record()
torch.cuda.synchronize()


def teardown():
    # Never called from a loop.
    torch.cuda.synchronize()
