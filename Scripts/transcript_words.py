"""Word normalisation, alignment and WER shared by Scripts/calibrate and Benchmarks/transcribe.

Normalisation (as in the whisper-stack notes): lower case, apostrophes dropped, any other
punctuation turned into a space, "mr" read as "mister". Letters of every script are kept, so
Korean and other non-Latin references compare too.
"""
import re
import unicodedata

_APOSTROPHES = re.compile(r"['\u2019\u02bc]")
_NOT_WORD = re.compile(r"[^\w\s]|_")


def words(text):
    text = unicodedata.normalize("NFC", text).lower()
    text = _NOT_WORD.sub(" ", _APOSTROPHES.sub("", text))
    return ["mister" if w == "mr" else w for w in text.split()]


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
