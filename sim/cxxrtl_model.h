// The compiled backend's adapter for CXXRTL (see driver.cc): the model Yosys' write_cxxrtl
// generates (top.h, class cxxrtl_design::p_top) behind the interface driver.cc uses.
#include <cstring>
#include <fstream>
#include <cxxrtl/cxxrtl_vcd.h>
#include "top.h"

class Model {
	cxxrtl_design::p_top top;
	cxxrtl::vcd_writer vcd;
	std::ofstream vcd_file;

	void sample(uint64_t time) {
		vcd.sample(time);
		vcd_file << vcd.buffer;
		vcd.buffer.clear();
	}

public:
	static constexpr uint64_t input_words = sizeof(cxxrtl_design::p_top::p_i____payload) / 4;
	static constexpr uint64_t output_words = sizeof(cxxrtl_design::p_top::p_o____payload) / 4;

	explicit Model(const char *vcd_path) {
		if (vcd_path) {
			cxxrtl::debug_items items;
			top.debug_info(&items, nullptr, "top ");
			vcd.timescale(1, "ns");
			vcd.add_without_memories(items);
			vcd_file.open(vcd_path);
		}
	}

	// The caller leaves the bits above the port's width zero, as value<> requires.
	void load(const uint32_t *words) {
		std::memcpy(top.p_i____payload.data, words, sizeof(top.p_i____payload.data));
	}
	void store(uint32_t *words) const {
		std::memcpy(words, top.p_o____payload.data, sizeof(top.p_o____payload.data));
	}
	bool input_ready() const { return top.p_i____ready.get<bool>(); }
	bool output_valid() const { return top.p_o____valid.get<bool>(); }

	// The inputs of a cycle, and the combinational logic settled before its rising edge.
	bool settle(bool valid, bool ready, uint64_t time) {
		top.p_i____valid.set<bool>(valid);
		top.p_o____ready.set<bool>(ready);
		if (vcd_file.is_open()) {
			// A falling edge that settles with the new inputs: a waveform with its clock.
			top.p_clk.set<bool>(false);
			top.step();
			sample(time);
			return true;
		}
		// One evaluation a cycle, the rising edge's: eval() computes the combinational logic
		// from the registers and the new inputs (what the driver reads next) and the
		// registers' next values, which only commit() makes current (rise). The falling edge
		// is the previous clock value, set directly. A flattened design without
		// combinational feedback settles in one evaluation.
		top.prev_p_clk.set<bool>(false);
		top.p_clk.set<bool>(true);
		return top.eval();
	}

	void rise(uint64_t time) {
		if (vcd_file.is_open()) {
			top.p_clk.set<bool>(true);
			top.step();
			sample(time);
		} else {
			top.commit();
		}
	}
};
