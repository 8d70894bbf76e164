"""Code in the epoch loop but outside the batch loop runs once per epoch: a note."""
import torch
import torch.nn.functional as F

device = torch.device("cuda")
model = torch.nn.Linear(20, 5).to(device)
opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)

for epoch in range(100):
    epoch_loss = torch.zeros((), device=device)
    for x, y in train_loader:
        x = x.to(device, non_blocking=True)
        y = y.to(device, non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        epoch_loss += loss.detach()
    print(f"epoch {epoch}: {epoch_loss / len(train_loader):.4f}")
#                           ^ SYNC005 note "once per epoch"
    if epoch_loss.isnan():
#      ^ SYNC006 note
        break
