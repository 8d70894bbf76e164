"""SYNC006: Python branches on GPU values in a training loop with early stopping and a NaN guard."""
import torch
import torch.nn as nn

device = "cuda" if torch.cuda.is_available() else "cpu"
model = nn.Linear(64, 1).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
best = float("inf")

for step in range(5000):
    x = torch.randn(256, 64, device=device)
    y = torch.randn(256, 1, device=device)
    loss = nn.functional.mse_loss(model(x), y)
    if torch.isnan(loss):
#      ^ SYNC006 warning
        break
    if loss < best:
#      ^ SYNC006 warning
        best = loss.detach()
    assert torch.isfinite(loss).all(), "non-finite loss"
#          ^ SYNC006 warning
    while loss > 10.0:
#         ^ SYNC006 warning
        loss = loss / 2
    ok = not (loss > 1e3)
#             ^ SYNC006 warning
    scale = 0.5 if loss > 1.0 else 1.0
#                  ^ SYNC006 warning
    if step > 100 and loss.abs() < 1e-6:
#                     ^ SYNC006 warning
        break
    # `match` compares its subject with each value pattern, and a guard is a condition.
    match model(x).argmax():
#         ^ SYNC006 warning
        case 0:
            pass
        case _:
            pass
    match loss:
        case small if small < 0.1:
#                     ^ SYNC006 warning
            pass
    opt.zero_grad()
    loss.backward()
    opt.step()
