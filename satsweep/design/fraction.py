"""Two-level fractional factorial designs 2^(k-p) (Jain 1991, ch. 19): generators, the defining
relation, the resolution and the fraction's rows.

A word is a set of factors, held as a bit mask over the factors in the order of the design
file (bit i: factor i), with a sign. The first level a factor lists is its -1, the second its
+1. A generator ``D = A:B:C`` sets D's sign to the product of A's, B's and C's in every row, so
``I = A:B:C:D`` is a word of the defining relation; the p generators' words and all their
products are the defining relation (2^p words, I included), and the resolution is the length
of its shortest word other than I. Words are written as the analysis names its terms, factor
names joined by ``:`` (``A:B:C:D``, ``-A:B:E``).

Sizes are bounded: a fraction has at most :data:`MAX_FACTORS` factors, its resolution is
found word by word (2^p products visited, one word in memory), and the search for generators
visits at most :data:`SEARCH_BUDGET` nodes per fraction size.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from satsweep.engine.description import shown

__all__ = [
    "MAX_FACTORS",
    "Fraction",
    "FractionError",
    "choose_generators",
    "parse_generator",
    "word_text",
]

#: The most two-level factors a fraction may have: the analysis states the alias structure of
#: at most 20 (analysis/24-aliases.sql), and the defining relation (2^p words, recorded in
#: design.json) stays within 2^15 words at resolution III or more.
MAX_FACTORS = 20

#: The largest number of nodes the search for generators of a resolution visits per fraction
#: size: enough for every design up to 15 factors tried, bounded for larger ones.
SEARCH_BUDGET = 200_000


class FractionError(ValueError):
    """Generators or a resolution that give no usable fraction; the message says what is allowed."""


def word_text(names: Sequence[str], mask: int, sign: int = 1) -> str:
    """A word as the analysis names terms: factor names joined by ``:``, ``-`` before a
    negative one, ``I`` for the empty word."""
    text = ":".join(name for i, name in enumerate(names) if mask >> i & 1) or "I"
    return ("-" if sign < 0 else "") + text


def _mask(names: Sequence[str], factors: Sequence[str]) -> int:
    return sum(1 << names.index(f) for f in factors)


def parse_generator(text: str, names: Sequence[str]) -> tuple[int, int, int]:
    """(generated factor's index, sign, mask of the word it equals) of ``"D = ABC"``,
    ``"D = -A:B:C"`` or ``"queue = tcp*mss"``: factor names joined by ``:``, ``*`` or spaces,
    or run together when each is one character."""
    left, equals, right = text.partition("=")
    left, right = left.strip(), right.strip()
    allowed = "'D = A:B:C' (or ABC when the names are one letter each, '-' for the other half)"
    if not equals or not left or not right:
        raise FractionError(f"{shown(text)} is not a generator; allowed: {allowed}")
    sign = -1 if right.startswith("-") else 1
    right = right.removeprefix("-").removeprefix("+").strip()
    parts = [p for p in re.split(r"[:*\s]+", right) if p]
    if len(parts) == 1 and parts[0] not in names and all(c in names for c in parts[0]):
        parts = list(parts[0])
    unknown = [p for p in [left, *parts] if p not in names]
    if unknown:
        raise FractionError(
            f"{shown(text)}: {shown(unknown[0])} is not a factor; allowed: {', '.join(names)}"
        )
    if left in parts or len(set(parts)) != len(parts):
        raise FractionError(f"{shown(text)}: a factor twice; allowed: {allowed}")
    return names.index(left), sign, _mask(names, parts)


def _group(words: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """Every product of the words (sign, mask), I first: the defining relation they generate."""
    group = [(1, 0)]
    for sign, mask in words:
        group += [(s * sign, m ^ mask) for s, m in group]
    return group


def _shortest(words: Sequence[int]) -> int | None:
    """The length of the shortest product of ``words`` (masks) other than I, each of the 2^p
    products visited once in Gray-code order (one word in memory); None for no word."""
    shortest, word = None, 0
    for i in range(1, 1 << len(words)):
        word ^= words[(i & -i).bit_length() - 1]  # the word that changes at step i
        length = word.bit_count()
        if shortest is None or length < shortest:
            shortest = length
    return shortest


def check_size(names: Sequence[str]) -> None:
    """FractionError for more factors than a fraction may have (:data:`MAX_FACTORS`)."""
    if len(names) > MAX_FACTORS:
        raise FractionError(
            f"{len(names)} factors; allowed: at most {MAX_FACTORS} two-level factors in a "
            "fraction (the analysis states the aliases of at most that many)"
        )


@dataclass(frozen=True)
class Fraction:
    """A 2^(k-p) fraction of the two-level factors ``names`` (file order): each generator
    (index of the generated factor, sign, mask of base factors) sets one factor."""

    names: tuple[str, ...]
    generators: tuple[tuple[int, int, int], ...]

    @classmethod
    def from_text(cls, names: Sequence[str], generators: Sequence[str]) -> Fraction:
        """The fraction of ``generators`` as a file gives them (:func:`parse_generator`);
        FractionError for a generated factor used in a word or generated twice, or for more
        factors than :data:`MAX_FACTORS`."""
        check_size(names)
        parsed = [parse_generator(g, names) for g in generators]
        generated = [target for target, _, _ in parsed]
        for text, (target, _, mask) in zip(generators, parsed, strict=True):
            if generated.count(target) > 1:
                raise FractionError(f"{shown(text)}: {names[target]} is generated twice")
            if used := [names[i] for i in generated if mask >> i & 1]:
                base = ", ".join(n for i, n in enumerate(names) if i not in generated)
                raise FractionError(
                    f"{shown(text)}: {used[0]} is generated itself; allowed: words of the factors "
                    f"no generator sets ({base})"
                )
        return cls(tuple(names), tuple(parsed))

    @property
    def generated(self) -> set[int]:
        return {target for target, _, _ in self.generators}

    @property
    def defining_relation(self) -> list[tuple[int, int]]:
        """Its words (sign, mask), I first."""
        return _group([(sign, mask | 1 << target) for target, sign, mask in self.generators])

    @cached_property
    def resolution(self) -> int | None:
        """The length of the shortest word of the defining relation besides I (None: no
        generator, the full factorial), found without building the relation."""
        return _shortest([mask | 1 << target for target, _, mask in self.generators])

    def defining_text(self) -> list[str]:
        """The defining relation as design.json records it: ``["I", "A:B:C:D", ...]``."""
        return [word_text(self.names, m, s) for s, m in self.defining_relation]

    def generator_text(self) -> list[str]:
        """The generators, normalised: ``["D = A:B:C"]``."""
        return [f"{self.names[t]} = {word_text(self.names, m, s)}" for t, s, m in self.generators]

    def summary(self) -> str:
        """The fraction in one line, as ``plan`` and the report say it: ``a 2^(5-2) fraction of
        resolution 3; generators d = a:b, e = a:c; defining relation I = a:b:d = ...``."""
        k, p = len(self.names), len(self.generators)
        return (
            f"a 2^({k}-{p}) fraction of resolution {self.resolution}; generators "
            f"{', '.join(self.generator_text())}; defining relation I = "
            + " = ".join(self.defining_text()[1:])
        )

    def rows(self) -> Iterator[tuple[int, ...]]:
        """The fraction's 2^(k-p) rows, each a sign per factor: the base factors' full
        factorial, the first varying slowest, the generated factors set by their words."""
        base = [i for i in range(len(self.names)) if i not in self.generated]
        for signs in itertools.product((-1, 1), repeat=len(base)):
            row = dict(zip(base, signs, strict=True))
            for target, sign, mask in self.generators:
                row[target] = sign * _product(row, mask)
            yield tuple(row[i] for i in range(len(self.names)))


def _product(row: dict[int, int], mask: int) -> int:
    sign = 1
    for i, s in row.items():
        if mask >> i & 1:
            sign *= s
    return sign


def choose_generators(names: Sequence[str], resolution: int) -> Fraction:
    """The smallest fraction of resolution ``resolution`` or more found: for 2^m runs, m from
    the fewest that can hold k factors up, the last k - m factors generated from words of the
    first m, words of the most factors tried first (a bounded search, :data:`SEARCH_BUDGET`);
    the full factorial when no fraction is found. FractionError for more factors than
    :data:`MAX_FACTORS`."""
    check_size(names)
    k = len(names)
    for m in range(1, k + 1):
        p = k - m
        candidates = sorted(
            (mask for mask in range(1, 1 << m) if mask.bit_count() >= max(2, resolution - 1)),
            key=lambda mask: (-mask.bit_count(), mask),
        )
        if len(candidates) < p:
            continue
        found = _search(candidates, p, resolution, m)
        if found is not None:
            return Fraction(tuple(names), tuple((m + j, 1, w) for j, w in enumerate(found)))
    return Fraction(tuple(names), ())


def _search(candidates: list[int], p: int, resolution: int, m: int) -> list[int] | None:
    """p base words whose generators (factor m + j = word j) give the resolution, or None."""
    budget = [SEARCH_BUDGET]

    def extend(chosen: list[int], group: list[int], start: int) -> list[int] | None:
        if len(chosen) == p:
            return chosen
        for i in range(start, len(candidates)):
            budget[0] -= 1
            if budget[0] < 0:
                return None
            word = candidates[i] | 1 << (m + len(chosen))
            # the new products are checked one by one, and built only when all are long enough
            if all((w ^ word).bit_count() >= resolution for w in group):
                found = extend([*chosen, candidates[i]], group + [w ^ word for w in group], i + 1)
                if found is not None:
                    return found
        return None

    return extend([], [0], 0)
