"""Code under a logging-interval guard is hot but periodic: a note, with the guard as related location."""
import torch

device = torch.device("cuda")
model = torch.nn.Linear(128, 10).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
log_every, eval_every, grad_accum_steps = 50, 500, 4


def log_metrics(step, loss):
    print(f"step {step}: loss {loss:.4f}")
#                              ^ SYNC005 note "periodic guard at periodic_guards.py:21"


for step in range(10_000):
    x = torch.randn(64, 128, device=device)
    loss = model(x).logsumexp(-1).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % log_every == 0:
        log_metrics(step, loss)
        print("loss", loss.item())
#                     ^ SYNC001 note "at each logging interval (periodic guard at periodic_guards.py:21)"
    if (step + 1) % eval_every == 0 and step > 0:
        acc = (model(x).argmax(-1) == 0).float().mean().item()
#             ^ SYNC001 note
    if step % 100:
        # Off the interval: 99 steps out of 100, hot.
        running = loss.item()
#                 ^ SYNC001 warning
    else:
        snapshot = loss.item()
#                  ^ SYNC001 note
    # Gradient accumulation is not a logging interval: the optimizer step runs every few steps.
    if (step + 1) % grad_accum_steps == 0:
        accumulated = loss.item()
#                     ^ SYNC001 warning "every step of the loop"
    if step % 10 != 0:
        continue
    stats = loss.detach().cpu()
#           ^ SYNC003 note
