"""One meaning a name: the unit kinds and the operation counts' keys are spelled in one place,
the vocabulary of operations (``robohw.dataflow.operations``: ``Unit`` and ``Count``), and
every other module names them through it."""

import pathlib
import re
import subprocess

from robohw.dataflow.operations import Count, Unit

ROOT = pathlib.Path(__file__).resolve().parents[2]
VOCABULARY = "dataflow/operations.py"
# An operation's unit kind or count key written as a string literal (the input units' and the
# square root's names, "load", "cordic", "sqrt", are signal and file names elsewhere too).
LITERAL = re.compile(r"[\"'](" + "|".join((Unit.MUL, Unit.ADD, Unit.RECIP, Unit.RSQRT,
                                             Count.DIV)) + r")[\"']")


def _sources():
    tracked = subprocess.run(["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True,
                             text=True, check=True).stdout.split()
    return [name for name in tracked if not name.startswith("tests/")]


def test_no_unit_kind_or_count_key_is_a_literal_outside_the_vocabulary():
    found = [f"{name}:{number}: {line.strip()}" for name in _sources() if name != VOCABULARY
             for number, line in enumerate((ROOT / name).read_text().splitlines(), start=1)
             if LITERAL.search(line)]
    assert not found, "\n".join(found)


def test_the_vocabulary_keeps_the_spelling_of_names_built_from_it():
    # Verilog signals (``pe1_mul``, ``recip0``) and counts' JSON keys are built from members.
    assert f"pe1_{Unit.MUL}" == "pe1_mul" and f"{Unit.RECIP}{0}" == "recip0"
    assert {str(kind) for kind in Count} == {"mul", "add", "div", "rsqrt", "sqrt"}


def test_joint_types_are_spelled_by_their_enum():
    # robohw.robots.joint_type.JointType: no comparison or assignment spells "revolute" or
    # "prismatic" (a file's own text, a URDF's joint types and messages may).
    pattern = re.compile(r"(==|!=|type=)\s*[\"'](revolute|prismatic)[\"']")
    found = [f"{name}:{number}: {line.strip()}" for name in _sources()
             if name != "robots/joint_type.py"
             for number, line in enumerate((ROOT / name).read_text().splitlines(), start=1)
             if pattern.search(line)]
    assert not found, "\n".join(found)


def test_a_joint_type_reads_as_its_files_write_it():
    # Its repr is its value's: a joint's repr, and the robot digests made of it, are unchanged.
    from robohw.robots.joint_type import JointType
    assert repr(JointType.REVOLUTE) == "'revolute'" and JointType("prismatic") == "prismatic"
