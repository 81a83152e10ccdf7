"""Planted-paraphrase benchmark of sentence-ending paraphrase mining (§3a) on livedoor news.

Run from the repo root: ``.venv/bin/python -m benchmarks.paraphrase.ending_paraphrases``. Writes
``benchmarks/results/ending_paraphrases.md``. Reads ../shared/data/livedoor-news-corpus/
ldcc-text.tar.gz in place with tarfile (nothing is extracted or stored).

Construction (seeded, deterministic): real sentences are cut after their last case particle
(が / を / で); the Web sentence continues with one known paraphrase of an action noun, the
mobile sentence ends in the noun itself (…を発表). Unrelated real sentence pairs are mixed in,
and a share of noisy pairs whose mobile side ends in the noun but whose Web side is unrelated.
"""

from __future__ import annotations

import platform
import random
import re
import tarfile
import time
from collections.abc import Sequence

from benchmarks.common import KIT, RESULTS, notes, publish
from services.paraphrase.endings import EndingCandidate, mine_endings

TARBALL = KIT / "livedoor-news-corpus" / "ldcc-text.tar.gz"
RESULT = RESULTS / "ending_paraphrases.md"
SEED = 20080101
CATEGORIES = ("topic-news", "sports-watch", "it-life-hack", "kaden-channel", "movie-enter")

# action noun -> (case particle before the ending, known paraphrases with relative frequency)
PLANTED: dict[str, tuple[str, tuple[tuple[str, int], ...]]] = {
    "判明": ("が", (("分かった", 5), ("明らかになった", 4), ("判明した", 3))),
    "発表": ("を", (("発表した", 6), ("明らかにした", 3), ("公表した", 3))),
    "決定": ("を", (("決めた", 5), ("決定した", 4))),
    "逮捕": ("を", (("逮捕した", 6), ("捕まえた", 2), ("身柄を拘束した", 2))),
    "開始": ("を", (("始めた", 4), ("開始した", 4), ("スタートさせた", 2))),
    "中止": ("を", (("取りやめた", 3), ("中止した", 5), ("見送った", 2))),
    "否定": ("を", (("否定した", 5), ("打ち消した", 2))),
    "公開": ("を", (("公開した", 5), ("披露した", 3), ("公にした", 1))),
    "合意": ("で", (("合意した", 5), ("一致した", 3))),
    "検討": ("を", (("検討している", 4), ("考えている", 3), ("検討中だ", 2))),
}
PARTICLES = set("がをでとにはも")
PAIRS_PER_NOUN = (40, 120)  # seeded count range per noun (paper: frequent nouns)
NOISE_SHARE = 0.15  # mobile ends in the noun, Web side is an unrelated sentence
UNRELATED_PAIRS = 1500


def read_sentences() -> list[str]:
    """Body sentences (split at 。) of the chosen categories, in archive order."""
    sentences = []
    with tarfile.open(TARBALL, "r:gz") as archive:
        for member in archive:
            parts = member.name.split("/")
            if len(parts) != 3 or parts[1] not in CATEGORIES or "LICENSE" in parts[2]:
                continue
            handle = archive.extractfile(member)
            if handle is None:
                continue
            lines = handle.read().decode("utf-8").splitlines()[3:]  # URL, date, title
            for line in lines:
                for sentence in re.split(r"(?<=。)", line.strip()):
                    if 15 <= len(sentence) <= 90 and sentence.endswith("。"):
                        sentences.append(sentence)
    return sentences


def prefix_before(sentence: str, particle: str) -> str | None:
    """The sentence up to (excluding) its last ``particle`` when 8-60 characters long."""
    position = sentence.rfind(particle, 0, len(sentence) - 1)
    if 8 <= position <= 60 and "「" not in sentence[:position].rsplit("」", 1)[-1]:
        return sentence[:position]
    return None


def build_pairs(sentences: Sequence[str], rng: random.Random) -> list[tuple[str, str]]:
    pool = list(sentences)
    rng.shuffle(pool)
    pairs: list[tuple[str, str]] = []
    cursor = 0
    for noun, (particle, paraphrases) in PLANTED.items():
        wanted = rng.randint(*PAIRS_PER_NOUN)
        endings = [p for p, _ in paraphrases]
        weights = [w for _, w in paraphrases]
        made = 0
        while made < wanted:
            sentence = pool[cursor % len(pool)]
            cursor += 1
            prefix = prefix_before(sentence, particle)
            if prefix is None:
                continue
            if rng.random() < NOISE_SHARE:
                web = pool[(cursor * 7919) % len(pool)]  # an unrelated real sentence
            else:
                web = prefix + particle + rng.choices(endings, weights)[0] + "。"
            pairs.append((web, prefix + particle + noun))
            made += 1
    for _ in range(UNRELATED_PAIRS):
        web = pool[rng.randrange(len(pool))]
        mobile = pool[rng.randrange(len(pool))]
        pairs.append((web, mobile.rstrip("。")))
    rng.shuffle(pairs)
    return pairs


def is_correct(candidate: str, noun: str) -> bool:
    """A planted paraphrase, alone or after one case particle (が明らかになった)."""
    for paraphrase, _ in PLANTED[noun][1]:
        if candidate == paraphrase:
            return True
        if candidate.endswith(paraphrase) and len(candidate) == len(paraphrase) + 1:
            return candidate[0] in PARTICLES
    return False


def precision_at(ranked: Sequence[EndingCandidate], noun: str, n: int) -> tuple[float, float]:
    """(seed's averaged (1/N) sum_i C(i)/i, plain C(N)/N); missing ranks count as wrong."""
    hits = [is_correct(c.suffix, noun) for c in ranked[:n]] + [False] * (n - len(ranked[:n]))
    correct_so_far = 0
    averaged = 0.0
    for i, hit in enumerate(hits, start=1):
        correct_so_far += hit
        averaged += correct_so_far / i
    return averaged / n, correct_so_far / n


def main() -> None:
    rng = random.Random(SEED)
    sentences = read_sentences()
    pairs = build_pairs(sentences, rng)
    lines = [
        "# Ending paraphrases by branching factor: planted-paraphrase benchmark",
        "",
        "Command: `.venv/bin/python -m benchmarks.paraphrase.ending_paraphrases`.",
        "",
        "## Data and construction",
        f"- livedoor news corpus (`ldcc-text.tar.gz`, read in place), categories "
        f"{', '.join(CATEGORIES)}: {len(sentences)} body sentences of 15-90 characters.",
        f"- Seed {SEED}. For each of {len(PLANTED)} action nouns, {PAIRS_PER_NOUN[0]}-"
        f"{PAIRS_PER_NOUN[1]} real sentences are cut after their last case particle; the Web "
        "sentence continues with a known paraphrase (weighted choice), the mobile sentence ends "
        f"in the noun. {NOISE_SHARE:.0%} of those pairs are noise (the Web side is an unrelated "
        f"sentence). {UNRELATED_PAIRS} unrelated real sentence pairs are mixed in. "
        f"Total {len(pairs)} pairs.",
        notes("correct-a-planted"),
        "",
        "| noun | planted paraphrases |",
        "|---|---|",
    ]
    for noun, (particle, paraphrases) in PLANTED.items():
        lines.append(f"| {noun} | {particle}: {' / '.join(p for p, _ in paraphrases)} |")
    lines += [
        "",
        "## Results",
        "",
        "| ranking | P(1) avg | P(3) avg | P(10) avg | P(1) plain | P(3) plain | P(10) plain "
        "| nouns found | time |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    examples = []
    for unit in ("char", "word"):
        start = time.perf_counter()
        table = mine_endings(pairs, unit=unit, top=10)
        seconds = time.perf_counter() - start
        found = [noun for noun in PLANTED if noun in table]
        cells_avg, cells_plain = [], []
        for n in (1, 3, 10):
            scores = [precision_at(table.get(noun, []), noun, n) for noun in PLANTED]
            cells_avg.append(sum(s[0] for s in scores) / len(scores))
            cells_plain.append(sum(s[1] for s in scores) / len(scores))
        lines.append(
            f"| {unit} | "
            + " | ".join(f"{v:.3f}" for v in cells_avg + cells_plain)
            + f" | {len(found)}/{len(PLANTED)} | {seconds:.2f} s |"
        )
        for noun in ("発表", "判明"):
            ranked = table.get(noun, [])[:5]
            shown = ", ".join(
                f"{c.suffix}{'' if is_correct(c.suffix, noun) else ' (x)'}" for c in ranked
            )
            examples.append(f"- {unit}, {noun}: {shown}")
    lines += [
        "",
        notes("paper-web-vs"),
        "",
        *examples,
        "",
        "## Machine",
        f"{platform.platform()}, Python {platform.python_version()}; 2 shared cores, timings "
        "noisy (word-based time is dominated by fugashi).",
        "",
    ]
    publish(RESULT, lines)


if __name__ == "__main__":
    main()
