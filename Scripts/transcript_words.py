"""Word normalisation, alignment, WER and capforge runs shared by Scripts/calibrate and the Benchmarks.

Normalisation (as in the whisper-stack notes): lower case, apostrophes dropped, any other
punctuation turned into a space, "mr" read as "mister". Letters of every script are kept, so
Korean and other non-Latin references compare too.
"""
import json
import re
import subprocess
import unicodedata

_APOSTROPHES = re.compile(r"['\u2019\u02bc]")
_NOT_WORD = re.compile(r"[^\w\s]|_")


_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
# Spoken the same either way; both sides are expanded, so "I'm" matches a reference's "I am".
_CONTRACTIONS = {"im": "i am", "youre": "you are", "theyre": "they are", "ive": "i have", "youve": "you have",
                 "weve": "we have", "theyve": "they have", "dont": "do not", "doesnt": "does not", "didnt": "did not",
                 "cant": "can not", "cannot": "can not", "isnt": "is not", "arent": "are not", "wasnt": "was not",
                 "couldnt": "could not", "wouldnt": "would not", "thats": "that is"}


def _number(token):
    """Digits as they are said: 0-99 as number words, longer numbers digit by digit."""
    value = int(token)
    if len(token) > 2 or (len(token) == 2 and token[0] == "0"):
        return [_ONES[int(d)] for d in token]
    if value < 20:
        return [_ONES[value]]
    return [_TENS[value // 10]] + ([_ONES[value % 10]] if value % 10 else [])


def words(text):
    """Normalised words: lower case, apostrophes dropped, punctuation to spaces, mr -> mister,
    digits as number words, common contractions expanded, spelled-out letters ("m f a") joined."""
    text = unicodedata.normalize("NFC", text).lower()
    text = _NOT_WORD.sub(" ", _APOSTROPHES.sub("", text))
    out = []
    for w in text.split():
        if w.isascii() and w.isdigit():
            out += _number(w)
        else:
            out += ("mister" if w == "mr" else _CONTRACTIONS.get(w, w)).split()
    return _joined_letters(out)


def _joined_letters(tokens):
    """Runs of two or more single letters (a reference spelling "m f a") as one token, "mfa"."""
    result, run = [], []
    for token in tokens + [""]:
        if len(token) == 1 and token.isalpha():
            run.append(token)
            continue
        if len(run) >= 2 and any(letter not in "ai" for letter in run):
            result.append("".join(run))
        else:
            result += run
        run = []
        if token:
            result.append(token)
    return result


def align(ref, hyp):
    """Minimum-edit alignment of two word lists: (ref index or None, hyp index or None) pairs."""
    rows, cols = len(ref) + 1, len(hyp) + 1
    cost = [[0] * cols for _ in range(rows)]
    for i in range(rows):
        cost[i][0] = i
    for j in range(cols):
        cost[0][j] = j
    for i in range(1, rows):
        for j in range(1, cols):
            diagonal = cost[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1])
            cost[i][j] = min(diagonal, cost[i - 1][j] + 1, cost[i][j - 1] + 1)
    pairs, i, j = [], len(ref), len(hyp)
    while i or j:
        # Prefer the diagonal so a wrong word pairs with the word it replaced.
        if i and j and cost[i][j] == cost[i - 1][j - 1] + (ref[i - 1] != hyp[j - 1]):
            i, j = i - 1, j - 1
            pairs.append((i, j))
        elif i and cost[i][j] == cost[i - 1][j] + 1:
            i -= 1
            pairs.append((i, None))
        else:
            j -= 1
            pairs.append((None, j))
    return pairs[::-1]


def edit_distance(ref, hyp):
    row = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        diagonal, row[0] = row[0], i
        for j, h in enumerate(hyp, 1):
            diagonal, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, diagonal + (r != h))
    return row[-1]


def wer(reference_text, hypothesis_text):
    """(word errors, reference words) after normalisation."""
    ref, hyp = words(reference_text), words(hypothesis_text)
    return edit_distance(ref, hyp), len(ref)


def word_correctness(output_words, reference_text):
    """(word, right) for every word of a capforge JSON `words` list.

    A word is right when every normalised token of it equals the reference word the minimum-edit
    alignment pairs it with.
    """
    ref = words(reference_text)
    tokens, owner = [], []
    for index, word in enumerate(output_words):
        for token in words(word["text"]):
            tokens.append(token)
            owner.append(index)
    right = dict.fromkeys(owner, True)
    for r, h in align(ref, tokens):
        if h is not None:
            right[owner[h]] &= r is not None and ref[r] == tokens[h]
    return [(output_words[i], ok) for i, ok in right.items()]


def corpus_seconds(sources_tsv, split):
    """Seconds of audio in one half of the held-out corpus, from its SOURCES.tsv."""
    rows = [line.split("\t") for line in sources_tsv.read_text().splitlines()[1:]]
    return sum(float(row[6]) for row in rows if row[1] == split)


def default_threshold(root):
    """Confidence.defaultThreshold, read from the Swift source under `root`."""
    source = (root / "Sources" / "CapforgeCore" / "Confidence.swift").read_text()
    return float(re.search(r"defaultThreshold = ([0-9.]+)", source).group(1))


def capforge_json(capforge, media, out, options):
    """Runs `capforge caption` on `media` (paths) into `out`: {path: its JSON document}. `out` is
    the script's own folder, so what an earlier build wrote there is replaced (--overwrite)."""
    subprocess.run([str(capforge), "caption", *map(str, media), "--formats", "json", "--force", "--overwrite", "-q",
                    "--out", str(out), *options], check=True, stdout=subprocess.DEVNULL)
    return {path: json.loads(next(out.glob(f"{path.stem}.*.json")).read_text()) for path in media}


def characters(text):
    """Characters for CER in scripts written without spaces (Japanese, Chinese): NFKC (full-width
    Latin and digits as half-width), whitespace, punctuation and symbols dropped."""
    return [c for c in unicodedata.normalize("NFKC", text) if not (c.isspace() or unicodedata.category(c)[0] in "PSZ")]


def cer(reference_text, hypothesis_text):
    """(character errors, reference characters) after `characters`."""
    ref = characters(reference_text)
    return edit_distance(ref, characters(hypothesis_text)), len(ref)
