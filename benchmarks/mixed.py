"""The mixed workload of the two-engine arm: QA questions and translation asks, seeded.

Written in ShareGPT's JSON shape, which `vllm bench serve` reads without pandas (its
`custom` JSONL loader needs pandas); the gateway's `auto` router must send each prompt to the
right engine.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

QUESTIONS = (
    "What causes the seasons on Earth?", "How does a refrigerator keep food cold?",
    "Why is the sky blue during the day?", "What is the difference between a virus and "
    "a bacterium?", "How do vaccines train the immune system?", "Explain what inflation is.",
    "Why do we have leap years?", "How does a bicycle stay upright?",
    "What is photosynthesis?", "Give three tips for writing clear emails.",
    "How does compound interest work?", "What is a black hole?",
)  # fmt: skip
SENTENCES = (
    "The meeting has been moved to Thursday afternoon.", "Please close the window before "
    "you leave.", "Our train arrives at the station at nine.", "I would like a table for two, "
    "please.", "The museum is closed on Mondays.", "Thank you for your help yesterday.",
    "Where can I buy a ticket for the bus?", "The weather will be sunny tomorrow.",
)  # fmt: skip
LANGUAGES = ("French", "German", "Spanish", "Italian", "Portuguese", "Dutch")
ASKS = ("Translate into {lang}: {text}", "Please translate this into {lang}: {text}",
        "How do you say this in {lang}? {text}")


def mixed_prompts(count: int, seed: int, translation_share: float = 0.5) -> list[str]:
    rng = random.Random(seed)
    prompts = []
    for _ in range(count):
        if rng.random() < translation_share:
            ask = rng.choice(ASKS)
            prompts.append(ask.format(lang=rng.choice(LANGUAGES), text=rng.choice(SENTENCES)))
        else:
            prompts.append(rng.choice(QUESTIONS))
    return prompts


def write_dataset(path: Path, count: int, seed: int) -> Path:
    rows = [{"conversations": [{"from": "human", "value": p}, {"from": "gpt", "value": "-"}]}
            for p in mixed_prompts(count, seed)]
    path.write_text(json.dumps(rows))
    return path


def read_prompts(path: Path) -> list[str]:
    return [row["conversations"][0]["value"] for row in json.loads(path.read_text())]
