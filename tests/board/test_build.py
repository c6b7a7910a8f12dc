"""A bitstream for a board (robohw.flows.board_build; slow: Yosys, nextpnr-ecp5 and ecppack,
about 15 s a seed): the small test design on the ULX3S-85F at 75 MHz packed with its sidecar,
and a clock no seed meets refused with each seed's, no bitstream written."""

import hashlib
import json

import pytest
from affine_design import AffineDesign

from robohw.board.boards import board_target
from robohw.board.core import frame_format_of
from robohw.board.frames import PROTOCOL_VERSION
from robohw.board.top import clock_plan
from robohw.flows.board_build import TOP_NAME, BoardClockMissed, build_board

pytestmark = pytest.mark.slow
ULX3S = board_target("ulx3s-85f")
DIGEST = "0123456789abcdef"


def test_a_design_is_packed_with_its_sidecar(tmp_path):
    design = AffineDesign()
    sidecar = build_board(ULX3S, design, DIGEST, frame_format_of(design), clock_plan(ULX3S),
                          tmp_path, seeds=(1, 2), describe={"name": "affine"})
    assert sidecar == json.loads((tmp_path / f"{TOP_NAME}.json").read_text())
    assert sidecar["clock_met"] and min(sidecar["fmax_by_seed"].values()) >= 75
    assert set(sidecar["fmax_by_seed"]) == {"1", "2"}
    bit = (tmp_path / f"{TOP_NAME}.bit").read_bytes()
    assert sidecar["bitstream"]["sha256"] == hashlib.sha256(bit).hexdigest()
    assert (tmp_path / f"{TOP_NAME}.svf").stat().st_size > 0
    assert str(sidecar["bitstream"]["seed"]) == max(sidecar["fmax_by_seed"],
                                                    key=sidecar["fmax_by_seed"].get)
    assert sidecar["clock"] == {"board_mhz": 25, "clock_mhz": 75,
                                "pll": {"clki_div": 1, "clkfb_div": 3, "clkop_div": 8},
                                "baud": 3_000_000, "divisor": 25, "uart_baud": 3_000_000}
    assert (sidecar["digest"], sidecar["protocol_version"], sidecar["design"]) == \
        (DIGEST, PROTOCOL_VERSION, {"name": "affine"})
    assert sidecar["frames"]["request_bytes"] == frame_format_of(design).request_bytes
    assert sidecar["utilization"]["EHXPLLL"]["used"] == 1


def test_a_clock_no_seed_meets_writes_no_bitstream(tmp_path):
    design = AffineDesign()
    with pytest.raises(BoardClockMissed, match=r"the 300 MHz clock is missed: seed 1 "
                                               r"[0-9.]+ MHz; no bitstream"):
        build_board(ULX3S, design, DIGEST, frame_format_of(design), clock_plan(ULX3S, 300),
                    tmp_path, seeds=(1,))
    assert not (tmp_path / f"{TOP_NAME}.bit").exists()
    assert not json.loads((tmp_path / f"{TOP_NAME}.json").read_text())["clock_met"]
