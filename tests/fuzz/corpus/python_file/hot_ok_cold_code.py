"""Syncs in code that runs once (module level, functions no loop calls) are not reported by default."""
import torch

device = torch.device("cuda")
model = torch.nn.Linear(8, 8).to(device)
x = torch.randn(4, 8, device=device)
print("initial output norm", model(x).norm().item())
if torch.isnan(model(x)).any():
    raise SystemExit("bad init")


def export(path):
    state = {k: v.cpu() for k, v in model.state_dict().items()}
    torch.save(state, path)
    torch.cuda.synchronize()


def summary():
    return [float(p.norm()) for p in model.parameters()]


export("model.pt")
