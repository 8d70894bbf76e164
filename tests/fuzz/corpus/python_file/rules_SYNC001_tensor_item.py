"""SYNC001: `.item()` on GPU values in a classifier's training loop."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda")
model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
pretrained = torch.hub.load("pytorch/vision", "resnet18").to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
data = TensorDataset(torch.randn(1024, 32), torch.randint(0, 10, (1024,)))
loader = DataLoader(data, batch_size=64, shuffle=True, pin_memory=True)

history, extremes = [], []
for x, y in loader:
    x = x.to(device, non_blocking=True)
    y = y.to(device, non_blocking=True)
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    optimizer.step()
    history.append(loss.item())
#                  ^ SYNC001 warning "every step of the loop at SYNC001_tensor_item.py:15"
    acc = (logits.argmax(1) == y).float().mean().item()
#         ^ SYNC001 warning
    # One read per parameter tensor: the multiplier is in the message.
    norms = [p.grad.norm().item() for p in model.parameters() if p.grad is not None]
#            ^ SYNC001 warning "4 reads per step"
    # A model from elsewhere: how many parameter tensors it has is not known here.
    for p in pretrained.parameters():
        p.grad.norm().item()
#       ^ SYNC001 warning "one read per parameter per step"
    for stat in (logits.max(), logits.min(), logits.std()):
        extremes.append(stat.item())
#                       ^ SYNC001 warning "3 reads per step"
    # The device of `scheduler_state` is unknown: a note with low confidence.
    warmup = scheduler_state.item()
#            ^ SYNC001 note
