"""'What is …?': short answers to the terms the forms and the headline use, one click away.

Each ``Term`` says what a figure or an input means, how ftcost computes or uses it and where the
user guide explains more (a page and the start of a heading there: ``io/guide.py`` turns it into
a link). ``fields`` are the inputs (``section.name``) whose form row offers the answer,
``headlines`` the headline cards. The user guide's "What is …?" page is this table as Markdown
(``glossary_markdown``); the window shows one answer as HTML (``term_html``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True, slots=True)
class Term:
    key: str
    title: str  # "MFU (model FLOPs utilisation)"
    answer: tuple[str, ...]  # paragraphs, plain text
    page: str  # a user-guide page ("docs/model.md")
    heading: str  # the start of a heading on that page
    fields: tuple[str, ...] = ()
    headlines: tuple[str, ...] = ()


GLOSSARY: tuple[Term, ...] = (
    Term(
        "mfu",
        "MFU (model FLOPs utilisation)",
        (
            "The share of a GPU's dense BF16 peak that training actually achieves: achieved "
            "model FLOP/s ÷ the vendor's peak. Training time = training FLOPs ÷ (GPUs × peak × "
            "MFU), so halving the MFU doubles the GPU-hours and the bill.",
            "Left empty, ftcost computes it for each GPU: the GPU's achievable matmul fraction "
            "(measured, a catalog column) × the stack efficiency (0.60) × the matmul share of "
            "one micro-batch. Well-tuned runs reach 35–55 %; small batches, short sequences and "
            "LoRA kernels 15–30 % (article 000). The FLOPs counted include recomputation, as "
            "article 000 does. 'Effective MFU' on the headline also charges the time "
            "communication is not hidden.",
        ),
        "docs/model.md",
        "Time and cost",
        ("efficiency.mfu", "efficiency.stack_efficiency", "efficiency.mfu_band"),
        ("gpu_hours",),
    ),
    Term(
        "usable_memory",
        "Usable memory: allocated, reserved, device total",
        (
            "Not every byte a GPU reports can hold your tensors. ftcost gives three figures per "
            "GPU, each the one a tool reports: peak allocated (every tensor at the step's peak, "
            "torch.cuda.max_memory_allocated()); ÷ the allocator efficiency (85 % by default, "
            "article 001) = expected peak reserved (max_memory_reserved(): PyTorch's caching "
            "allocator keeps freed blocks and fragments); + the CUDA context and workspaces = "
            "device total, what nvidia-smi shows. The run fits when the device total is at most "
            "the GPU's memory.",
            "The headline turns green when the run fits, amber when less than the near-limit "
            "margin stays free (fragmentation or a longer batch can still run out of memory), "
            "red when it does not fit.",
        ),
        "docs/model.md",
        "Memory per GPU",
        (
            "hardware.usable_memory_fraction",
            "hardware.near_limit_fraction",
            "hardware.framework_overhead_gib",
        ),
        ("memory",),
    ),
    Term(
        "gpus_needed",
        "GPUs needed and GPUs rented",
        (
            "Needed: the fewest GPUs whose per-GPU memory fits with the chosen sharding (each "
            "memory part is A + B ÷ n, solved exactly). Rented: that number rounded up to what "
            "can be rented (a GPU's rental unit, whole nodes beyond one) — every rented GPU is "
            "billed and, with 'fewest GPUs that fit', trains.",
        ),
        "docs/model.md",
        "Time and cost",
        (
            "training.auto_gpu_count",
            "training.num_gpus",
            "hardware.rent_whole_units",
            "hardware.gpus_per_node",
        ),
        ("gpus",),
    ),
    Term(
        "sharding",
        "Sharding (DDP, ZeRO, FSDP)",
        (
            "What is split across the data-parallel GPUs. DDP: nothing, each GPU holds "
            "everything. ZeRO-1: the optimizer states; ZeRO-2: also the gradients; ZeRO-3/FSDP: "
            "also the weights, gathered layer by layer. More sharding means less memory per GPU "
            "and more communication per step.",
        ),
        "docs/model.md",
        "Time and cost",
        ("training.sharding", "efficiency.communication", "efficiency.comm_overlap"),
    ),
    Term(
        "checkpointing",
        "Activation checkpointing",
        (
            "Keep only each layer's input during the forward pass and recompute the layer during "
            "backward: activation memory drops to about one layer's worth, at the price of one "
            "more forward pass (+2N FLOPs per token: 8N instead of 6N for a full fine-tune).",
            "'auto' (the default) turns it on only when the run needs it to fit, to rent fewer "
            "GPUs, or to leave the near-limit margin free; the cards say what the other choice "
            "would cost.",
        ),
        "docs/model.md",
        "Time and cost",
        ("training.checkpointing",),
    ),
    Term(
        "tokens",
        "Tokens processed (D)",
        (
            "The tokens the GPUs compute on over the whole run: useful tokens × epochs ÷ the "
            "useful-token fraction. Padding is computed on too: with 'longest' batching a "
            "micro-batch is padded to its longest row; with 'max_length' every row to the "
            "maximum length; packing fills rows with whole examples (fraction 1).",
            "Training FLOPs = FLOPs per token × D (6N per token for a full fine-tune, 4N for "
            "LoRA, plus attention and any recomputation).",
        ),
        "docs/model.md",
        "Tokens",
        (
            "data.num_examples",
            "data.mean_tokens_per_example",
            "data.epochs",
            "data.total_tokens",
            "data.max_seq_len",
            "data.padding",
            "data.length_cv",
            "data.useful_fraction_override",
        ),
    ),
    Term(
        "batch",
        "Micro-batch and gradient accumulation",
        (
            "A micro-batch is the sequences one GPU runs through one forward and backward pass; "
            "its activations set the memory. Gradient accumulation adds several micro-batches "
            "before one optimizer step: the effective batch is micro-batch × accumulation × "
            "GPUs sequences, without the memory of a larger micro-batch.",
        ),
        "docs/model.md",
        "Memory per GPU",
        ("training.micro_batch", "training.grad_accum"),
    ),
    Term(
        "methods",
        "Full fine-tuning, LoRA and QLoRA",
        (
            "Full fine-tuning trains every weight: with mixed-precision AdamW each parameter "
            "costs 16 bytes (bf16 weight and gradient, fp32 master copy, two fp32 moments); "
            "8-bit Adam 10, pure bf16 8. LoRA freezes the base model (2 bytes per parameter) and "
            "trains small rank-r adapters (16 bytes per adapter parameter); QLoRA also stores "
            "the frozen base in 4-bit NF4 (about 0.52 bytes per parameter) and dequantises it "
            "on the fly, which is slower.",
        ),
        "docs/model.md",
        "Memory per GPU",
        (
            "training.method",
            "training.lora_rank",
            "training.lora_targets",
            "efficiency.qlora_slowdown",
        ),
    ),
    Term(
        "held",
        "Compute GPU-hours and held GPU-hours",
        (
            "Compute GPU-hours: training FLOPs ÷ the achieved FLOP/s per GPU ÷ 3,600, times "
            "the GPUs. Held GPU-hours are what you pay for: every rented GPU for the whole "
            "wall-clock it is held — provisioning, weight download, warm-up, NCCL start-up, "
            "training, checkpoint writes, evaluation, RL rollouts and idle time (article 001, "
            "'Why the estimate came in low').",
        ),
        "docs/model.md",
        "Time and cost",
        (
            "overheads.provisioning_min",
            "overheads.weights_cached",
            "overheads.download_gb_per_s",
            "overheads.warmup_min",
            "overheads.nccl_init_min",
            "overheads.checkpoint_interval_min",
            "overheads.checkpoint_write_gb_per_s",
            "overheads.eval_passes_per_run",
            "overheads.idle_hours_per_run",
        ),
        ("wall",),
    ),
    Term(
        "spot_factor",
        "Spot factor F",
        (
            "Spot GPUs are cheaper but can be taken back. Each interruption loses, on average, "
            "half a checkpoint interval of work plus the restart time, so a spot run takes F = "
            "1 + λ × (T/2 + R) times as long, where λ is the interruption rate of the job's "
            "nodes, T the checkpoint interval and R the restart overhead (article 001).",
            "Spot is worth it when spot price ÷ on-demand price × F is below 1; the cost card "
            "says which to take.",
        ),
        "docs/model.md",
        "Time and cost",
        (
            "spot.interruptions_per_node_hour",
            "spot.restart_overhead_min",
            "overheads.checkpoint_interval_min",
        ),
        ("cost",),
    ),
    Term(
        "project",
        "Project total",
        (
            "What the fine-tune costs as a project, not one run: (planned + failed runs) × cost "
            "per run + checkpoint storage + (engineering + data-preparation hours) × the hourly "
            "rate (articles 000, 001, 004). People's time usually dominates a small run's "
            "project: the headline shows the split.",
        ),
        "docs/model.md",
        "Time and cost",
        (
            "project.planned_runs",
            "project.failed_runs",
            "project.billing",
            "project.checkpoints_retained",
            "project.storage_usd_per_gb_month",
            "project.storage_months",
            "project.engineering_hours",
            "project.data_prep_hours",
            "project.hourly_rate_usd",
        ),
        ("project",),
    ),
    Term(
        "objective",
        "DPO, GRPO and PPO",
        (
            "SFT trains on your data. DPO trains on chosen and rejected answer pairs against a "
            "frozen reference model (one more forward pass per token unless its log-probs are "
            "precomputed). GRPO and PPO generate completions (rollouts) and train on them: "
            "rollout time is set by memory bandwidth, not FLOPs, and PPO adds a value model.",
        ),
        "docs/model.md",
        "DPO, GRPO and PPO",
        (
            "objective.objective",
            "objective.dpo_reference",
            "objective.prompts_per_step",
            "objective.completions_per_prompt",
            "objective.kl_beta",
            "objective.reward_model",
            "objective.rollout_placement",
            "objective.rollout_gpus",
            "objective.decode_bandwidth_efficiency",
            "objective.generation_rate",
        ),
    ),
)

_BY_KEY = {t.key: t for t in GLOSSARY}


def term(key: str) -> Term:
    return _BY_KEY[key]


def terms_for_field(section: str, name: str) -> tuple[Term, ...]:
    """The terms whose answer a form row offers (most rows have none)."""
    path = f"{section}.{name}"
    return tuple(t for t in GLOSSARY if path in t.fields)


def terms_for_headline(key: str) -> tuple[Term, ...]:
    return tuple(t for t in GLOSSARY if key in t.headlines)


def term_html(t: Term, more_href: str = "") -> str:
    """One answer as rich text (a "What's this?" balloon); ``more_href`` links the guide."""
    body = "".join(f"<p>{escape(p, quote=False)}</p>" for p in t.answer)
    more = f'<p><a href="{escape(more_href)}">More in the user guide…</a></p>' if more_href else ""
    return f"<h4>{escape(t.title, quote=False)}</h4>{body}{more}"


def glossary_markdown(link: Callable[[str, str], str]) -> str:
    """The user guide's "What is …?" page; ``link(page, heading)`` makes each term's guide
    link (a relative href, or '' for none)."""
    out = ["# What is …?", "", "Short answers to the terms the forms and the results use.", ""]
    for t in GLOSSARY:
        out += [f"## {t.title}", ""]
        for p in t.answer:
            out += [p, ""]
        href = link(t.page, t.heading)
        if href:
            out += [f"More: [{t.heading}]({href})", ""]
    return "\n".join(out)
