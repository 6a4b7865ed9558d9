"""The record shapes of fine-tuning datasets, and the text a trainer makes of each.

One record is one training example (or one preference pair). The shapes, tried in this order:

- preference (DPO): ``chosen`` + ``rejected`` (+ ``prompt``), each text or a message list; two
  sequences are trained, prompt + chosen and prompt + rejected;
- chat: ``messages`` / ``conversations`` / ``conversation`` of ``{role, content}`` or ShareGPT's
  ``{from, value}``; one sequence, every message in the chat template;
- prompt–completion: ``prompt`` + ``completion`` / ``response``, ``question`` + ``answer``,
  ``query`` + ``response``, ``input`` + ``output``; one sequence, a user and an assistant message;
- instruction (Alpaca): ``instruction`` (+ ``input``) + ``output`` / ``response``; the same;
- text: ``text`` / ``content``; one sequence, no template;
- prompt only (RL): ``prompt``; the prompt (GRPO/PPO generate the rest).

A message's content may be a list of parts (``[{"type": "text", "text": …}]``): the text parts
count. Anything else is a malformed record, counted and reported with its reason.
"""

from __future__ import annotations

from typing import Any, NamedTuple

SHAPES = ("preference", "chat", "prompt_completion", "instruction", "text", "prompt")
SHAPE_LABELS = {
    "preference": "preference pairs (chosen / rejected)",
    "chat": "chat messages",
    "prompt_completion": "prompt–completion",
    "instruction": "instruction / input / output",
    "text": "plain text",
    "prompt": "prompts only",
}
_CHAT_KEYS = ("messages", "conversations", "conversation")
_PAIRS = (
    ("prompt", "completion"),
    ("prompt", "response"),
    ("question", "answer"),
    ("query", "response"),
    ("input", "output"),
)


class RecordError(ValueError):
    """Why a record is not one ftcost can count (one short line)."""


class Part(NamedTuple):
    """Some messages of a record: their texts and how many chat messages they are."""

    texts: tuple[str, ...]
    messages: int


class Record(NamedTuple):
    """One record as the trainer sees it: a prompt and an answer (two for a preference pair).

    Tuples: a dataset has millions of records, and a tuple is the cheapest object to make."""

    shape: str
    prompt: Part
    answer: Part
    rejected: Part | None = None  # preference pairs: the other answer


def _text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, list):  # content parts: [{"type": "text", "text": "..."}, ...]
        return "".join(
            p.get("text", "") if isinstance(p, dict) and isinstance(p.get("text"), str) else ""
            for p in value
        )
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise RecordError(f"{what} is not text")


def _messages(value: Any, what: str) -> list[tuple[str, str]]:
    """(role, content) of a message list ({role, content} or ShareGPT's {from, value})."""
    if not isinstance(value, list) or not value:
        raise RecordError(f"{what} is not a list of messages")
    out = []
    for i, m in enumerate(value):
        if not isinstance(m, dict):
            raise RecordError(f"{what}[{i}] is not a message")
        role = m.get("role", m.get("from"))
        if "content" in m:
            content = m["content"]
        elif "value" in m:
            content = m["value"]
        else:
            raise RecordError(f"{what}[{i}] has no content")
        out.append((str(role or ""), _text(content, f"{what}[{i}].content")))
    return out


def _part(value: Any, what: str, role: str) -> Part:
    """Text (one message of ``role``) or a message list."""
    if type(value) is str:  # the common case, first
        return Part((value,), 1 if role else 0)
    if (
        isinstance(value, list)
        and value
        and isinstance(value[0], dict)
        and ("role" in value[0] or "from" in value[0])
    ):
        msgs = _messages(value, what)
        return Part(tuple(c for _, c in msgs), len(msgs))
    return Part((_text(value, what),), 1 if role else 0)


def _chat(value: Any, what: str) -> Record:
    msgs = _messages(value, what)
    # The answer is the last assistant turn (what a completion-only loss trains); the rest is
    # its prompt. A chat without one is all prompt.
    last = max(
        (i for i, (r, _) in enumerate(msgs) if r in ("assistant", "gpt", "model", "bot")),
        default=len(msgs),
    )
    prompt = [c for _, c in msgs[:last]]
    answer = [c for _, c in msgs[last:]]
    return Record("chat", Part(tuple(prompt), len(prompt)), Part(tuple(answer), len(answer)))


def parse_record(obj: Any) -> Record:
    """The record's shape and texts (module table); RecordError says why not."""
    if not isinstance(obj, dict):
        raise RecordError(f"a record is an object, not {type(obj).__name__}")
    if "chosen" in obj and "rejected" in obj:
        prompt_value = next((obj[k] for k in ("prompt", "question", "instruction") if k in obj), "")
        prompt = _part(prompt_value, "prompt", "user") if prompt_value else Part((), 0)
        return Record(
            "preference",
            prompt,
            _part(obj["chosen"], "chosen", "assistant"),
            _part(obj["rejected"], "rejected", "assistant"),
        )
    for key in _CHAT_KEYS:
        if key in obj:
            return _chat(obj[key], key)
    for p, a in _PAIRS:
        if p in obj and a in obj and "instruction" not in obj:
            return Record(
                "prompt_completion", _part(obj[p], p, "user"), _part(obj[a], a, "assistant")
            )
    if "instruction" in obj:
        answer_key = next((k for k in ("output", "response", "answer") if k in obj), None)
        if answer_key is None:
            raise RecordError("an instruction without output")
        texts = [_text(obj["instruction"], "instruction")]
        if obj.get("input"):
            texts.append(_text(obj["input"], "input"))
        return Record(
            "instruction",
            Part(tuple(texts), 1),
            Part((_text(obj[answer_key], answer_key),), 1),
        )
    for key in ("text", "content"):
        if key in obj:
            return Record("text", Part((), 0), Part((_text(obj[key], key),), 0))
    if "prompt" in obj:
        return Record("prompt", _part(obj["prompt"], "prompt", "user"), Part((), 0))
    keys = ", ".join(sorted(str(k) for k in obj)[:6]) or "none"
    raise RecordError(f"no field ftcost knows (keys: {keys})")
