"""Sample text from a trained GPT checkpoint, one prompt (streamed) or a file of prompts (batched).

    python text_generation.py --ckpt out/ckpt.pt --prompt "Once upon a time" --max-new-tokens 200
    python text_generation.py --ckpt out/ckpt.pt --prompts-file prompts.txt --top-k 50
"""
import argparse
import math
import sys

import tiktoken
import torch
import torch.nn as nn
import torch.nn.functional as F


class CausalSelfAttention(nn.Module):
    def __init__(self, d_model, n_head, block_size):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d_model, 3 * d_model)
        self.proj = nn.Linear(d_model, d_model)
        causal = torch.tril(torch.ones(block_size, block_size))
        self.register_buffer("causal", causal.view(1, 1, block_size, block_size))

    def forward(self, x):
        # OK: sizes are host metadata; masked_fill with a Python scalar never reads the mask.
        B, T, C = x.size()
        q, k, v = self.qkv(x).split(C, dim=2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.size(-1)))
        att = att.masked_fill(self.causal[:, :, :T, :T] == 0, float("-inf"))
        y = F.softmax(att, dim=-1) @ v
        return self.proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, d_model, n_head, block_size):
        super().__init__()
        self.ln1 = nn.LayerNorm(d_model)
        self.attn = CausalSelfAttention(d_model, n_head, block_size)
        self.ln2 = nn.LayerNorm(d_model)
        self.mlp = nn.Sequential(nn.Linear(d_model, 4 * d_model), nn.GELU(), nn.Linear(4 * d_model, d_model))

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer=12, n_head=12, d_model=768):
        super().__init__()
        self.block_size = block_size
        self.tok_emb = nn.Embedding(vocab_size, d_model)
        self.pos_emb = nn.Embedding(block_size, d_model)
        self.blocks = nn.ModuleList([Block(d_model, n_head, block_size) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, idx):
        T = idx.shape[1]
        pos = torch.arange(T, device=idx.device)
        x = self.tok_emb(idx) + self.pos_emb(pos)
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def top_k_top_p_(logits, top_k=0, top_p=1.0):
    """Filters logits in place. OK: built with topk/sort/scatter and masked_fill_, no host reads."""
    if top_k > 0:
        kth = torch.topk(logits, top_k, dim=-1).values[..., -1, None]
        logits.masked_fill_(logits < kth, float("-inf"))
    if top_p < 1.0:
        sorted_logits, sorted_idx = torch.sort(logits, descending=True, dim=-1)
        cum_probs = sorted_logits.softmax(dim=-1).cumsum(dim=-1)
        remove = cum_probs > top_p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        logits.masked_fill_(remove.scatter(-1, sorted_idx, remove), float("-inf"))


parser = argparse.ArgumentParser()
parser.add_argument("--ckpt", required=True)
parser.add_argument("--prompt", default="\n")
parser.add_argument("--prompts-file")
parser.add_argument("--max-new-tokens", type=int, default=200)
parser.add_argument("--temperature", type=float, default=0.8)
parser.add_argument("--top-k", type=int, default=200)
parser.add_argument("--top-p", type=float, default=1.0)
parser.add_argument("--min-p", type=float, default=0.0)
args = parser.parse_args()

torch.manual_seed(1337)
device = "cuda" if torch.cuda.is_available() else "cpu"
enc = tiktoken.get_encoding("gpt2")
eos_id = enc.eot_token

checkpoint = torch.load(args.ckpt, map_location="cpu")
model = GPT(**checkpoint["model_args"])
model.load_state_dict(checkpoint["model"])
model = model.to(device)
model.eval()
block_size = model.block_size

# ---- one prompt, streamed token by token ----
prompt_ids = enc.encode(args.prompt)
idx = torch.tensor([prompt_ids], dtype=torch.long, device=device)
printed = 0
with torch.no_grad():
    for _ in range(args.max_new_tokens):
        # OK: the ternary tests a Python int.
        idx_cond = idx if idx.size(1) <= block_size else idx[:, -block_size:]
        logits = model(idx_cond)[:, -1, :] / args.temperature
        top_k_top_p_(logits, args.top_k, args.top_p)
        # OK: multinomial samples on the GPU without reading the probabilities.
        next_token = torch.multinomial(F.softmax(logits, dim=-1), num_samples=1)
        idx = torch.cat((idx, next_token), dim=1)
        text = enc.decode(idx[0, len(prompt_ids):].tolist())
#                         ^ SYNC002 warning
        sys.stdout.write(text[printed:])
        sys.stdout.flush()
        printed = len(text)
        if next_token.item() == eos_id:
#          ^ SYNC001 warning
            break
print()

# ---- a file of prompts, sampled as one left-padded batch ----
if args.prompts_file:
    with open(args.prompts_file) as f:
        prompts = [line.rstrip("\n") for line in f if line.strip()]
    encoded = [enc.encode(p) for p in prompts]
    width = max(len(e) for e in encoded)
    batch = torch.full((len(encoded), width), eos_id, dtype=torch.long)
    for row, ids in enumerate(encoded):
        batch[row, width - len(ids):] = torch.tensor(ids)
    batch = batch.to(device)
    finished = torch.zeros(len(encoded), dtype=torch.bool, device=device)
    mean_entropy = []

    with torch.no_grad():
        for step in range(args.max_new_tokens):
            logits = model(batch[:, -block_size:])[:, -1, :] / args.temperature
            top_k_top_p_(logits, args.top_k)
            probs = F.softmax(logits, dim=-1)
            # OK: assigning a Python scalar through a boolean mask does not synchronize.
            probs[probs < args.min_p] = 0.0
            next_tokens = torch.multinomial(probs, num_samples=1).squeeze(1)
            # OK: three-argument where keeps the shape fixed.
            next_tokens = torch.where(finished, eos_id, next_tokens)
            batch = torch.cat([batch, next_tokens[:, None]], dim=1)

            entropy = -(probs * probs.clamp_min(1e-12).log()).sum(dim=-1)
            mean_entropy.append(entropy[~finished].mean())
#                               ^ SYNC008 warning
            newly_done = (next_tokens == eos_id) & ~finished
            for row in newly_done.nonzero().flatten().tolist():
#                      ^ SYNC008 warning
#                      ^ SYNC002 warning
                print(f"prompt {row} finished after {step + 1} tokens", file=sys.stderr)
            finished |= newly_done
            if finished.all():
#              ^ SYNC006 warning
                break

    rows = batch[:, width:].tolist()
    for prompt, row in zip(prompts, rows):
        cut = row.index(eos_id) if eos_id in row else len(row)
        print(prompt + enc.decode(row[:cut]))
        print("-" * 40)
    print(f"mean entropy {torch.stack(mean_entropy).mean().item():.3f}")
