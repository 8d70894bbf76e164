"""Functions and methods are hot when a loop calls them, directly or through other functions."""
import torch
import torch.nn.functional as F


def grad_norm(model):
    # Two hops from the loop: train() -> report() -> grad_norm().
    return torch.stack([p.grad.norm() for p in model.parameters()]).norm().item()
#          ^ SYNC001 warning "called from cross_function.py:47 inside loop at cross_function.py:44"


def report(model, loss):
    print("loss", loss)
#   ^ SYNC005 warning "every step: called from cross_function.py:47 inside loop at cross_function.py:44"
    return grad_norm(model)


class Trainer:
    def __init__(self, model, device):
        self.model = model.to(device)
        self.device = device
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.history = []

    def step(self, x, y):
        x, y = x.to(self.device), y.to(self.device)
#              ^ SYNC011 warning "called from cross_function.py:45 inside loop at cross_function.py:44"
#                                 ^ SYNC011 warning
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        return self.track(loss)

    def track(self, loss):
        # self.track(...) from a hot method is hot too.
        self.history.append(loss.detach().cpu())
#                           ^ SYNC003 warning "called from cross_function.py:45 inside loop at cross_function.py:44"
        return loss.detach()


def train(model, loader, device):
    trainer = Trainer(model, device)
    for step, (x, y) in enumerate(loader):
        loss = trainer.step(x, y)
        if loss is not None:
            report(model, loss)
    # OK: once, after the loop.
    return report(model, loss)


def never_called(model):
    # Cold: no loop calls this function.
    return [p.norm().item() for p in model.parameters()]
