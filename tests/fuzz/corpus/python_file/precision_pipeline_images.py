"""A GPU model's outputs copied to the host in a sampling loop are still reported."""
import numpy as np
import torch

device = torch.device("cuda")
generator = make_generator().to(device)

for epoch in range(2):
    for _ in range(8):
        sample = generator(torch.randn(1, 64, device=device))
        frames = sample.cpu().numpy()
#                ^ SYNC003 warning "every step"
