#!/usr/bin/env python3
"""Extract the Russian common-noun list shipped as lexicons/ru.txt.

Source: OpenCorpora dictionary (CC BY-SA 3.0) as packaged in PyPI `pymorphy3-dicts-ru`,
read through `pymorphy3`. Run once by a maintainer (needs the two packages installed);
nothing at build or test time runs this.

    pip install pymorphy3==2.0.6 pymorphy3-dicts-ru==2.4.417150.4580142
    python3 lexicons/tools/extract_ru.py > lexicons/ru.txt

Kept: the lemma (first form of its paradigm) of every NOUN, in the nominative singular, or for
plural-only nouns (Pltm) in the nominative plural. Dropped: any lemma tagged Name, Surn, Patr,
Geox, Orgn, Trad, Abbr or Init, and any word with a character outside а–я and ё.
"""
import re
import sys

import pymorphy3

EXCLUDED = {"Name", "Surn", "Patr", "Geox", "Orgn", "Trad", "Abbr", "Init"}
LETTERS = re.compile("^[а-яё]+$")


def main() -> None:
    morph = pymorphy3.MorphAnalyzer(lang="ru")
    words = set()
    for word, tag, normal_form, _para_id, idx in morph.dictionary.iter_known_words():
        if idx != 0 or tag.POS != "NOUN" or tag.case != "nomn":
            continue
        if tag.grammemes & EXCLUDED:
            continue
        plural_only = "Pltm" in tag.grammemes
        if not (tag.number == "sing" or (plural_only and tag.number == "plur")):
            continue
        if LETTERS.match(word):
            words.add(word)
    out = sys.stdout
    for w in sorted(words):
        out.write(w + "\n")
    print(f"{len(words)} words", file=sys.stderr)


if __name__ == "__main__":
    main()
