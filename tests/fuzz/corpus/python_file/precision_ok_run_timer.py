"""Look-alike of SYNC012: a run-level throughput timer whose interval holds a blocking read every step
(here accepted with a suppression) measures real time, not only queued launches."""
import time

import torch

device = torch.device("cuda")
net = torch.nn.Linear(64, 1).to(device)
start = time.time()
for step in range(1, 1_001):
    loss = net(torch.randn(16, 64, device=device)).mean()
    history = loss.item()  # synclint: ignore[SYNC001]
    loss.backward()
    rate = int(step / (time.time() - start))
