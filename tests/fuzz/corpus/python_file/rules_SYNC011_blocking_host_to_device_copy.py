"""SYNC011: blocking host-to-device copies in the input pipeline of a training loop."""
import numpy as np
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = torch.nn.Linear(40, 3).to(device)
loader = DataLoader(dataset, batch_size=128, shuffle=True, num_workers=4)
class_weights = np.array([1.0, 2.0, 0.5], dtype=np.float32)

for epoch in range(20):
    for batch in loader:
        features = batch["features"].to(device)
#                  ^ SYNC011 warning
        labels = batch["labels"].cuda()
#                ^ SYNC011 warning
        weights = torch.from_numpy(class_weights).to(device)
#                 ^ SYNC011 warning
        offsets = torch.tensor([0, 10, 20], device=device)
#                 ^ SYNC011 warning
        loss = torch.nn.functional.cross_entropy(model(features), labels, weight=weights)
        loss.backward()
        _ = offsets
