"""Audio material shared by Benchmarks/nonspeech and Benchmarks/music: Debian packages of game
music pinned by version and sha256, and the held-out corpus's evaluation half of real speech
(Benchmarks/heldout-corpus). Neither is used by any test.
"""
import hashlib
import subprocess
import sys

# Instrumental game music (GPL-2 / GPL-2+).
PACKAGES = {
    "lincity-ng-data": ("2.9~git20150314-5", "8f5e85bd42879abdc7099b035d7a3d7468eceb6b93b52a12270c28f3f3c792f9"),
    "frozen-bubble-data": ("2.212-11", "39cdfd07d9532d1558762cf265a844d09015c4540568573c50f444cc084166e0"),
    "asc-music": ("1.3-6", "369f2d396adb8db9003ef73b797d529e284a7764a5ff4b59a50a4c8b9294da5f"),
}
LINCITY = "usr/share/games/lincity-ng/music/default/"
BUBBLE = "usr/share/games/frozen-bubble/snd/"
MUSIC = {  # frontiers.mp3 is the fixtures' music-intro.mkv: left out
    "lincity": LINCITY + "01 - pronobozo - lincity.ogg",
    "city-blues": LINCITY + "02 - Robert van Herk - City Blues.ogg",
    "contemplations": LINCITY + "03 - Robert van Herk - Architectural Contemplations.ogg",
    "bubble-1p": BUBBLE + "frozen-mainzik-1p.ogg",
    "bubble-2p": BUBBLE + "frozen-mainzik-2p.ogg",
    "bubble-intro": BUBBLE + "introzik.ogg",
    "machine-wars": "usr/share/games/asc/music/machine_wars.mp3",
    "time-to-strike": "usr/share/games/asc/music/time_to_strike.mp3",
}


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def extracted(debs, packages=PACKAGES):
    """`packages` ({name: (version, sha256)}) downloaded into `debs`, each archive checked against
    its pinned hash, and unpacked under debs/x, which is returned."""
    debs.mkdir(parents=True, exist_ok=True)
    for name, (version, digest) in packages.items():
        deb = debs / f"{name}_{version.replace(':', '%3a')}_all.deb"
        if not deb.exists():
            subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=debs, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if sha256(deb) != digest:
            sys.exit(f"{deb.name}: sha256 {sha256(deb)} is not the pinned {digest}")
        if not (debs / "x" / name).exists():
            run("dpkg-deb", "-x", str(deb), str(debs / "x"))
            (debs / "x" / name).touch()
    return debs / "x"


def heldout_evaluation(root):
    """The held-out corpus's evaluation recordings (WAV, each beside its .txt reference), in name
    order, built first by Benchmarks/heldout-corpus when missing."""
    corpus = root / "Benchmarks" / "out" / "heldout" / "evaluation"
    speech = sorted(corpus.glob("*.wav"))
    if not speech:
        subprocess.run([str(root / "Benchmarks" / "heldout-corpus")], check=True)
        speech = sorted(corpus.glob("*.wav"))
    return speech
