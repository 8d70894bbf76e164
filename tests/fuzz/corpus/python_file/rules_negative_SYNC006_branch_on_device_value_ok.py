"""Conditions on host values: shapes, identity tests, Python numbers and flags."""
import torch

device = torch.device("cuda")
model = torch.nn.Linear(16, 16).to(device)
patience, bad_epochs = 3, 0
for step in range(100):
    x = torch.randn(8, 16, device=device)
    out = model(x)
    if x.shape[0] > 1 and out.dim() == 2:
        out = out.softmax(-1)
    for p in model.parameters():
        if p.grad is None:
            continue
        if p.requires_grad and p.grad is not None:
            p.grad.mul_(0.5)
    if step % 10 == 0 and bad_epochs < patience:
        bad_epochs += 1
    # torch.any alone builds a GPU tensor; nothing reads it here.
    flags = torch.any(out > 0)
    done = step == 99 or bad_epochs >= patience
    # A match on a host value, and on a GPU value with captures only: nothing is compared on the GPU.
    match step % 3:
        case 0:
            bad_epochs = 0
        case _:
            pass
    match out:
        case logits:
            logits = logits.float()
    if done:
        break
