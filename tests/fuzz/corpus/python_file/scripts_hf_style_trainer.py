"""A compact Trainer in the style of Hugging Face transformers, fine-tuning a sentence classifier on SST-2.

    python hf_style_trainer.py --model distilbert-base-uncased --epochs 3 --fp16
    python hf_style_trainer.py --model distilbert-base-uncased --strict   # fp32, fail on inf/nan grads

training_step and compute_loss are per-step callbacks: synclint treats them as hot by name.
"""
import argparse
import os
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
import wandb
from datasets import load_dataset
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter
from transformers import (AutoModelForSequenceClassification, AutoTokenizer, DataCollatorWithPadding,
                          get_linear_schedule_with_warmup)


@dataclass
class TrainingArguments:
    output_dir: str = "out"
    num_train_epochs: int = 3
    per_device_train_batch_size: int = 32
    learning_rate: float = 2e-5
    weight_decay: float = 0.01
    warmup_ratio: float = 0.06
    max_grad_norm: float = 1.0
    label_smoothing: float = 0.0
    logging_steps: int = 50
    fp16: bool = False
    local_rank: int = 0
    dataloader_num_workers: int = 4


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator=None):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.device = torch.device("cuda", args.local_rank)
        self.writer = SummaryWriter(os.path.join(args.output_dir, "runs"))
        self.scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
        self.global_step = 0

    def get_train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=self.args.per_device_train_batch_size,
                          shuffle=True, collate_fn=self.data_collator,
                          num_workers=self.args.dataloader_num_workers, pin_memory=True)

    def _prepare_inputs(self, inputs):
        # OK: pinned batches, asynchronous copies.
        return {k: v.to(self.device, non_blocking=True) for k, v in inputs.items()}

    def compute_loss(self, model, inputs):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        return F.cross_entropy(outputs.logits.float(), labels, label_smoothing=self.args.label_smoothing)

    def training_step(self, model, inputs):
        model.train()
        inputs = self._prepare_inputs(inputs)
        with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=self.args.fp16):
            loss = self.compute_loss(model, inputs)
        self.scaler.scale(loss).backward()
        return loss.detach()

    def train(self):
        args = self.args
        device = torch.device("cuda", args.local_rank)
        model = self.model.to(device)
        train_dataloader = self.get_train_dataloader()
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate,
                                      weight_decay=args.weight_decay)
        total_steps = len(train_dataloader) * args.num_train_epochs
        scheduler = get_linear_schedule_with_warmup(optimizer, int(args.warmup_ratio * total_steps), total_steps)
        wandb.init(project="sst2-finetune", config=vars(args))
        tr_loss = torch.zeros((), device=device)

        for epoch in range(args.num_train_epochs):
            epoch_start = time.perf_counter()
            for step, inputs in enumerate(train_dataloader):
                step_start = time.perf_counter()
                tr_loss_step = self.training_step(model, inputs)
                step_seconds = time.perf_counter() - step_start
#                              ^ SYNC012 warning
                # expectation: tr_loss_step is a loss (training_step -> compute_loss -> cross_entropy)
                if torch.isnan(tr_loss_step):
#                  ^ SYNC006 warning
                    # keep the running mean finite: count this step at the current average
                    tr_loss_step = tr_loss / (1 + self.global_step)
                tr_loss += tr_loss_step

                self.scaler.unscale_(optimizer)
                # OK: the default clip_grad_norm_ returns the norm as a device tensor, unread.
                grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                # expectation: AdamW without fused=True: GradScaler.step reads found_inf on the host
                self.scaler.step(optimizer)
#               ^ SYNC009 warning
                self.scaler.update()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                self.global_step += 1

                self.writer.add_scalar("train/loss", tr_loss_step, self.global_step)
#               ^ SYNC010 warning
                # OK: step_seconds is a Python float.
                self.writer.add_scalar("train/step_seconds", step_seconds, self.global_step)

                if self.global_step % args.logging_steps == 0:
                    wandb.log({
#                   ^ SYNC010 note
                        "train/loss": tr_loss / self.global_step,
                        "train/grad_norm": grad_norm,
                        "train/learning_rate": scheduler.get_last_lr()[0],
                        "train/epoch": epoch + (step + 1) / len(train_dataloader),
                    }, step=self.global_step)
                    self.writer.add_scalar("train/loss_scale", self.scaler.get_scale(), self.global_step)
#                                                              ^ SYNC009 note

            # Timed correctly: the wall clock is read after the queued work has finished, so no SYNC012
            # here; the synchronize itself runs once per epoch.
            torch.cuda.synchronize()
#           ^ SYNC007 note "once per epoch"
            epoch_seconds = time.perf_counter() - epoch_start
            print(f"epoch {epoch}: {len(train_dataloader) / epoch_seconds:.2f} it/s")
            os.makedirs(args.output_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scheduler": scheduler.state_dict(), "epoch": epoch},
                       os.path.join(args.output_dir, f"checkpoint-{epoch}.pt"))

        self.writer.close()
        wandb.finish()
        return (tr_loss / max(self.global_step, 1)).item()


class StrictTrainer(Trainer):
    """fp32 training that stops on a non-finite gradient norm instead of clipping it silently."""

    def training_step(self, model, inputs):
        loss = super().training_step(model, inputs)
        # expectation: a syncing library call in a per-step callback
        torch.nn.utils.clip_grad_norm_(model.parameters(), self.args.max_grad_norm, error_if_nonfinite=True)
#       ^ SYNC009 warning "per-step callback"
        return loss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="distilbert-base-uncased")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--fp16", action="store_true")
    parser.add_argument("--strict", action="store_true")
    parser.add_argument("--output-dir", default="out/sst2")
    cli = parser.parse_args()

    tokenizer = AutoTokenizer.from_pretrained(cli.model)
    model = AutoModelForSequenceClassification.from_pretrained(cli.model, num_labels=2)
    raw = load_dataset("glue", "sst2")
    train_ds = raw["train"].map(lambda b: tokenizer(b["sentence"], truncation=True, max_length=128),
                                batched=True)
    train_ds = train_ds.rename_column("label", "labels").remove_columns(["sentence", "idx"])
    train_ds.set_format("torch")

    args = TrainingArguments(output_dir=cli.output_dir, num_train_epochs=cli.epochs,
                             fp16=cli.fp16 and not cli.strict)
    trainer_cls = StrictTrainer if cli.strict else Trainer
    trainer = trainer_cls(model, args, train_ds, data_collator=DataCollatorWithPadding(tokenizer))
    final_loss = trainer.train()
    print(f"final mean training loss {final_loss:.4f}")


if __name__ == "__main__":
    main()
