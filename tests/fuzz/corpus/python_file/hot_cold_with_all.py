# synclint-fixture: all
"""With --all, syncs in code that runs once are reported too, as notes."""
import torch

device = torch.device("cuda")
weights = torch.randn(1000, device=device)
print("mean weight", weights.mean().item())
#                    ^ SYNC001 note "in code that runs once"


def checkpoint_summary(model):
    return {name: p.norm().item() for name, p in model.named_parameters()}
#                 ^ SYNC001 note
