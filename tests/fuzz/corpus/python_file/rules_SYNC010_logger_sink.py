"""SYNC010: experiment loggers fed GPU tensors every step."""
import mlflow
import torch
import wandb
from torch.utils.tensorboard import SummaryWriter

device = torch.device("cuda")
model = torch.nn.Linear(32, 2).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
writer = SummaryWriter("runs/exp")
run = wandb.init(project="demo")

for step, (x, y) in enumerate(train_loader):
    x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
    logits = model(x)
    loss = torch.nn.functional.cross_entropy(logits, y)
    acc = (logits.argmax(-1) == y).float().mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    wandb.log({"train/loss": loss, "train/acc": acc}, step=step)
#   ^ SYNC010 warning
    writer.add_scalar("train/loss", loss, step)
#   ^ SYNC010 warning
    writer.add_scalars("train", {"loss": loss, "acc": acc}, step)
#   ^ SYNC010 warning
    mlflow.log_metric("loss", loss, step=step)
#   ^ SYNC010 warning
    metrics = {"loss": loss.detach()}
    run.log(metrics)
#   ^ SYNC010 warning
