"""Compound periodic guards and periodic guards through a flag, a helper's answer or an early return are
notes; a plain per-step read next to them stays a warning."""
import torch
from metrics import tracker

device = torch.device("cuda")
net = torch.nn.Linear(32, 1).to(device)


def report(loss, step, every):
    if step % every != 0:
        return
    print(loss.item())
#         ^ SYNC001 note "periodic guard"


def due(step):
    return step % 20 == 0


for step in range(10_000):
    loss = net(torch.randn(8, 32, device=device)).mean()
    if step % 100 == 0 or step == 9_999:
        print(loss.item())
#             ^ SYNC001 note "periodic guard"
    if (step + 1) % 50 == 0 and torch.distributed.get_rank() == 0:
        print(loss.item())
#             ^ SYNC001 note "periodic guard"
    should_log = step % 25 == 0
    if should_log:
        print(loss.item())
#             ^ SYNC001 note "periodic guard"
    if step % 500 == 0:
        for batch in range(4):
            held_out = net(torch.randn(8, 32, device=device)).mean().item()
#                      ^ SYNC001 note "periodic guard"
    log_now = due(step)
    if log_now:
        print(loss.item())
#             ^ SYNC001 note "periodic guard"
    report(loss, step, 10)
    total = loss.item()
#           ^ SYNC001 warning "every step"
    flush = tracker.should_log(step)
    if not flush:
        continue
    print(loss.item())
#         ^ SYNC001 note "periodic guard"
