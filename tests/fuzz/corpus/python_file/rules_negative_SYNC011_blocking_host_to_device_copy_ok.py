"""Non-blocking copies from pinned memory, tensors built once, and moves outside loops."""
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
model = torch.nn.Linear(40, 3)
model.to(device)
loader = DataLoader(dataset, batch_size=128, pin_memory=True, num_workers=4)
offsets = torch.tensor([0, 10, 20], device=device)
cpu_table = torch.arange(100).to(device)
for batch in loader:
    features = batch["features"].to(device, non_blocking=True)
    labels = batch["labels"].cuda(non_blocking=True)
    # Already on the GPU: .to(device) is a no-op, and dtype casts copy nothing.
    features = features.to(device)
    labels = labels.to(torch.long)
    model.to(device)
    loss = torch.nn.functional.cross_entropy(model(features), labels)
