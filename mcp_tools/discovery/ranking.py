"""Rank a catalog's tools for a query: the default lexical ranker, and how a site plugs in
its own (``SEARCH_BACKEND``, docs/tools.md#large-apis).

The default is Okapi BM25F over what a model reads of a tool (its name, title, description
and argument names) and the words of its route (``/api/dcim/devices/`` gives ``dcim`` and
``devices``), each field weighted by how much it says of the tool. It is the few lines BM25
needs rather than a dependency: the libraries that implement it (``rank_bm25``, ``bm25s``)
bring numpy for a catalog of a thousand short documents, and their statistics are over the
whole corpus.

Ours are over the tools the caller may call (``among``): a document's frequencies are
counted once per catalog, and each search counts the document frequencies of its own few
terms over those tools alone, so a tool hidden from the caller can neither appear nor move
another's score.

BM25 weighs every word a request shares with a tool alike; a request says more than which
words. To BM25's score each tool adds what it reads of the request (``reading``), all of
it from the tool's own definition:

- whether the request names the tool's model (its title less the action's verb), whole as
  one phrase or its initials ("IP addresses", "VMs"), or in part; in its subject more than
  in the words after it, its filters ("the VMs | on cluster c1"); and whether the model
  ends in the head of one of the subject's phrases ("user groups" are groups);
- whether the tool does what the request wants (``intent``): what its first action word
  says, a question reads; a tool of its own action (``rack_trace``) reads or writes as its
  ``readOnlyHint`` says, and in full only when the request names that action.

Words are folded onto their singular for matching, and onto their root (reserved,
reservation) and a few synonyms of what API tools do (free: available) for naming a
model. None of it knows one API from another.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from django.utils.module_loading import import_string

__all__ = ["Entry", "LexicalBackend", "SearchBackend", "load_backend"]

#: BM25's term-frequency saturation and each field's length normalisation (the usual values).
K1 = 1.2
B = 0.75

#: How much each field's words count (BM25F): a tool's name, title and the first sentence of
#: its description say what it is; the rest of a generated description (the fields it
#: returns, its filters) and its argument names say what it takes, and say it at length.
#: A word met only by its root (``roots``: name, title, summary, arguments) counts little
#: here, where it would count an exact match twice, but makes the tool a match.
WEIGHTS = {
    "name": 3.0,
    "title": 2.0,
    "words": 1.0,
    "summary": 1.5,
    "description": 0.3,
    "arguments": 0.5,
    "roots": 0.05,
}

#: How much naming a tool's model counts, against a BM25 score of some 5 to 20; a model
#: named in part counts its share to this power.
MODEL = 3.0
MODEL_POWER = 2.0
#: How much it counts that a tool's model ends in the head of a phrase of the request's
#: subject (``heads``).
HEAD = 2.0
#: How much a model counts that only the words after a request's subject name (``subject``).
CONTEXT = 0.5
_PREPOSITIONS = (
    "in on at of for from to with by into onto within via through under behind about out over"
)
PREPOSITIONS = frozenset(_PREPOSITIONS.split())

#: The standard actions, by the words a request for each uses: a tool named ``*_list`` is
#: what "show", "which" or "how many" ask for, ``*_create`` "add" or "new".
ACTIONS = {
    "list": "list show which what all find search display view see browse many count any where who "
    "read follow trace",
    "retrieve": "get fetch detail details one show what",
    "create": "add new create record register make define enter reserve allocate book hold "
    "provision setup",
    "update": "update change set rename relabel mark move edit modify tag assign attach enable "
    "disable fix correct bump increase decrease",
    "partial_update": "update change set rename relabel mark move edit modify tag assign attach "
    "enable disable fix correct bump increase decrease",
    "destroy": "delete remove drop destroy erase purge unregister revoke release",
}
_ACTION_OF_WORD: dict[str, set[str]] = {}
for _action, _words in ACTIONS.items():
    for _word in _words.split():
        _ACTION_OF_WORD.setdefault(_word, set()).add(_action)

#: The action words that name nothing a tool works on (not "tag", "record", "view").
_VERBS = (
    "list show which what all find display see browse many count any where who get fetch "
    "detail details one add new create update change modify edit delete remove destroy erase "
    "purge"
)
VERBS = frozenset(_VERBS.split())

#: What a request wants done: what its first action word says ("show that change" reads),
#: and a question (its first word one of ``QUESTIONS``) reads whatever verbs follow.
READS = frozenset(("list", "retrieve"))
WRITES = {word: actions for word, actions in _ACTION_OF_WORD.items() if not actions & READS}
_QUESTIONS = "which what who whom whose where when how is are was were did does do"
QUESTIONS = frozenset(_QUESTIONS.split())
#: Adjectives among the action words: they decide only when no verb does ("a new box
#: booted: which device is it?" asks).
WEAK = frozenset(("new", "all", "one", "any", "many"))
#: Words that ask for one object rather than a list of them.
_ONE = "get fetch detail details"
ONE = frozenset(_ONE.split())
#: How much doing what a request wants counts; a tool of no standard action (``rack_trace``)
#: does what it wants when it reads, or writes, as the request does (its ``readOnlyHint``).
ACTION = 4.0
#: The share of that a tool of its own action gets when the request doesn't name it.
UNNAMED = 0.5
#: How much a request that neither asks nor names an action wants each that changes
#: something: it is an order, in a verb we don't know ("bundle these ports").
UNKNOWN = 0.5
_METHODS = frozenset(("get", "post", "put", "patch", "delete"))

#: Other words for what API tools do and the words their names use: a request for "free"
#: addresses wants the ``available`` ones, one to "execute" a query its ``run``.
_SYNONYMS = {
    "free": "available",
    "unused": "available",
    "spare": "available",
    "execute": "run",
    "launch": "run",
    "trigger": "run",
    "withdraw": "cancel",
    "abort": "cancel",
    "remark": "comment",
    "comment": "note",
    "pull": "sync",
    "refresh": "sync",
    "book": "reserve",
    "hold": "reserve",
    "kind": "type",
    "category": "type",
    "verify": "check",
    "follow": "trace",
}
SYNONYMS = {word: tuple(others.split()) for word, others in _SYNONYMS.items()}

#: Words that say nothing of which tool is meant.
_STOP = (
    "a an and are as at be by for from has have how i in into is it its me my of on or "
    "our please that the their them there these this those to us was we when will with "
    "you your can could do does let tell object objects"
)
STOP_WORDS = frozenset(_STOP.split())

#: The verbs a generated title opens with ("Partially update device").
_OPENING = "list get retrieve create update partially replace delete"
_TITLE_VERBS = frozenset(_OPENING.split())

#: The endings ``root`` drops, longest first.
_ENDING = "ization ation ition ated ates ate ment ing ied ion ed ive ity al ly e y"
_ENDINGS = sorted(_ENDING.split(), key=len, reverse=True)

#: "set up" a thing is to create it.
_SET_UP = re.compile(r"\bset\s+up\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z0-9]+")
#: An abbreviation's plural: VMs, IPs, OSes.
_PLURAL_CAPS = re.compile(r"\b([A-Z][A-Z0-9]+)(?:e?s)\b")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_SENTENCE = re.compile(r"(?<=[.!?])\s")


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Fold a word's plural onto its singular (``devices``, ``addresses``, ``policies``,
    ``statuses``)."""
    if len(word) <= 3 or word.isdigit():
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes", "uses")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


@lru_cache(maxsize=1 << 16)
def root(word: str) -> str:
    """Return a word's root: its singular less its derivational endings, while four letters
    remain (reservation, reserved, reserve: ``reserv``; inventoried, inventory)."""
    word = stem(word)
    while True:
        ending = next(
            (end for end in _ENDINGS if word.endswith(end) and len(word) - len(end) >= 4), ""
        )
        if not ending:
            return word
        word = word[: -len(ending)]


def words(text: object) -> list[str]:
    """Return the stemmed words of ``text``: camelCase and snake_case split, stop words
    dropped."""
    split = _CAMEL.sub(" ", _PLURAL_CAPS.sub(r"\1", str(text or ""))).lower()
    return [stem(word) for word in _WORD.findall(split) if word not in STOP_WORDS]


def with_compounds(found: list[str]) -> list[str]:
    """Return ``found`` and each two neighbours joined: "ip address" is also ``ipaddress``,
    as Nautobot names its model (``ipaddress_list``)."""
    return found + [a + b for a, b in zip(found, found[1:], strict=False)]


def acronyms(found: list[str]) -> list[str]:
    """Return the initials of each run of two and three words: "virtual machine" is also
    ``vm``, "virtual device context" ``vdc``."""
    return [
        "".join(word[0] for word in found[i : i + n])
        for n in (2, 3)
        for i in range(len(found) - n + 1)
    ]


def intent(text: str) -> dict[str, float]:
    """Return how much a request wants each standard action: "add a device" creates, "which
    devices" lists, "show the details of" retrieves (a list too will do); an order in a verb
    we don't know ("bundle these ports") creates or changes something, if less surely."""
    raw = _WORD.findall(_CAMEL.sub(" ", _SET_UP.sub("setup", text)).lower())
    verb = next((word for word in raw if word in _ACTION_OF_WORD and word not in WEAK), None)
    verb = verb or next((word for word in raw if word in WEAK), None)
    if verb in WRITES and not (raw and raw[0] in QUESTIONS):
        return dict.fromkeys(WRITES[verb], 1.0)
    if verb is None and raw and raw[0] not in QUESTIONS:
        return dict.fromkeys(("create", "update", "partial_update"), UNKNOWN)
    one = any(word in ONE for word in raw)
    return {"list": 0.5 if one else 1.0, "retrieve": 1.0 if one else 0.5}


@dataclass(frozen=True)
class Entry:
    """What the ranker reads of one tool."""

    name: str
    title: str = ""
    description: str = ""
    #: Argument name → its description.
    arguments: dict[str, str] = field(default_factory=dict)
    #: Other words that name what the tool works on: its route's.
    words: str = ""
    #: The standard action it performs (``list``, ``create``, ...), if any.
    action: str | None = None
    #: Whether it only reads (its ``readOnlyHint``), when known.
    read_only: bool | None = None

    @classmethod
    def of_definition(cls, definition: dict[str, Any], words: str = "") -> Entry:
        """Return the entry of a tool definition as ``tools/list`` carries it."""
        properties = (definition.get("inputSchema") or {}).get("properties") or {}
        name = str(definition.get("name", ""))
        return cls(
            name=name,
            title=str(definition.get("title") or ""),
            description=str(definition.get("description") or ""),
            arguments={
                str(key): str(schema.get("description") or "") if isinstance(schema, dict) else ""
                for key, schema in properties.items()
            },
            words=words,
            action=next(
                (a for a in sorted(ACTIONS, key=len, reverse=True) if name.endswith(f"_{a}")),
                name if name in ACTIONS else None,
            ),
            read_only=(definition.get("annotations") or {}).get("readOnlyHint"),
        )

    def model(self) -> list[str]:
        """Return the words of what the tool works on: its title's, less the action's verb
        ("List virtual machines": virtual, machine; "Rack: elevation": rack)."""
        head, colon, _ = self.title.partition(":")
        if colon:
            found = words(head)
        else:
            found = words(self.title)
            while found and found[0] in _TITLE_VERBS:
                found = found[1:]
        if not found:
            found = words(self.name.split("_", 1)[0])
        return list(dict.fromkeys(found))

    def fields(self) -> dict[str, list[str]]:
        """Return the entry's terms, field by field (``WEIGHTS``)."""
        parts = _SENTENCE.split(self.description.strip(), 1)
        summary, rest = parts[0], parts[1] if len(parts) > 1 else ""
        return {
            "name": with_compounds(words(self.name)),
            "title": with_compounds(words(self.title)) + acronyms(words(self.title)),
            "words": with_compounds(words(self.words)),
            "summary": with_compounds(words(summary)),
            "description": words(rest),
            "arguments": [term for key in self.arguments for term in words(key)],
            "roots": [
                f"^{root(word)}"
                for word in words(f"{self.name} {self.title} {summary} {' '.join(self.arguments)}")
            ],
        }


class SearchBackend(Protocol):
    """A ranker: made once per catalog (the admin state's version), asked per search."""

    def __init__(self, entries: Sequence[Entry]) -> None: ...

    def search(self, query: str, among: Collection[str] | None, limit: int) -> list[str]:
        """Return the names of at most ``limit`` tools of ``among`` (None: every entry),
        best first, that match ``query`` at all."""
        ...


class LexicalBackend:
    """BM25F: Okapi BM25 over weighted fields, its statistics over the tools searched among."""

    def __init__(self, entries: Sequence[Entry]) -> None:
        self.names = [entry.name for entry in entries]
        #: Per tool, per field (``WEIGHTS``' order): its length.
        self.lengths: list[tuple[int, ...]] = []
        #: Per term: the tools whose fields have it, as (tool, field, count).
        self.postings: dict[str, list[tuple[int, int, int]]] = {}
        #: Per tool: its model's words' roots, their compound and their initials (``vm``).
        self.models: list[tuple[frozenset[str], str, str, str]] = []
        #: Per tool: its standard action and whether it only reads.
        self.actions: list[tuple[str | None, bool | None]] = []
        #: Per tool of its own action: the roots of that action's words (``note``).
        self.own: list[set[str]] = []
        for i, entry in enumerate(entries):
            fields = entry.fields()
            self.lengths.append(tuple(len(fields[name]) for name in WEIGHTS))
            for f, name in enumerate(WEIGHTS):
                for term, count in Counter(fields[name]).items():
                    self.postings.setdefault(term, []).append((i, f, count))
            self.actions.append((entry.action, entry.read_only))
            own = words(entry.name.partition("_")[2]) if entry.action is None else []
            self.own.append({root(word) for word in own if word not in _METHODS})
            model = entry.model()
            initials = "".join(word[0] for word in model) if len(model) > 1 else ""
            self.models.append(
                (
                    frozenset(root(word) for word in model),
                    "".join(model),
                    initials,
                    root(model[-1]) if model else "",
                )
            )

    def search(self, query: str, among: Collection[str] | None, limit: int) -> list[str]:
        if limit < 1:
            return []
        scored = sorted((-sum(parts), i) for i, parts in self.explain(query, among).items())
        return [self.names[i] for _, i in scored[:limit]]

    def explain(self, query: str, among: Collection[str] | None) -> dict[int, tuple[float, ...]]:
        """Return the parts of the score of each tool of ``among`` that matches ``query``
        (by its index): its BM25F score, and its bonuses for naming its model, doing what
        the request wants, and ending in the head of one of its phrases."""
        # Numbers and single letters in a request are its values (10.0.0.0/24, rack R3), not
        # words of a tool; the action words say what to do (``intent``), not to what, unless
        # they are all there is.
        read = reading(query)
        named = [word for word, kind in read if kind in ("do", "is")]
        plain = [word for word, kind in read if kind == "is"] or named
        content = _phrases(plain) | {f"^{term}" for term in roots(plain)}
        content |= {stem(other) for word in plain for other in SYNONYMS.get(word, ())}
        if not content:
            return {}
        wanted = intent(query)
        docs = [i for i, name in enumerate(self.names) if among is None or name in among]
        if not docs:
            return {}
        inside = None if among is None else set(docs)
        averages = [
            (sum(self.lengths[i][f] for i in docs) / len(docs)) or 1.0 for f in range(len(WEIGHTS))
        ]
        weights = list(WEIGHTS.values())
        frequencies: dict[int, dict[str, float]] = {}
        for term in sorted(content):
            for i, f, tf in self.postings.get(term, ()):
                if inside is None or i in inside:
                    found = frequencies.setdefault(i, {})
                    norm = 1 - B + B * self.lengths[i][f] / averages[f]
                    found[term] = found.get(term, 0.0) + weights[f] * tf / norm
        # Over every tool searched among.
        df = Counter(term for found in frequencies.values() for term in found)
        idf = {term: math.log(1 + (len(docs) - n + 0.5) / (n + 0.5)) for term, n in df.items()}
        head, rest = subject(query)
        phrases = (
            _phrases(head) | roots(head),
            _phrases(head + rest) | roots(head + rest),
        )
        head_words = heads(query)
        return {
            i: (
                sum(idf[t] * tf / (K1 + tf) for t, tf in found.items()),
                MODEL * self._names_model(i, phrases),
                ACTION * self._does(i, wanted, phrases[1]),
                HEAD * (self.models[i][3] in head_words),
            )
            for i, found in frequencies.items()
        }

    def _does(self, i: int, wanted: dict[str, float], named: set[str]) -> float:
        """Return how much tool ``i`` does what a request wants (``intent``); a tool of its
        own action (``prefix_notes_get``) does it fully only if the request names that
        action (``named``: the roots of its words)."""
        action, read_only = self.actions[i]
        if action is not None:
            return wanted.get(action, 0.0)
        if read_only is None:
            return 0.0
        share = max(
            (share for done, share in wanted.items() if (done in READS) == read_only),
            default=0.0,
        )
        return share if self.own[i] & named else share * UNNAMED

    def _names_model(self, i: int, phrases: tuple[set[str], set[str]]) -> float:
        """Return how much of tool ``i``'s model a request names: 1 when its subject names it
        whole, as one phrase ("virtual machines", "VMs"), else the share of its words named,
        and that much less when only the words after the subject (its filters) name them."""
        model, compound, initials, _ = self.models[i]
        if not model:
            return 0.0

        def share(named: set[str]) -> float:
            if compound in named or initials in named:
                return 1.0
            return (len(model & named) / len(model)) ** MODEL_POWER

        head, whole = phrases
        return max(share(head), CONTEXT * share(whole))


def reading(text: str) -> list[tuple[str, str]]:
    """Return a request's words, stemmed, each with what it is: ``of`` a preposition, ``-``
    a stop word or a value (10, R), ``do`` an action word that says what to do, ``is`` a
    word that names something. An action word after the first that writes names a thing
    ("show that change": objectchange); one that reads ("list", "which") never does."""
    found: list[tuple[str, str]] = []
    first = None
    for raw in _WORD.findall(_CAMEL.sub(" ", _PLURAL_CAPS.sub(r"\1", text)).lower()):
        word = stem(raw)
        if raw in PREPOSITIONS:
            found.append((word, "of"))
        elif raw in STOP_WORDS or not _is_word(word):
            found.append((word, "-"))
        elif word in VERBS and (first is None or word == first or word not in WRITES):
            first = first or word
            found.append((word, "do"))
        else:
            found.append((word, "is"))
    return found


def subject(text: str) -> tuple[list[str], list[str]]:
    """Return the words of a request's subject and those after it: the subject ends at the
    first preposition after a word that names something ("the VMs | on cluster c1"; "the
    details of subnet s" names nothing before "of")."""
    found = reading(text)
    end = next(
        (
            at
            for at, (_, kind) in enumerate(found)
            if kind == "of" and any(other == "is" for _, other in found[:at])
        ),
        len(found),
    )
    return (
        [word for word, kind in found[:end] if kind in ("do", "is")],
        [word for word, kind in found[end:] if kind in ("do", "is")],
    )


def heads(text: str) -> set[str]:
    """Return the roots of the last word of each run of words that name something in a
    request's subject (``subject``): English puts a phrase's head last ("user groups" are
    groups)."""
    found: set[str] = set()
    run = ""
    for word, kind in reading(text):
        if kind == "of" and (found or run):
            break
        if kind == "is" and word.isalpha():
            run = word
        elif run:
            found.add(run)
            run = ""
    if run:
        found.add(run)
    return roots(list(found))


def roots(named: list[str]) -> set[str]:
    """Return the roots of a request's words and of their synonyms (``SYNONYMS``)."""
    found = {root(word) for word in named}
    return found.union(*(_SYNONYM_ROOTS.get(word, ()) for word in found))


#: ``SYNONYMS`` by root (booked, booking: ``book``).
_SYNONYM_ROOTS = {root(word): {root(other) for other in also} for word, also in SYNONYMS.items()}


def _phrases(named: list[str]) -> set[str]:
    return {"".join(named[i : i + n]) for n in range(1, 5) for i in range(len(named) - n + 1)}


def _is_word(term: str) -> bool:
    return len(term) > 1 and not term.isdigit()


def load_backend(path: str | type | None = None) -> type[SearchBackend]:
    """Return the ranker class ``path`` names (``SEARCH_BACKEND``: a dotted path, or the
    class itself); None: the default."""
    if path is None:
        return LexicalBackend
    return import_string(path) if isinstance(path, str) else path


def entries_of(tools: Iterable[Any]) -> list[Entry]:
    """Return the entries of a catalog's tools (``Tool`` objects), their route's words
    included."""
    return [
        Entry.of_definition(tool.definition(), words=" ".join(route_words(tool.route.template)))
        for tool in tools
    ]


def route_words(template: str) -> list[str]:
    """Return the static words of a route (``api/dcim/devices/<pk>/`` → api, dcim, devices)."""
    return [part for part in re.split(r"[/<>]+", re.sub(r"<[^>]*>", "", template)) if part]
