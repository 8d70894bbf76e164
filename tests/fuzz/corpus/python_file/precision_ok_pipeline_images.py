"""Look-alikes: NumPy cannot read a CUDA tensor (np.asarray raises on one), so what it converts is host
data such as images a pipeline returns; byte strings and digests of images are host values too."""
import hashlib

import numpy as np
import torch
from painters import ImagePipeline

device = torch.device("cuda")
painter = ImagePipeline.from_pretrained("painter").to(device)

for epoch in range(2):
    shots = []
    for _ in range(4):
        shot = painter("a red bicycle").pictures[0]
        shots.append(shot)
    grid = np.stack([np.asarray(s) for s in shots])
    for k, shot in enumerate(shots):
        digest = hashlib.md5(shot.tobytes()).hexdigest()
        print(f"{k}-{digest}.png")
