"""Copies that do not synchronize, or that happen on host data."""
import numpy as np
import torch

device = torch.device("cuda")
model = torch.nn.Linear(4, 2).to(device)
pinned = torch.empty(64, 2).pin_memory()
for step in range(100):
    out = model(torch.randn(64, 4, device=device))
    # Asynchronous copy into pinned memory: no synchronization here.
    pinned.copy_(out.detach().to("cpu", non_blocking=True))
    host = np.asarray([1.0, 2.0])
    cpu_t = torch.ones(3).cpu().numpy()
    arr = np.array(torch.zeros(2))
    # .to(device) is a copy to the GPU, not to the host.
    back = torch.zeros(2).to(device, non_blocking=True)
