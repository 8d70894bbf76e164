"""Hugging Face accelerate: prepare() puts the model on the device; the loop logs periodically and once per epoch."""
import math
import time
import torch
from torch import nn
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, get_linear_schedule_with_warmup
from accelerate import Accelerator

accelerator = Accelerator()
model = AutoModelForCausalLM.from_pretrained("gpt2")
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
train_dataloader = DataLoader(train_set, batch_size=8, shuffle=True)
model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
lr_scheduler = get_linear_schedule_with_warmup(optimizer, 100, 1000)
completed_steps = 0
for epoch in range(3):
    model.train()
    total_loss = 0
    for step, batch in enumerate(train_dataloader):
#                      ^ SYNC011 warning "loader prepared for the device"
        outputs = model(**batch)
        loss = outputs.loss
        total_loss += loss.detach().float()
        accelerator.backward(loss)
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
        completed_steps += 1
        if completed_steps % 100 == 0:
            accelerator.print(f"step {completed_steps} loss {loss.item()}")
#                                                            ^ SYNC001 note "at each logging interval"
    model.eval()
    losses = []
    for step, batch in enumerate(eval_dataloader):
        with torch.no_grad():
            outputs = model(**batch)
        loss = outputs.loss
        losses.append(accelerator.gather_for_metrics(loss.repeat(8)))
    losses = torch.cat(losses)
    try:
        eval_loss = torch.mean(losses)
        perplexity = math.exp(eval_loss)
#                    ^ SYNC004 note "once per epoch"
    except OverflowError:
        perplexity = float("inf")
    print(f"epoch {epoch}: perplexity: {perplexity} eval_loss: {eval_loss} train_loss: {total_loss.item() / len(train_dataloader)}")
#                                                               ^ SYNC005 note
#                                                                                       ^ SYNC001 note
