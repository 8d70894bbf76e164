"""`.tolist()` on host data, or once after the loop."""
import numpy as np
import torch

device = torch.device("cuda")
model = torch.nn.Linear(8, 3).to(device)
chunks = []
for step in range(50):
    x = torch.randn(16, 8, device=device)
    chunks.append(model(x).argmax(-1))
    # numpy arrays and CPU tensors are already on the host.
    ids = np.arange(16).tolist()
    cpu_ids = torch.arange(16).tolist()

# One copy after the loop: cold.
all_preds = torch.cat(chunks).tolist()
