"""Suppression comments that suppress nothing: stale ids, a stale rule of two, an unknown id and a bare
`# synclint: ignore` on a clean line."""
import torch

device = torch.device("cuda")
model = torch.nn.Linear(8, 1).to(device)
history = []
for step in range(100):
    x = torch.randn(16, 8, device=device)
    loss = model(x).square().mean()
    loss.backward()
    # The read this comment was written for is gone.
    history.append(loss.detach())  # synclint: ignore[SYNC001]
#                                  ^ SYNC100 warning "unused suppression for SYNC001"
    # Only one of the two rules still fires here.
    last = loss.item()  # synclint: ignore[SYNC001, SYNC005]
#                       ^ SYNC100 warning "unused suppression for SYNC005"
    # The flake8 spelling is checked the same way.
    grads = [p.grad for p in model.parameters()]  # noqa: SYNC003
#                                                 ^ SYNC100 warning "unused suppression for SYNC003"
    # An id that does not exist.
    mean = loss.detach() / 2  # synclint: ignore[SYNC0001]
#                             ^ SYNC100 warning "unknown rule 'SYNC0001'"
    # A bare ignore on a line with no finding.
    step_count = step + 1  # synclint: ignore
#                          ^ SYNC100 warning "no finding on this line"
