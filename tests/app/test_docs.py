"""The user's documents hold to the code: the README's Python example runs and prints what its
comments say, its size stays a README's, every page it and the docs link exists, and no page a
user reads points outside the repository or calls finished work unfinished."""

import contextlib
import io
import json
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
# The pages a user reads: the README and docs/, not the dated notes of what was tried.
USER_PAGES = [README, ROOT / "CHANGELOG.md", *sorted(DOCS.glob("*.md"))]


def _python_blocks(text):
    return re.findall(r"```python\n(.*?)```", text, re.S)


def test_the_readme_is_a_readme():
    # A user's first page: what it is, set-up, a few commands, an example, the tiers, links.
    assert len(README.read_text().splitlines()) <= 250


def test_the_readmes_clocks_are_the_results_pages():
    # The README quotes Fmax only from docs/synth.json (the results page's FPGA rows): a
    # design's worst of seeds 1-3, rounded as quoted; besides those, the board's clock
    # (docs/board-build.json) and the clocks designs are routed for.
    from robohw.registry import DESIGNS
    rows = json.loads((DOCS / "synth.json").read_text())["rows"]
    worst = [row["fmax_mhz"] for row in rows
             if row["fmax_mhz"] and {1, 2, 3} <= set(row["seeds"])]
    others = {json.loads((DOCS / "board-build.json").read_text())["clock"]["clock_mhz"],
              *(d.place_and_route.target_mhz for d in DESIGNS.values())} - {None}
    figures = re.findall(r"(\d+(?:\.\d+)?) MHz", README.read_text())
    assert len(figures) >= 6
    for figure in figures:
        decimals = len(figure.partition(".")[2])
        assert float(figure) in {round(mhz, decimals) for mhz in worst} | others, figure


def test_the_readme_python_example_prints_what_its_comments_say():
    (block,) = _python_blocks(README.read_text())
    expected = [m.group(1).strip() for line in block.splitlines()
                if "print(" in line and (m := re.search(r"#\s*(.*)$", line))]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "README.md", "exec"), {})
    printed = out.getvalue().splitlines()
    assert len(printed) == len(expected)
    for line, comment in zip(printed, expected):
        # The comment gives the printed value, then perhaps a colon and what it means.
        assert comment.split(":")[0].strip() == line.strip(), (line, comment)


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.name)
def test_every_link_of_a_users_page_exists(page):
    for target in re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text()):
        assert (page.parent / target).exists(), f"{page.name}: {target}"


@pytest.mark.parametrize("page", USER_PAGES, ids=lambda p: p.name)
def test_a_users_page_names_nothing_outside_the_repository(page):
    text = page.read_text()
    for outside in ("../shared", "CONVENTIONS", "ENGINEERING.md", "under way", "the issue"):
        assert outside not in text, f"{page.name}: {outside!r}"


@pytest.mark.parametrize("note", sorted((DOCS / "notes").glob("*.md")), ids=lambda p: p.name)
def test_a_note_is_dated_and_names_no_file_outside_the_repository(note):
    assert re.fullmatch(r"\d{4}-\d{2}-[a-z0-9-]+\.md", note.name)
    assert note.read_text().startswith(f"# {note.name[:7]}: ")
    for outside in ("../shared", "CONVENTIONS", "ENGINEERING.md"):
        assert outside not in note.read_text(), f"{note.name}: {outside!r}"


def test_the_code_cites_no_file_outside_the_repository():
    # Docstrings and comments cite the papers by name (docs/references.md) and the project's
    # own pages, never a file a user's checkout does not have.
    sources = [p for p in ROOT.rglob("*.py") if p.name != "test_docs.py"
               and not any(part.startswith(".") or part in ("build", "robohw.egg-info")
                          for part in p.relative_to(ROOT).parts)]
    assert len(sources) > 100
    for path in sources:
        text = path.read_text()
        for outside in ("../shared", "CONVENTIONS", "ENGINEERING.md", "README,", 'README "'):
            assert outside not in text, f"{path.relative_to(ROOT)}: {outside!r}"


def _console_blocks(text):
    """Each ``console`` block of ``text`` as ``[(command, [expected lines])]``."""
    blocks = []
    for block in re.findall(r"```console\n(.*?)```", text, re.S):
        steps = []
        for line in block.splitlines():
            if line.startswith("$ "):
                steps.append((line[2:], []))
            else:
                steps[-1][1].append(line)
        blocks.append(steps)
    return blocks


def _matches(expected, got):
    """``got`` (lines) is ``expected``, where a line ``...`` stands for any lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(_matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and _matches(expected[1:], got[1:])


def _run(command, status=0):
    """What ``command`` (``robohw ...`` or ``cat FILE``) prints, standard output and error in
    their order, as lines; the command must exit with ``status``."""
    import shlex

    from robohw.commands import main
    words = shlex.split(command)
    if words[0] == "cat":
        return pathlib.Path(words[1]).read_text().splitlines()
    assert words[0] == "robohw", command
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        got = main(words[1:])
    assert got == status, (command, out.getvalue())
    return out.getvalue().splitlines()


@pytest.mark.heavy
@pytest.mark.parametrize("block", [
    pytest.param(block, marks=[pytest.mark.slow] if any(c.startswith("robohw synth")
                                                        for c, _ in block) else [])
    for block in _console_blocks(README.read_text())],
    ids=lambda block: block[0][0].split()[1])
def test_the_readme_commands_run_as_written(block, tmp_path, monkeypatch):
    # From a folder holding the shipped examples, as a user runs them from the checkout.
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    for command, expected in block:
        got = _run(command)
        assert _matches(expected, got), (command, expected, got)


@pytest.mark.heavy
def test_the_your_arm_page_prints_what_it_shows(tmp_path, monkeypatch):
    # Each command of docs/your-arm.md, run from a folder holding the examples, prints the
    # lines shown under it (a measured default's warning, a first run's only, aside; a refusal
    # exits 2), and the simulated board's file is the model's.
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    steps = [step for block in _console_blocks((DOCS / "your-arm.md").read_text())
             for step in block]
    assert len(steps) == 6
    for command, shown in steps:
        expected = [line for line in shown if not line.startswith("robohw: warning:")]
        refused = expected[0].startswith(f"robohw {command.split()[1]}:")
        got = [line for line in _run(command, 2 if refused else 0)
               if not line.startswith("robohw: warning:")]
        assert got == expected, command
    assert (tmp_path / "tau_board.csv").read_bytes() == (tmp_path / "tau_model.csv").read_bytes()
