"""Serial robots from URDF files (and xacro files expanded to URDF), as :class:`Chain`.

:func:`load_urdf` reads a URDF file into the chain from its root link (or ``base``) to ``tip``,
with what its sidecar file adds; a file that cannot be used raises
:class:`robohw.robots.RobotFileError`, one line naming the file, the link or joint and the
field, before anything is computed.

Parsing is defused (:mod:`defusedxml`: a document that declares entities, or reaches for
external files, is refused); meshes and every other element but ``link``, ``joint`` and their
``inertial``, ``origin``, ``axis``, ``limit``, ``dynamics`` and ``mimic`` are never read. A
``.xacro`` file is first expanded by the ``xacro`` package (its includes and macros), and the
URDF it gives parsed the same way.

The chain:

- Fixed joints are merged: the child link's mass, centre of mass and inertia join its parent's
  (by the parallel-axis theorem), and placements compose.
- ``tip`` (a link name), or without it: when every movable joint below the base lies on one
  branch, that branch, to the child of its last movable joint (the fixed branches elsewhere,
  a UR5's ``base``, ``ee_link`` and ``tool0``, merged where they hang). When movable joints lie
  on several branches that part at one link, and the chain to it holds more movable joints
  than any branch past it (a Panda's fingers, one joint each past ``panda_hand``), the tip is
  that link and the joints past it are locked, with a :class:`RobotFileWarning` naming them;
  otherwise (two arms on a torso) the file is refused with the candidate tips.
- Joints off the chain are locked, at 0 or at the sidecar's ``position`` (a mimic joint at its
  master's locked position times its multiplier plus its offset), and their links merged.
  A mimic joint on the chain, or one that follows a chain joint, is refused.
- Gravity is ``(0, 0, -9.81)`` in the base link's frame (the sidecar's ``gravity`` otherwise);
  a tool wrench is in the tip link's frame.
- ``continuous`` joints are revolute joints without position limits. ``<dynamics damping
  friction>`` are the joints' viscous damping and Coulomb friction; other attributes of
  ``dynamics`` (the Panda's ``D``, ``K``, ``mu_coulomb``, ``mu_viscous``) are not URDF and are
  ignored.

Refused: floating and planar joints, a link that is the child of two joints (a closed loop),
several roots, a base or tip that is no link, a tip that does not descend from the base,
negative masses, inertias that are not positive semidefinite, numbers that are not finite, a
zero joint axis. Massless moving links are legal.

The sidecar (``NAME.urdf.toml`` beside ``NAME.urdf``, or ``NAME.urdf.xacro``) supplies what URDF
lacks, in TOML::

    acceleration_limit = 10.0     # every chain joint's |qdd| bound
    velocity_limit = 2.0          # tightens every chain joint's URDF velocity limit
    torque_limit = 80.0           # tightens every chain joint's URDF effort limit
    armature = 0.0                # every chain joint's rotor inertia
    gravity = [0.0, 0.0, -9.81]   # in the base link's frame
    base = "LINK"                 # the chain's base and tip links when --base and --tip
    tip = "LINK"                  #   are not given
    [joint.NAME]                  # one joint (URDF names): its acceleration_limit,
    armature = 0.1                #   velocity_limit, torque_limit and armature, and for a
    position = 0.02               #   joint off the chain, the position it is locked at

A velocity or torque limit may only tighten the URDF's (``<limit velocity effort>``; an effort
of 0, which exporters write for "not given", is none); a locked position must lie within the
joint's limits. A joint's acceleration limit is the sidecar's, else the URDF's own (URDF 1.2's
``<limit acceleration="...">``, or Drake's ``drake:acceleration`` attribute), else
:data:`DEFAULT_ACCELERATION_LIMIT`, with a :class:`RobotFileWarning` naming the joints (the
dynamics hardware sizes its formats from it; a state beyond it comes out flagged out of
bounds).
"""

import functools
import math
import pathlib
import warnings

import numpy as np

from robohw.robots.chain import Chain, ChainJoint, Placement, inertia_matrix3, inertia_six
from robohw.robots.description import DEFAULT_GRAVITY, RobotFileError, RobotFileWarning
from robohw.robots.joint_type import JointType
from robohw.robots.toml_file import TOLERANCE, inertia_tensor
from robohw.robots.urdf_sidecar import read_sidecar, sidecar_path, tightened_limit
from robohw.robots.xml_file import read_xml

__all__ = ["load_urdf", "URDF_SUFFIXES", "DEFAULT_ACCELERATION_LIMIT"]

# A chain joint's |qdd| bound (rad/s^2, m/s^2) when no sidecar gives one: the bound the shipped
# UR5's sidecar takes (MoveIt's configurations of the UR arms, for time parametrization).
DEFAULT_ACCELERATION_LIMIT = 10.0

URDF_SUFFIXES = (".urdf", ".xacro")
_MOVING = ("revolute", "continuous", "prismatic")


class _Reader:
    """Checked values of one file's elements, every failure one line naming the file, the
    element and the field."""

    def __init__(self, path):
        self.path = path

    def fail(self, where, message):
        raise RobotFileError(f"{self.path}: {where}: {message}")

    def number(self, text, where, field):
        try:
            value = float(text)
        except (TypeError, ValueError):
            self.fail(where, f"{field}: expected a number, not {text!r}")
        if not math.isfinite(value):
            self.fail(where, f"{field}: expected a finite number, not {text!r}")
        return value

    def vector(self, text, where, field, default=(0.0, 0.0, 0.0)):
        if text is None:
            return default
        parts = text.split()
        if len(parts) != 3:
            self.fail(where, f"{field}: expected 3 numbers, not {text!r}")
        return tuple(self.number(p, where, field) for p in parts)

    def origin(self, element, where):
        origin = element.find("origin")
        if origin is None:
            return Placement()
        return Placement.from_xyz_rpy(self.vector(origin.get("xyz"), where, "origin xyz"),
                                      self.vector(origin.get("rpy"), where, "origin rpy"))

    def inertial(self, link):
        """``(mass, com, tensor)`` of a link in its frame (``None``: no ``<inertial>``)."""
        where = f"link {link.get('name')}"
        inertial = link.find("inertial")
        if inertial is None:
            return None
        mass_element = inertial.find("mass")
        if mass_element is None:
            self.fail(where, "inertial: mass: missing")
        mass = self.number(mass_element.get("value"), where, "mass")
        if mass < 0:
            self.fail(where, f"mass: must not be negative, not {mass:g}")
        placement = self.origin(inertial, where + " inertial")
        element = inertial.find("inertia")
        names = ("ixx", "iyy", "izz", "ixy", "iyz", "ixz")
        if element is None:
            if mass > 0:
                self.fail(where, "inertial: inertia: missing")
            values = (0.0,) * 6
        else:
            values = tuple(self.number(element.get(n, "0"), where, f"inertia {n}")
                           for n in names)
        inertia_tensor(values, f"{self.path}: {where}", "inertia", RobotFileError, None)
        rot = np.array(placement.rotation)
        return mass, np.array(placement.translation), rot @ inertia_matrix3(values) @ rot.T


class _Joint:
    """One ``<joint>`` as read: name, type, parent and child links, placement, axis, limits,
    dynamics and mimic."""

    def __init__(self, element, reader):
        self.name = element.get("name")
        where = f"joint {self.name}"
        if not self.name:
            reader.fail("joint", "name: missing")
        self.type = element.get("type")
        if self.type in ("floating", "planar"):
            reader.fail(where, f"type: a {self.type} joint is not a joint of a serial arm "
                               f"(revolute, continuous, prismatic or fixed)")
        if self.type not in _MOVING + ("fixed",):
            reader.fail(where, f"type: expected revolute, continuous, prismatic or fixed, not "
                               f"{self.type!r}")
        self.parent, self.child = (self._link(element, side, reader, where)
                                   for side in ("parent", "child"))
        self.placement = reader.origin(element, where)
        axis = np.array(reader.vector((element.find("axis").get("xyz")
                                       if element.find("axis") is not None else None),
                                      where, "axis xyz", (1.0, 0.0, 0.0)))
        length = float(np.linalg.norm(axis))
        if self.type != "fixed" and length < 1e-9:
            reader.fail(where, "axis xyz: a zero axis")
        self.axis = tuple(float(v) for v in axis / length) if length else (1.0, 0.0, 0.0)
        self.limits = self.velocity = self.acceleration = self.effort = None
        limit = element.find("limit")
        if self.type in tuple(JointType):
            if limit is None or limit.get("lower") is None or limit.get("upper") is None:
                reader.fail(where, "limit: lower and upper needed (a revolute joint without "
                                   "limits is continuous)")
        if limit is not None and self.type in _MOVING:
            if self.type != "continuous":
                lower, upper = (reader.number(limit.get(side), where, f"limit {side}")
                                for side in ("lower", "upper"))
                if not lower < upper:
                    reader.fail(where, f"limit: lower {lower:g} must be below upper {upper:g}")
                self.limits = (lower, upper)
            if limit.get("velocity") is not None:
                self.velocity = reader.number(limit.get("velocity"), where, "limit velocity")
                if self.velocity <= 0:
                    reader.fail(where, f"limit velocity: must be positive, not "
                                       f"{self.velocity:g}")
            if limit.get("effort") is not None:
                effort = reader.number(limit.get("effort"), where, "limit effort")
                if effort < 0:
                    reader.fail(where, f"limit effort: must not be negative, not {effort:g}")
                self.effort = effort or None         # 0: exporters' "not given"
            # URDF 1.2's acceleration, or Drake's drake:acceleration (a namespaced attribute,
            # {namespace}acceleration once parsed).
            name = next((k for k in limit.keys()
                         if k == "acceleration" or k.endswith("}acceleration")), None)
            if name is not None:
                self.acceleration = reader.number(limit.get(name), where, "limit acceleration")
                if self.acceleration <= 0:
                    reader.fail(where, f"limit acceleration: must be positive, not "
                                       f"{self.acceleration:g}")
        dynamics = element.find("dynamics")
        self.damping = self.friction = 0.0
        if dynamics is not None:
            self.damping, self.friction = (
                reader.number(dynamics.get(n, "0"), where, f"dynamics {n}")
                for n in ("damping", "friction"))
            for n, value in (("damping", self.damping), ("friction", self.friction)):
                if value < 0:
                    reader.fail(where, f"dynamics {n}: must not be negative, not {value:g}")
        mimic = element.find("mimic")
        self.mimic = None
        if mimic is not None:
            self.mimic = (mimic.get("joint"),
                          reader.number(mimic.get("multiplier", "1"), where, "mimic multiplier"),
                          reader.number(mimic.get("offset", "0"), where, "mimic offset"))

    @staticmethod
    def _link(element, side, reader, where):
        found = element.find(side)
        if found is None or not found.get("link"):
            reader.fail(where, f"{side}: missing")
        return found.get("link")

    @property
    def moving(self):
        return self.type in _MOVING

    def motion(self, value):
        """The placement of the child frame after the motion by ``value``."""
        if self.type == JointType.PRISMATIC:
            move = Placement(translation=tuple(float(value) * v for v in self.axis))
        else:
            move = Placement.about(self.axis, value)
        return self.placement.then(move)


class _Body:
    """Mass, centre of mass and inertia about it, summed in one frame."""

    def __init__(self, inertial=None):
        self.mass, self.com, self.inertia = 0.0, np.zeros(3), np.zeros((3, 3))
        # Whether some link of the body has an <inertial>, massless or not.
        self.declared = inertial is not None
        if inertial is not None:
            self.mass, self.com, self.inertia = inertial

    def add(self, other, placement):
        """Add ``other`` (a :class:`_Body` in a frame placed at ``placement`` in this one's)."""
        self.declared |= other.declared
        if other.mass == 0 and not other.inertia.any():
            return
        rot = np.array(placement.rotation)
        com = rot @ other.com + placement.translation
        inertia = rot @ other.inertia @ rot.T
        mass = self.mass + other.mass
        centre = (self.mass * self.com + other.mass * com) / mass if mass > 0 else self.com
        total = np.zeros((3, 3))
        for m, c, i in ((self.mass, self.com, self.inertia), (other.mass, com, inertia)):
            d = c - centre
            total += i + m * (d @ d * np.eye(3) - np.outer(d, d))
        self.mass, self.com, self.inertia = mass, centre, total


def load_urdf(path, *, base=None, tip=None):
    """The :class:`Chain` of the URDF (or xacro) file ``path`` from link ``base`` (default: the
    root) to link ``tip`` (default: see the module docstring), with its sidecar's additions."""
    path = pathlib.Path(path)
    root = read_xml(path)
    reader = _Reader(path)
    tree = _Tree(root, reader)
    top, per_joint = read_sidecar(path, tree.joints)
    base, tip = _ends(path, tree, top, base, tip)
    if tip is None:
        tip = _default_tip(path, base, tree.below, functools.partial(tree.path_to, base),
                           tree.joints, tree.parent_of, tree.children)
    chain_path = tree.path_to(base, tip)
    if chain_path is None:
        raise RobotFileError(f"{path}: --tip {tip}: not a descendant of the base link {base}")
    _check_chain(path, reader, chain_path, tree.joints, per_joint)
    locks = _Locks(path, reader, tree.joints, per_joint, {j.name for j in chain_path})
    segments = _segments(path, reader, tree, chain_path, locks, base, tip)
    chain_joints, bare, assumed = _chain_joints(path, segments, top, per_joint)
    for joint in tree.joints.values():      # every movable joint off the chain, held
        if joint.moving and joint.name not in locks.on_chain and \
                joint.child in set(tree.below(base)):
            locks.position(joint)
    if bare:
        warnings.warn(f"{path}: no <inertial> on the links moved by joints {', '.join(bare)}: "
                      f"taken as massless", RobotFileWarning, stacklevel=3)
    if assumed:
        warnings.warn(f"{path}: no acceleration_limit for joints {', '.join(assumed)}: taking "
                      f"{DEFAULT_ACCELERATION_LIMIT:g} per second squared, which the dynamics "
                      f"hardware is sized for (give them as <limit acceleration> or in its sidecar "
                      f"{sidecar_path(path)})",
                      RobotFileWarning, stacklevel=3)
    pending = segments[-1]["tip"]
    return Chain(name=root.get("name") or path.stem, joints=tuple(chain_joints), tip=pending,
                 gravity=tuple(top.get("gravity", DEFAULT_GRAVITY)), source=str(path),
                 base_link=base, tip_link=tip,
                 locked=tuple(sorted((name, value) for name, value in locks.locked.items())))


class _Tree:
    """A URDF's links and joints as one tree, checked: every name once, every joint between
    links that exist, one root, no closed loop."""

    def __init__(self, root, reader):
        self.links = {}
        for element in root.findall("link"):
            name = element.get("name")
            if not name:
                reader.fail("link", "name: missing")
            if name in self.links:
                reader.fail(f"link {name}", "defined twice")
            self.links[name] = element
        self.joints, self.parent_of = {}, {}
        for element in root.findall("joint"):
            self._add(_Joint(element, reader), reader)
        if not self.links:
            reader.fail("robot", "no links")
        roots = [name for name in self.links if name not in self.parent_of]
        if len(roots) != 1:
            reader.fail("robot", f"{len(roots)} root links ({', '.join(roots) or 'none'}): one "
                                 f"tree of links is needed (a closed loop, or several robots)")
        self.root = roots[0]
        self.children = {name: [] for name in self.links}
        for joint in self.joints.values():
            self.children[joint.parent].append(joint)
        reached = set(self.below(self.root))
        if len(reached) != len(self.links):
            stray = sorted(set(self.links) - reached)[0]
            reader.fail(f"link {stray}", "not reached from the root: a closed loop")

    def _add(self, joint, reader):
        if joint.name in self.joints:
            reader.fail(f"joint {joint.name}", "defined twice")
        for side in (joint.parent, joint.child):
            if side not in self.links:
                reader.fail(f"joint {joint.name}", f"no link named {side!r}")
        if joint.child in self.parent_of:
            reader.fail(f"link {joint.child}", f"the child of joints "
                                               f"{self.parent_of[joint.child].name} and "
                                               f"{joint.name}: a closed loop is not a serial "
                                               f"chain")
        self.joints[joint.name] = joint
        self.parent_of[joint.child] = joint

    def below(self, link):
        """``link`` and every link below it."""
        out, todo = [], [link]
        while todo:
            here = todo.pop()
            out.append(here)
            todo.extend(j.child for j in self.children[here])
        return out

    def path_to(self, base, link):
        """The joints from ``base`` down to ``link`` (``None``: not below it)."""
        out = []
        while link != base:
            if link not in self.parent_of:
                return None
            out.append(self.parent_of[link])
            link = self.parent_of[link].parent
        return out[::-1]


def _ends(path, tree, top, base, tip):
    """``(base, tip)``: the options', else the sidecar's, else the root and ``None``; each a
    link of the file."""
    given = {"--base": base, "--tip": tip}
    base, tip = base or top.get("base") or tree.root, tip or top.get("tip")
    for option, name in (("--base", base), ("--tip", tip)):
        if name is not None and name not in tree.links:
            where = f"{path}: {option}" if given[option] else \
                f"{sidecar_path(path)}: {option.lstrip('-')}"
            raise RobotFileError(f"{where} {name}: no such link (links: "
                                 f"{', '.join(tree.links)})")
    return base, tip


def _check_chain(path, reader, chain_path, joints, per_joint):
    """Refuse a mimic joint on the chain and a sidecar position of a joint that is not a
    movable one off it."""
    on_chain = {j.name for j in chain_path}
    for joint in chain_path:
        if joint.mimic is not None:
            reader.fail(f"joint {joint.name}", f"mimic: a mimic joint on the chain (it follows "
                                               f"{joint.mimic[0]}) is not supported")
    for name, table in per_joint.items():
        if "position" in table and (name in on_chain or not joints[name].moving):
            raise RobotFileError(f"{sidecar_path(path)}: joint {name}: position: only a "
                                 f"movable joint off the chain is locked at a position")


class _Locks:
    """The positions of the movable joints off the chain: the sidecar's, a mimic joint's from
    the joint it follows, else 0; each within its limits."""

    def __init__(self, path, reader, joints, per_joint, on_chain):
        self.path, self.reader, self.joints = path, reader, joints
        self.per_joint, self.on_chain = per_joint, on_chain
        self.locked = {}

    def position(self, joint):
        if joint.name in self.locked:
            return self.locked[joint.name]
        value = self.per_joint.get(joint.name, {}).get("position")
        if value is None and joint.mimic is not None:
            master = self.joints.get(joint.mimic[0])
            if master is None:
                self.reader.fail(f"joint {joint.name}",
                                 f"mimic: no joint named {joint.mimic[0]!r}")
            if master.name in self.on_chain:
                self.reader.fail(f"joint {joint.name}", f"mimic: follows chain joint "
                                                        f"{master.name}: a mimic joint on the "
                                                        f"chain is not supported")
            value = joint.mimic[1] * self.position(master) + joint.mimic[2]
        value = 0.0 if value is None else value
        if joint.limits is not None and not (joint.limits[0] - TOLERANCE <= value
                                             <= joint.limits[1] + TOLERANCE):
            sidecar = joint.name in self.per_joint
            where = (f"{sidecar_path(self.path)}: joint {joint.name}: position" if sidecar
                     else f"{self.path}: joint {joint.name}")
            raise RobotFileError(f"{where}: locked at {value:g}, outside its limits "
                                 f"[{joint.limits[0]:g}, {joint.limits[1]:g}]"
                                 + ("" if sidecar else " (give its position in the sidecar)"))
        self.locked[joint.name] = value
        return value


def _segments(path, reader, tree, chain_path, locks, base, tip):
    """The chain's moving joints, each ``{"joint", "placement", "body"}``: its placement from
    the moving joint before (fixed joints between merged), the body it moves (every subtree
    hanging from its links merged, locked joints at their positions); the last has ``"tip"``
    too, the placement of the tip link from it."""

    def hanging(link, skip):
        """The body of ``link`` with every subtree hanging from it but ``skip`` (a joint
        name) merged, in ``link``'s frame."""
        body = _Body(reader.inertial(tree.links[link]))
        for joint in tree.children[link]:
            if joint.name == skip:
                continue
            placement = joint.placement if not joint.moving else \
                joint.motion(locks.position(joint))
            body.add(hanging(joint.child, None), placement)
        return body

    if not any(j.moving for j in chain_path):
        raise RobotFileError(f"{path}: no movable joint between {base} and {tip}")
    out, pending = [], Placement()
    next_on_path = {j.parent: j.name for j in chain_path}
    for joint in chain_path:
        if joint.moving:
            out.append({"joint": joint, "placement": pending.then(joint.placement),
                        "body": _Body()})
            pending, frame = Placement(), Placement()
        else:
            pending = pending.then(joint.placement)
            frame = pending
        if out:
            out[-1]["body"].add(hanging(joint.child, next_on_path.get(joint.child)), frame)
    out[-1]["tip"] = pending
    return out


def _chain_joints(path, segments, top, per_joint):
    """``(joints, bare, assumed)``: the chain's :class:`ChainJoint`\\ s, with the sidecar's
    settings; the moving joints whose links have no ``<inertial>`` (none where none has one:
    the chain has no dynamics; else those links are massless) and those given
    :data:`DEFAULT_ACCELERATION_LIMIT`."""
    bare = [item["joint"].name for item in segments if not item["body"].declared]
    inertial = len(bare) < len(segments)
    joints, assumed = [], []
    for item in segments:
        joint, body = item["joint"], item["body"]
        settings = {**{k: v for k, v in top.items() if k != "gravity"},
                    **per_joint.get(joint.name, {})}
        # The sidecar's acceleration limit, else the URDF's, else the default (with a warning).
        acceleration = settings.get("acceleration_limit", joint.acceleration)
        if acceleration is None:
            assumed.append(joint.name)
            acceleration = DEFAULT_ACCELERATION_LIMIT
        velocity, torque = (tightened_limit(path, joint.name, field, settings, urdf)
                            for field, urdf in (("velocity_limit", joint.velocity),
                                                ("torque_limit", joint.effort)))
        joints.append(ChainJoint(
            name=joint.name,
            type=JointType.PRISMATIC if joint.type == JointType.PRISMATIC else JointType.REVOLUTE,
            placement=item["placement"], axis=joint.axis, limits=joint.limits,
            velocity_limit=velocity, acceleration_limit=acceleration, torque_limit=torque,
            mass=float(body.mass) if inertial else None,
            com=tuple(float(v) for v in body.com) if inertial else None,
            inertia=inertia_six(body.inertia) if inertial else None,
            armature=settings.get("armature", 0.0), damping=joint.damping,
            friction=joint.friction))
    return joints, bare if inertial else [], assumed


def _default_tip(path, base, below, path_to, joints, parent_of, children):
    """The tip when none is given: the child of the last movable joint, when every movable
    joint below ``base`` lies on one branch; the link where the branches part, when the chain
    to it holds more movable joints than any branch past it (a hand's fingers, then locked);
    else refused with the candidates."""
    ends = [j.child for j in joints.values() if j.moving and path_to(j.child) is not None]
    if not ends:
        raise RobotFileError(f"{path}: no movable joint below the base link {base}")
    deepest = max(ends, key=lambda link: len(path_to(link)))
    on_branch = {j.child for j in path_to(deepest)}
    if all(end in on_branch for end in ends):
        return deepest
    # The link every end descends from, deepest: the common path of the ends no other end
    # descends from, then its last child.
    above = {j.child for end in ends for j in path_to(end)[:-1]}
    paths = [path_to(end) for end in ends if end not in above]
    common = 0
    while all(len(p) > common and p[common] is paths[0][common] for p in paths):
        common += 1
    fork = paths[0][common - 1].child if common else base
    before = sum(j.moving for j in paths[0][:common])
    past = {}
    for joint_path in (p for p in paths if len(p) > common):
        branch = joint_path[common].name
        past[branch] = max(past.get(branch, 0), sum(j.moving for j in joint_path[common:]))
    if before > max(past.values()):
        locked = sorted(j.name for j in joints.values()
                        if j.moving and j.child != fork and j.child in below(fork))
        warnings.warn(f"{path}: movable joints on several branches: the tip is {fork}, where "
                      f"they part ({', '.join(locked)} locked; --tip LINK for another)",
                      RobotFileWarning, stacklevel=4)
        return fork
    # Several branches: the leaves below a movable joint, and the links where they part.
    leaves = sorted({leaf for end in ends for leaf in below(end) if not children[leaf]})
    forks = sorted({link for link in below(base)
                    if sum(any(e in below(j.child) for e in ends) for j in children[link]) > 1})
    raise RobotFileError(f"{path}: movable joints on several branches: give --tip LINK, one of "
                         f"{', '.join(forks + [leaf for leaf in leaves if leaf not in forks])}")
