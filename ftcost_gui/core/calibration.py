"""Throughput ↔ MFU conversions and price per unit of work (articles 000 and 001)."""

from __future__ import annotations

from .units import SECONDS_PER_HOUR


def mfu_from_tokens_per_s(
    tokens_per_s: float, flops_per_token: float, peak_flops_per_s: float
) -> float:
    """Article 000 'From MFU to tokens per second': MFU = tokens/s × FLOPs/token ÷ peak."""
    return tokens_per_s * flops_per_token / peak_flops_per_s


def tokens_per_s_at_mfu(mfu: float, flops_per_token: float, peak_flops_per_s: float) -> float:
    """Article 000: expected tokens/s per GPU = MFU × peak ÷ FLOPs per token."""
    return mfu * peak_flops_per_s / flops_per_token


def usd_per_1e18_flops(usd_per_hour: float, achieved_flops_per_s: float) -> float:
    """Article 001 'Picking the SKU': price ÷ (achieved FLOP/s × 3600) per 1e18 FLOPs."""
    return usd_per_hour / (achieved_flops_per_s * SECONDS_PER_HOUR) * 1e18


def spot_overhead_factor(
    interruptions_per_hour: float, checkpoint_interval_h: float, restart_h: float
) -> float:
    """Article 001: F = 1 + λ(T/2 + R), λ the job's interruption rate."""
    return 1.0 + interruptions_per_hour * (checkpoint_interval_h / 2.0 + restart_h)


def held_gpu_hours(num_gpus: int, wall_clock_h: float) -> float:
    """Article 001: you are billed for GPUs held × wall clock, not for GPUs computing."""
    return num_gpus * wall_clock_h


def useful_token_fraction(mean_tokens: float, max_seq_len: int) -> float:
    """Article 001: padding each example to the bucket leaves mean ÷ max useful."""
    return min(mean_tokens, max_seq_len) / max_seq_len
