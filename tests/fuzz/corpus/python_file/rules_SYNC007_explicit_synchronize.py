"""SYNC007: explicit synchronization inside a data-parallel training step."""
import torch

device = torch.device("cuda")
model = torch.nn.Linear(512, 512).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
copy_stream = torch.cuda.Stream()
done = torch.cuda.Event()

for step in range(1000):
    with torch.cuda.stream(copy_stream):
        x = torch.randn(64, 512, device=device)
    copy_stream.synchronize()
#   ^ SYNC007 warning
    loss = model(x).sum()
    loss.backward()
    opt.step()
    done.record()
    done.synchronize()
#   ^ SYNC007 warning
    torch.cuda.synchronize()
#   ^ SYNC007 warning
    torch.cuda.current_stream().synchronize()
#   ^ SYNC007 warning
