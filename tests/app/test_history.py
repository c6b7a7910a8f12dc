"""The history's habits: every commit subject from the house's linter on (the commit that split
``dynamics/`` by computation) is at most 72 characters, so ``git log --oneline`` reads whole."""

import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
# The first commit held to the rule.
SINCE = "80682c2"
LONGEST_SUBJECT = 72


def _git(*args):
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True)


def test_commit_subjects_are_at_most_72_characters():
    if _git("rev-parse", "--git-dir").returncode != 0:
        pytest.skip("not a git checkout (an installed copy)")
    known = _git("cat-file", "-e", f"{SINCE}^{{commit}}").returncode == 0
    # A shallow clone without the first commit: the commits it has.
    span = [f"{SINCE}^..HEAD"] if known else ["HEAD"]
    subjects = _git("log", "--format=%h %s", *span).stdout.splitlines()
    assert subjects
    long = [line for line in subjects if len(line.split(" ", 1)[1]) > LONGEST_SUBJECT]
    assert not long, "\n".join(long)
