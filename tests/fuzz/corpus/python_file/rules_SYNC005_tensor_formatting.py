"""SYNC005: printing and logging GPU tensors every step of a language-model training loop."""
import logging

import torch
import torch.nn.functional as F

logger = logging.getLogger(__name__)
device = torch.device("cuda")


def train(model, loader, optimizer, steps):
    model.to(device)
    for step, batch in enumerate(loader):
        input_ids = batch["input_ids"].to(device, non_blocking=True)
        logits = model(input_ids)
        loss = F.cross_entropy(logits[:, :-1].flatten(0, 1), input_ids[:, 1:].flatten())
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print("step", step, "loss", loss)
#       ^ SYNC005 warning
        logger.info("loss %.4f", loss)
#       ^ SYNC005 warning
        logging.debug("ppl %s", torch.exp(loss))
#       ^ SYNC005 warning
        msg = f"loss={loss:.3f} ppl={loss.exp()}"
#                     ^ SYNC005 warning
#                                    ^ SYNC005 warning
        line = "loss %.3f" % loss
#              ^ SYNC005 warning
        text = "{} tokens, loss {}".format(input_ids.numel(), loss)
#              ^ SYNC005 warning
        tag = str(logits.argmax(-1)[0])
#             ^ SYNC005 warning
        _ = (msg, line, text, tag)
        if step >= steps:
            break
