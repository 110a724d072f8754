"""Full-size SYNTHETIC files in each dataset's original format, for measuring performance.

The official Wizard of Wikipedia, FaithDial and WISE files are large (WoW's ``train.json`` is about
1 GB) and not always at hand. This module writes stand-ins from a seed, with the published counts and
the real shapes, so that loading, caching, statistics and baselines can be timed without the data.
The text is random pseudo-words: nothing here is the dataset, and no number computed from these
files means anything about the datasets. Files are written in the layout of the data directory
(``wow/raw/train.json``, ``faithdial/train.json``, ``wise/conversation_train_line.json``, ...), so
``ATLAS_DATA_DIR`` can point at the output directory (the loader then reports them as a user copy).

Shapes follow the published WoW train sample (``wow/raw/train_sample.json`` in the data directory)
and the dataset cards:

* WoW raw: a JSON list of dialogues (``chosen_topic``, ``persona``, ``wizard_eval``, ``dialog``,
  ``chosen_topic_passage``); every utterance has seven ``retrieved_passages`` (first paragraph of an
  article, about five sentences) and their ``retrieved_topics``; wizard utterances have
  ``checked_sentence`` keyed ``chosen_<Title>_<i>`` / ``self_<Title>_<i>`` / ``partner_<Title>_<i>``
  / ``no_passages_used`` and ``checked_passage`` keyed ``chosen_topic_0_<Title>`` / ``self_<k>_<Title>``
  / ``partner_<k>_<Title>`` / ``none`` / ``no_passages_used``, where ``k`` indexes the passages
  retrieved at the speaker's own or the partner's previous utterance, as in the real file. The
  held-out files (``valid_random_split.json`` ... ``test_topic_split.json``) add 100
  ``candidate_responses`` to every wizard turn, the gold response at a random position; the "seen"
  files reuse train's topics, the "unseen" ones have topics of their own.
* FaithDial: a JSON list of ``{"utterances": [...]}``, one entry per wizard response with its
  ``history``, ``speaker``, ``knowledge``, ``original_response`` (often empty), ``response``,
  ``BEGIN`` and ``VRM``.
* WISE: JSON Lines conversations (user and system messages with intents, states, actions, query,
  document and passage candidates and selections) and a JSON Lines document collection whose
  passage ids (``"3251-8"``) the conversations refer to.

Split sizes not published (WISE's split of its 1.9K conversations, the number of its documents, the
FaithDial dialogues per split) are assumptions, stated in the constants below.

Run ``python -m benchmarks.synthetic --out /tmp/atlas-synth`` (add ``--scale 0.01`` for small files).
"""

from __future__ import annotations

import argparse
import importlib
import json
import random
import re
import string
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from utils.config import SYNTHETIC_MARKER

#: WoW train as published (GEM data card): 18,430 dialogues, 166,787 utterances, 1,247 topics.
WOW_SPLITS = {
    "train.json": (18_430, 166_787, 1_247),
    # Held-out files (ParlAI counts for the seen splits; the unseen ones take the rest of the paper's
    # 22,311 dialogues, 17,715 valid and 17,497 test utterances, 967 and 968 dialogues as in the
    # paper's table). Seen splits reuse train's topics (533 of them), unseen splits have 58 topics of
    # their own, as published.
    "valid_random_split.json": (981, 8_909, 533),
    "valid_topic_split.json": (967, 8_806, 58),
    "test_random_split.json": (965, 8_715, 533),
    "test_topic_split.json": (968, 8_782, 58),
}
#: ParlAI's recorded example counts (its test fixtures), teacher by teacher. A dialogue of ``n``
#: utterances gives ``basicdialog`` ``n // 2`` turn pairs, so the number of odd-length dialogues is
#: fixed: utterances - 2 * pairs. The wizard's teachers (``generator``, ``wizard_dialog_knowledge``,
#: ``basic_wizard_dialog``) take ``n // 2`` examples, one fewer when the wizard opens an even-length
#: dialogue, so the number of such dialogues is fixed too: pairs - wizard examples. The apprentice's
#: (``basic_apprentice_dialog``) then follow, since wizard + apprentice examples = utterances - dialogues.
#: The generator draws the lengths and the openers so that all of them come out exactly.
WOW_PARLAI_EXAMPLES = {"train.json": 74_092, "valid_random_split.json": 3_939, "test_random_split.json": 3_865}
WOW_PARLAI_BASICDIALOG_EXAMPLES = {
    "train.json": 82_965,
    "valid_random_split.json": 4_434,
    "test_random_split.json": 4_336,
}
WOW_PARLAI_APPRENTICE_EXAMPLES = {
    "train.json": 74_265,
    "valid_random_split.json": 3_989,
    "test_random_split.json": 3_885,
}
#: Wizard turns of the held-out files carry this many ``candidate_responses``, the gold one among them.
WOW_CANDIDATES = 100
#: FaithDial turns per split (dataset card: seeker and wizard turns, about nine a conversation, so
#: about half are records of wizard responses); dialogues split 5,649 in proportion (an assumption).
FAITHDIAL_SPLITS = {"train": (4_096, 36_809), "valid": (762, 6_851), "test": (791, 7_101)}
#: WISE: about 1.9K conversations and 37K utterances (data description); the split is an assumption.
WISE_SPLITS = {"train": (1_400, 27_300), "valid": (200, 3_900), "testseen": (150, 2_900), "testunseen": (150, 2_900)}
#: Documents in the synthetic WISE collection (not published; an assumption).
WISE_DOCUMENTS = 20_000

_WIKI_PAGES = 40_000  # distinct article titles the WoW and FaithDial knowledge is drawn from
_RETRIEVED = 7  # passages retrieved per utterance in WoW
_BEGIN = ("Hallucination", "Entailment", "Partial Hallucination", "Generic", "Uncooperative")
_VRM = ("Disclosure", "Question", "Edification", "Acknowledgment", "Advisement", "Confirmation")
_WISE_INTENTS = ("Reveal", "Revise", "Interpret", "Request-rephrase", "Chitchat", "Confirm")
_WISE_ACTIONS = ("Clarify", "Answer", "Choice", "open-text", "Recommend", "No-answer", "opinion")
# Common Chinese characters and punctuation for WISE text.
_HANZI = (
    "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动同工也能下过子说产"
    "种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两体制机当使点从业"
    "本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反你明看原又么利"
    "比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象员革位入常文"
    "总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强放决西被干"
    "做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联什认六共"
    "权收证改清美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确才科张信"
    "舞蹈现代音乐电影历史旅游城市学校医院健康饮食运动手机网络游戏"
)
_CJK_PUNCT = "，。？！、"


def _syllables(rng: random.Random) -> list[str]:
    consonants = "bcdfghjklmnprstvwz"
    vowels = "aeiouy"
    return [c + v for c in consonants for v in vowels] + [v + c for v in vowels for c in "lnrst"]


@dataclass
class _Vocabulary:
    words: list[str]
    rng: random.Random

    def sentence(self, low: int, high: int) -> str:
        words = self.rng.choices(self.words, k=self.rng.randint(low, high))
        text = " ".join(words)
        roll = self.rng.random()
        if roll < 0.06:  # quotes, a dash and non-ASCII letters appear in the real text
            text = f'{text[: len(text) // 2]} "{words[-1]}" {text[len(text) // 2 :]}'
        elif roll < 0.09:
            text = f"{text} \u2013 caf\u00e9 Z\u00fcrich"
        return text[0].upper() + text[1:] + "."

    def title(self) -> str:
        words = [w.capitalize() for w in self.rng.choices(self.words, k=self.rng.choice((1, 2, 2, 3, 3, 4)))]
        roll = self.rng.random()
        if roll < 0.10:
            return f"{' '.join(words)} ({self.rng.choice(self.words)})"
        if roll < 0.14:
            return "-".join(words[:2]) + (" " + " ".join(words[2:]) if words[2:] else "")
        if roll < 0.17:
            return f"{words[0]}'s {' '.join(words[1:]) or 'law'}"
        if roll < 0.19:
            return f"{' '.join(words)}, {self.rng.randint(1900, 2018)}"
        return " ".join(words)


def _vocabulary(rng: random.Random, size: int = 30_000) -> _Vocabulary:
    syllables = _syllables(rng)
    words = {"".join(rng.choices(syllables, k=rng.choice((1, 2, 2, 3, 3, 4)))) for _ in range(size)}
    common = ["the", "of", "and", "in", "is", "a", "to", "was", "for", "as", "by", "with", "on", "it", "that"]
    return _Vocabulary(sorted(words) + common * 400, rng)


def _counts(rng: random.Random, items: int, total: int, low: int, high: int) -> list[int]:
    """``items`` integers in ``[low, high]`` summing exactly to ``total``."""
    if not low * items <= total <= high * items:
        raise ValueError(f"cannot split {total} into {items} parts of {low}..{high}")
    mean = total / items
    counts = [min(high, max(low, round(rng.gauss(mean, 1.6)))) for _ in range(items)]
    difference = total - sum(counts)
    while difference:
        index = rng.randrange(items)
        step = 1 if difference > 0 else -1
        if low <= counts[index] + step <= high:
            counts[index] += step
            difference -= step
    return counts


def _scaled(value: int, scale: float, minimum: int = 1) -> int:
    return max(minimum, round(value * scale))


# -- Wizard of Wikipedia ---------------------------------------------------------------------------


class _Wiki:
    """Article titles with their first paragraph: the knowledge WoW retrieves from."""

    def __init__(self, vocab: _Vocabulary, pages: int) -> None:
        rng = vocab.rng
        titles: dict[str, None] = {}
        while len(titles) < pages:
            titles[vocab.title()] = None
        self.titles = list(titles)
        # About five sentences of about 150 characters each, as in the real file.
        self.passages = [
            [vocab.sentence(14, 34) for _ in range(min(12, max(1, round(rng.gauss(5.4, 2.0)))))] for _ in self.titles
        ]

    def neighbourhood(self, rng: random.Random, size: int) -> list[int]:
        """Pages about one topic: a contiguous run, so that topics share passages like the real file."""
        start = rng.randrange(len(self.titles) - size)
        return list(range(start, start + size))


def _sentence_key(title: str) -> str:
    return title.replace(" ", "_")


def _passage_key(title: str) -> str:
    # The real file drops punctuation here: "Face-to-face interaction" -> "Facetoface_interaction".
    return re.sub(r"[^\w ]", "", title).replace(" ", "_")


def _wow_dialogue(
    rng: random.Random, vocab: _Vocabulary, wiki: _Wiki, topic: int, utterances: int, wizard_first: bool
) -> dict:
    near = [*wiki.neighbourhood(rng, 40), topic]
    roles = ("Wizard", "Apprentice") if wizard_first else ("Apprentice", "Wizard")
    topic_title = wiki.titles[topic]
    topic_passage = wiki.passages[topic][:10]
    dialog: list[dict] = []
    retrieved_history: list[list[int]] = []
    for position in range(utterances):
        role = roles[position % 2]
        speaker = f"{position % 2}_{role}"
        pages = rng.sample(near, 5) + rng.sample(range(len(wiki.titles)), 2)
        rng.shuffle(pages)
        turn: dict = {"speaker": speaker}
        text = vocab.sentence(6, 22)
        if role == "Wizard":
            sentence_key, sentence, passage_key, passage_title = _wow_choice(
                rng, wiki, topic, topic_passage, retrieved_history, position
            )
            if sentence:  # wizards paraphrase the sentence they checked
                words = sentence.rstrip(".").split()
                start = rng.randrange(max(1, len(words) - 8))
                text = " ".join(words[start : start + rng.randint(5, 12)]) + ", " + vocab.sentence(3, 9).lower()
            turn["text"] = text
            turn["checked_sentence"] = {sentence_key: sentence or "no_passages_used"}
            turn["checked_passage"] = {passage_key: passage_title}
        else:
            turn["text"] = text
        turn["retrieved_passages"] = [{wiki.titles[page]: wiki.passages[page]} for page in pages]
        turn["retrieved_topics"] = [wiki.titles[page] for page in pages]
        retrieved_history.append(pages)
        dialog.append(turn)
    return {
        "chosen_topic": topic_title,
        "persona": "i " + vocab.sentence(4, 9).lower(),
        "wizard_eval": rng.randint(1, 5),
        "dialog": dialog,
        "chosen_topic_passage": topic_passage,
    }


def _wow_choice(
    rng: random.Random,
    wiki: _Wiki,
    topic: int,
    topic_passage: list[str],
    history: list[list[int]],
    position: int,
) -> tuple[str, str, str, str]:
    """``(sentence key, sentence, passage key, passage title)`` of one wizard turn's selection."""
    roll = rng.random()
    sources = []
    if position >= 1:
        sources.append(("partner", history[position - 1]))
    if position >= 2:
        sources.append(("self", history[position - 2]))
    if roll < 0.07:
        return "no_passages_used", "", "no_passages_used", "no_passages_used"
    if roll < 0.45 or not sources:
        index = rng.randrange(len(topic_passage))
        title = wiki.titles[topic]
        passage_key = "none" if roll < 0.12 else f"chosen_topic_0_{_passage_key(title)}"
        return f"chosen_{_sentence_key(title)}_{index}", topic_passage[index], passage_key, title
    origin, pages = sources[0] if roll < 0.75 or len(sources) == 1 else sources[1]
    slot = rng.randrange(len(pages))
    page = pages[slot]
    title = wiki.titles[page]
    index = rng.randrange(len(wiki.passages[page]))
    return (
        f"{origin}_{_sentence_key(title)}_{index}",
        wiki.passages[page][index],
        f"{origin}_{slot}_{_passage_key(title)}",
        title,
    )


def iter_wow(
    dialogues: int,
    utterances: int,
    topics: Sequence[int],
    *,
    wiki: _Wiki,
    vocab: _Vocabulary,
    seed: int = 0,
    candidates: bool = False,
    parlai_examples: int | None = None,
    basicdialog_examples: int | None = None,
) -> Iterator[dict]:
    """Yield synthetic WoW raw dialogues (dicts in the ParlAI layout) about the wiki pages ``topics``.

    Every topic is used (when there are enough dialogues). With ``candidates``, wizard turns get
    ``candidate_responses`` as in the valid and test files. With ``basicdialog_examples``, just
    enough dialogues have an odd number of utterances for ParlAI's ``basicdialog`` count (``n // 2``
    per dialogue) to come out at that number; with ``parlai_examples``, the wizard opens just the
    dialogues that make ParlAI's count of wizard examples come out at that number.
    """
    rng = random.Random(seed)
    vocab.rng = rng
    low = 4 if utterances >= 4 * dialogues else 1
    pool = [vocab.sentence(6, 22) for _ in range(2 * WOW_CANDIDATES)] if candidates else []
    counts = _counts(rng, dialogues, utterances, low, 23)
    if basicdialog_examples is not None:
        counts = _with_odd_counts(rng, counts, utterances - 2 * basicdialog_examples, low, 23)
    plan = zip(counts, _wizard_openers(rng, counts, parlai_examples), _covering(rng, topics, dialogues), strict=True)
    for count, wizard_first, topic in plan:
        dialogue = _wow_dialogue(rng, vocab, wiki, topic, count, wizard_first)
        if candidates:
            for turn in dialogue["dialog"]:
                if "checked_sentence" not in turn:
                    continue
                options = rng.sample(pool, WOW_CANDIDATES - 1)
                options.insert(rng.randrange(WOW_CANDIDATES), turn["text"])
                turn["candidate_responses"] = options
                pool[rng.randrange(len(pool))] = turn["text"]  # later turns see earlier responses
        yield dialogue


def _with_odd_counts(rng: random.Random, counts: Sequence[int], odd: int, low: int, high: int) -> list[int]:
    """``counts`` with one utterance moved at a time between two dialogues (the total unchanged, both
    parities flipped) until exactly ``odd`` of them are odd, every count kept in ``[low, high]``."""
    counts = list(counts)
    pools = {parity: [i for i, count in enumerate(counts) if count % 2 == parity] for parity in (0, 1)}
    if not 0 <= odd <= len(counts) or (odd - len(pools[1])) % 2:
        raise ValueError(f"cannot make {odd} of {len(counts)} dialogues odd with {sum(counts)} utterances")
    tries = 0
    while len(pools[1]) != odd:
        source = pools[1] if len(pools[1]) > odd else pools[0]  # flip two odd ones, or two even ones
        if len(source) < 2 or tries > 100 * len(counts):
            raise ValueError(f"cannot make {odd} of {len(counts)} dialogues odd within {low}..{high} utterances")
        tries += 1
        a, b = rng.sample(range(len(source)), 2)
        i, j = source[a], source[b]
        if counts[i] < high and counts[j] > low:
            counts[i], counts[j] = counts[i] + 1, counts[j] - 1
        elif counts[i] > low and counts[j] < high:
            counts[i], counts[j] = counts[i] - 1, counts[j] + 1
        else:
            continue
        for position in sorted((a, b), reverse=True):  # swap-remove, then file both under their new parity
            source[position] = source[-1]
            source.pop()
        pools[counts[i] % 2] += [i, j]
    return counts


def _wizard_openers(rng: random.Random, counts: Sequence[int], parlai_examples: int | None) -> list[bool]:
    """Who opens each dialogue. ParlAI uses every wizard turn but the last of a wizard-first dialogue,
    so a dialogue of ``c`` utterances gives ``c // 2`` examples, one fewer when ``c`` is even and the
    wizard opens: that many even dialogues are given to the wizard (as near as the counts allow)."""
    openers = [rng.random() < 0.5 for _ in counts]
    if parlai_examples is None:
        return openers
    even = [index for index, count in enumerate(counts) if count % 2 == 0]
    wizard_even = min(len(even), max(0, sum(count // 2 for count in counts) - parlai_examples))
    chosen = set(rng.sample(even, wizard_even))
    for index in even:
        openers[index] = index in chosen
    return openers


def _covering(rng: random.Random, topics: Sequence[int], dialogues: int) -> list[int]:
    """A topic per dialogue, every topic at least once when there are enough dialogues."""
    order = list(topics)[:dialogues] + [rng.choice(topics) for _ in range(dialogues - len(topics))]
    rng.shuffle(order)
    return order


def write_json_list(path: Path, records: Iterator[object], *, ensure_ascii: bool = True) -> Path:
    """Write ``records`` as one JSON list on one line (the layout of the ParlAI and FaithDial files)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w", encoding="utf-8") as handle:
        handle.write("[")
        for position, record in enumerate(records):
            if position:
                handle.write(", ")
            handle.write(json.dumps(record, ensure_ascii=ensure_ascii))
        handle.write("]")
    partial.replace(path)
    return path


def write_json_lines(path: Path, records: Iterator[object]) -> Path:
    """Write ``records`` one JSON object per line, UTF-8 as in WISE's files."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with open(partial, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False))
            handle.write("\n")
    partial.replace(path)
    return path


def write_wow(out: Path, *, scale: float = 1.0, seed: int = 0, files: Sequence[str] = tuple(WOW_SPLITS)) -> list[Path]:
    """Write ``wow/raw/<file>`` for each of ``files`` (``train.json`` is about 1 GB at scale 1)."""
    rng = random.Random(seed)
    vocab = _vocabulary(rng)
    train_dialogues = _scaled(WOW_SPLITS["train.json"][0], scale)
    wiki = _Wiki(vocab, min(_WIKI_PAGES, max(200, 8 * train_dialogues)))
    train_topics = _scaled(WOW_SPLITS["train.json"][2], scale)
    topic_pages = rng.sample(range(len(wiki.titles)), min(len(wiki.titles), train_topics + 2 * 58))
    seen, unseen = topic_pages[:train_topics], topic_pages[train_topics:]
    written = []
    for offset, name in enumerate(files):
        dialogues, utterances, topics = WOW_SPLITS[name]
        n_dialogues = _scaled(dialogues, scale)
        n_utterances = max(n_dialogues * 4, _scaled(utterances, scale))
        if name == "train.json":
            pages = seen
        elif "random" in name:
            pages = seen[: _scaled(topics, scale)]
        else:
            start = 0 if name.startswith("valid") else len(unseen) // 2
            pages = unseen[start : start + max(1, min(len(unseen) // 2, _scaled(topics, scale)))]
        records = iter_wow(
            n_dialogues,
            n_utterances,
            pages,
            wiki=wiki,
            vocab=vocab,
            seed=seed + 1 + offset,
            candidates=name != "train.json",
            parlai_examples=_scaled(WOW_PARLAI_EXAMPLES[name], scale) if name in WOW_PARLAI_EXAMPLES else None,
            basicdialog_examples=_basicdialog_target(name, scale, n_dialogues, n_utterances),
        )
        written.append(write_json_list(out / "wow" / "raw" / name, records))
    return written


def _basicdialog_target(name: str, scale: float, dialogues: int, utterances: int) -> int | None:
    """ParlAI's ``basicdialog`` count for ``name`` at ``scale``, moved (at small scales only) to the
    nearest count that ``dialogues`` and ``utterances`` allow."""
    if name not in WOW_PARLAI_BASICDIALOG_EXAMPLES:
        return None
    target = _scaled(WOW_PARLAI_BASICDIALOG_EXAMPLES[name], scale)
    # 0 <= utterances - 2 * target <= dialogues: the number of odd-length dialogues
    return min(utterances // 2, max(target, (utterances - dialogues + 1) // 2))


# -- FaithDial -------------------------------------------------------------------------------------


def iter_faithdial(dialogues: int, turns: int, *, seed: int = 0) -> Iterator[dict]:
    """Yield synthetic FaithDial dialogues: ``{"utterances": [...]}`` with one entry per wizard turn.

    ``turns`` counts both roles, as the dataset card does: a conversation of ``t`` turns is opened
    by the seeker and holds ``t / 2`` wizard responses when ``t`` is even, and is opened by the
    wizard with ``(t + 1) / 2`` responses when it is odd.
    """
    rng = random.Random(seed)
    vocab = _vocabulary(rng, 20_000)
    wiki = _Wiki(vocab, min(8_000, max(100, 2 * dialogues)))
    for conversation_turns in _counts(rng, dialogues, turns, 2, 40):
        seeker_opens = conversation_turns % 2 == 0
        history = [vocab.sentence(5, 18)] if seeker_opens else []
        utterances = []
        for _ in range((conversation_turns + 1) // 2):
            page = rng.randrange(len(wiki.titles))
            knowledge = rng.choice(wiki.passages[page])
            words = knowledge.rstrip(".").split()
            response = " ".join(words[: rng.randint(5, 14)]) + ". " + vocab.sentence(3, 10)
            edited = rng.random() < 0.45
            begin = rng.sample(_BEGIN, rng.choice((1, 1, 1, 2)))
            utterances.append(
                {
                    "history": list(history),
                    "speaker": "Wizard",
                    "knowledge": knowledge,
                    "original_response": vocab.sentence(6, 20) if edited else "",
                    "response": response,
                    "BEGIN": begin,
                    "VRM": rng.sample(_VRM, rng.choice((1, 1, 2, 2, 3))),
                }
            )
            history.append(response)
            history.append(vocab.sentence(5, 18))
        yield {"utterances": utterances}


def write_faithdial(out: Path, *, scale: float = 1.0, seed: int = 0) -> list[Path]:
    """Write ``faithdial/{train,valid,test}.json`` with the published numbers of turns."""
    written = []
    for offset, (split, (dialogues, turns)) in enumerate(FAITHDIAL_SPLITS.items()):
        n_dialogues = _scaled(dialogues, scale)
        records = iter_faithdial(n_dialogues, max(2 * n_dialogues, _scaled(turns, scale)), seed=seed + 100 + offset)
        written.append(write_json_list(out / "faithdial" / f"{split}.json", records))
    return written


# -- WISE ------------------------------------------------------------------------------------------


def _hanzi(rng: random.Random, low: int, high: int, end: str = "。") -> str:
    text = "".join(rng.choices(_HANZI, k=rng.randint(low, high)))
    if len(text) > 12 and rng.random() < 0.5:
        cut = rng.randrange(4, len(text) - 4)
        text = text[:cut] + rng.choice(_CJK_PUNCT[:1]) + text[cut:]
    return text + end


def iter_wise_documents(documents: int, *, seed: int = 0) -> Iterator[dict]:
    """Yield synthetic WISE documents: passages of sentences, with integer ids from 1."""
    rng = random.Random(seed)
    for doc_id in range(1, documents + 1):
        passages = [
            {
                "id": pid,
                "sentences": [{"id": sid, "text": _hanzi(rng, 12, 60)} for sid in range(1, rng.randint(1, 4) + 1)],
            }
            for pid in range(1, _wise_passage_count(doc_id) + 1)
        ]
        yield {
            "id": doc_id,
            "origin_link": f"http://www.baidu.com/link?url={''.join(rng.choices(string.ascii_letters, k=60))}",
            "title": _hanzi(rng, 6, 20, end=""),
            "abstract": _hanzi(rng, 40, 90, end="..."),
            "final_link": f"http://www.example.{rng.choice(('com', 'cn', 'org'))}/{doc_id}.shtml",
            "passages": passages,
        }


def _wise_passage_count(doc_id: int) -> int:
    # Derived from the id so that conversations can cite passages without holding the collection.
    return 3 + (doc_id * 7919) % 18


def iter_wise(
    conversations: int, utterances: int, documents: int, *, seed: int = 0, first_id: int = 1
) -> Iterator[dict]:
    """Yield synthetic WISE conversations that cite documents ``1..documents`` of the collection."""
    rng = random.Random(seed)
    msg_id = first_id * 100
    for offset, count in enumerate(_counts(rng, conversations, utterances, 2, 40)):
        pool = rng.sample(range(1, documents + 1), min(documents, 40))
        messages = []
        for position in range(count):
            msg_id += rng.randint(1, 60)
            turn_id = position // 2 + 1
            if position % 2 == 0:
                messages.append(
                    {
                        "msg_id": msg_id,
                        "turn_id": turn_id,
                        "role": "user",
                        "intent": rng.sample(_WISE_INTENTS, rng.choice((1, 1, 1, 2))),
                        "response": _hanzi(rng, 4, 24, end=rng.choice(("", "？", "。"))),
                    }
                )
                continue
            candidates = sorted(rng.sample(pool, rng.randint(0, 18)))
            passages = [f"{doc}-{pid}" for doc in candidates for pid in range(1, _wise_passage_count(doc) + 1)]
            answered = bool(candidates) and rng.random() < 0.6
            picked = min(len(candidates), rng.choice((1, 1, 2)))
            chosen_docs = sorted(rng.sample(candidates, picked)) if answered else []
            chosen = [p for p in passages if int(p.split("-")[0]) in chosen_docs]
            queries = [_hanzi(rng, 3, 10, end="") for _ in range(rng.randint(0, 8))]
            messages.append(
                {
                    "msg_id": msg_id,
                    "turn_id": turn_id,
                    "role": "system",
                    "state": [_hanzi(rng, 2, 6, end="") for _ in range(rng.randint(0, 3))],
                    "query_candidate": queries,
                    "action": rng.sample(_WISE_ACTIONS, rng.choice((1, 2))),
                    "selected_query": rng.sample(queries, min(len(queries), rng.choice((0, 1, 2)))),
                    "response": _hanzi(rng, 10, 70),
                    "document_candidate": candidates,
                    "selected_document": chosen_docs,
                    "passage_candidate": passages,
                    "selected_passage": sorted(rng.sample(chosen, min(len(chosen), rng.randint(1, 3))))
                    if chosen
                    else [],
                }
            )
        yield {
            "conversation_id": first_id + offset,
            "conversations": messages,
            "intent": f"intent:{_hanzi(rng, 6, 16, end='')} description:{_hanzi(rng, 30, 80)}",
        }


def write_wise(out: Path, *, scale: float = 1.0, seed: int = 0) -> list[Path]:
    """Write the WISE conversation files (train, valid, test, testseen, testunseen) and documents."""
    documents = _scaled(WISE_DOCUMENTS, scale, minimum=50)
    folder = out / "wise"
    written = [write_json_lines(folder / "document_line.json", iter_wise_documents(documents, seed=seed))]
    first_id = 1
    for offset, (split, (conversations, utterances)) in enumerate(WISE_SPLITS.items()):
        n = _scaled(conversations, scale)
        records = list(
            iter_wise(n, max(2 * n, _scaled(utterances, scale)), documents, seed=seed + 200 + offset, first_id=first_id)
        )
        first_id += n
        written.append(write_json_lines(folder / f"conversation_{split}_line.json", iter(records)))
    # The published test file is the union of its seen and unseen parts.
    test = folder / "conversation_test_line.json"
    with open(test.with_name(test.name + ".partial"), "wb") as handle:
        for part in ("testseen", "testunseen"):
            handle.write((folder / f"conversation_{part}_line.json").read_bytes())
    test.with_name(test.name + ".partial").replace(test)
    written.append(test)
    return written


# -- all -------------------------------------------------------------------------------------------

def writers() -> dict[str, Callable[..., list[Path]]]:
    """Dataset name -> its writer, as its source entry declares it (:attr:`utils.sources.DatasetSource.synthetic`)."""
    from utils.sources import registry

    found = {}
    for name, source in registry().items():
        if source.synthetic:
            module, function = source.synthetic.split(":")
            found[name] = getattr(importlib.import_module(module), function)
    return found


def write_all(
    out: Path, *, scale: float = 1.0, seed: int = 0, datasets: Sequence[str] | None = None
) -> list[Path]:
    """Write the synthetic files of ``datasets`` (every dataset with a writer by default) under
    ``out`` (the data-directory layout)."""
    known = writers()
    written: list[Path] = []
    for name in known if datasets is None else datasets:
        written.extend(known[name](Path(out), scale=scale, seed=seed))
    # At the top for people, and beside every file for the loader, which then labels them synthetic.
    for folder in {Path(out), *(path.parent for path in written)}:
        (folder / SYNTHETIC_MARKER).write_text(
            "SYNTHETIC files written by benchmarks.synthetic (random text in the original formats) for "
            f"benchmarks; not the datasets. scale={scale} seed={seed}\n",
            encoding="utf-8",
        )
    return written


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="directory to write into (data-dir layout)")
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the published sizes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--datasets", default=",".join(writers()), help="comma-separated: " + ",".join(writers()))
    args = parser.parse_args(argv)
    for path in write_all(args.out, scale=args.scale, seed=args.seed, datasets=args.datasets.split(",")):
        print(f"{path}\t{path.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
