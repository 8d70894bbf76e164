"""Loggers fed host values read once per logging interval."""
import torch
import wandb
from torch.utils.tensorboard import SummaryWriter

device = torch.device("cuda")
model = torch.nn.Linear(32, 2).to(device)
writer = SummaryWriter("runs/exp")
loss_sum = torch.zeros((), device=device)
for step in range(1, 10_001):
    loss = model(torch.randn(8, 32, device=device)).square().mean()
    loss_sum += loss.detach()
    writer.add_scalar("lr", 1e-3, step)
    wandb.log({"step": step, "epoch": step // 1000})
    writer.add_scalar("batch_size", torch.tensor(8).item(), step)
