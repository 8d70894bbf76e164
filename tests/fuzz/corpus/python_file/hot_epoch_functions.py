"""A loop that calls functions holding the batch loop is an epoch loop: their other code runs once per epoch."""
import torch
import torch.nn.functional as F

device = torch.device("cuda")


def train_one_epoch(model, loader, opt):
    total = torch.zeros((), device=device)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        total += loss.detach()
        if not torch.isfinite(loss):
#              ^ SYNC006 warning "every step of the loop at epoch_functions.py:10"
            raise FloatingPointError("non-finite loss")
    print(f"train loss {total / len(loader):.4f}")
#                       ^ SYNC005 note "once per epoch: called from epoch_functions.py:37 inside loop at epoch_functions.py:36"


def evaluate(model, loader):
    correct = torch.zeros((), device=device, dtype=torch.long)
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        correct += (model(x).argmax(-1) == y).sum()
    return correct.item() / len(loader.dataset)
#          ^ SYNC001 note "once per epoch"


def fit(model, train_loader, val_loader, rounds=10):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    best = 0.0
    for r in range(rounds):
        train_one_epoch(model, train_loader, opt)
        acc = evaluate(model, val_loader)
        # OK: acc is a Python float.
        if acc > best:
            best = acc
    return best
