// The compiled backend's stream driver (robohw.sim.compiled): one C function that clocks a
// CXXRTL model of a component with an `i` and an `o` stream through a whole workload, with the
// semantics of robohw.sim.harness.run_stream, so transfers fall on the same cycles.
//
// The build defines ROBOHW_TOP (the CXXRTL module class) and includes the generated model
// before this file. Payloads are flat words, 32 bits each, low word first, as CXXRTL's value<>
// stores them.
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <cxxrtl/cxxrtl_vcd.h>

namespace {

template<size_t Bits>
void load(cxxrtl::value<Bits> &port, const uint32_t *words) {
	// The caller leaves the bits above the port's width zero, as value<> requires.
	std::memcpy(port.data, words, sizeof(port.data));
}

template<size_t Bits>
void store(const cxxrtl::value<Bits> &port, uint32_t *words) {
	std::memcpy(words, port.data, sizeof(port.data));
}

}  // namespace

extern "C" {

// robohw_run's answer when one evaluation did not settle the combinational logic (a
// combinational loop: not in a design of ours).
const uint64_t UNSETTLED = ~uint64_t(0);

// Words of each payload, for the caller's check of its buffers.
uint64_t robohw_input_words() { return sizeof(ROBOHW_TOP().p_i____payload.data) / 4; }
uint64_t robohw_output_words() { return sizeof(ROBOHW_TOP().p_o____payload.data) / 4; }

// Run `count` payloads through the design. In every cycle: a new payload is offered when none
// is and source_pattern[cycle % source_length] is set (once offered it stays valid until
// taken); o.ready is sink_pattern[cycle % sink_length]; the combinational outputs settle, the
// transfers are recorded, then the clock rises. Returns the results received (count, or fewer
// if max_cycles ran out first, UNSETTLED if the logic did not settle); *cycles gets the
// cycles simulated. With a vcd path, every signal the model exposes is written there (a 10 ns
// clock, as robohw.sim.harness's).
uint64_t robohw_run(const uint32_t *inputs, uint64_t count,
                    const uint8_t *source_pattern, uint64_t source_length,
                    const uint8_t *sink_pattern, uint64_t sink_length,
                    uint32_t *outputs, uint64_t *input_cycles, uint64_t *output_cycles,
                    uint64_t max_cycles, uint64_t *cycles, const char *vcd_path) {
	// On the heap: the model of a large design (its memories) outgrows a thread's stack.
	auto model = std::make_unique<ROBOHW_TOP>();
	ROBOHW_TOP &top = *model;
	const uint64_t in_words = robohw_input_words(), out_words = robohw_output_words();
	cxxrtl::vcd_writer vcd;
	std::ofstream vcd_file;
	if (vcd_path && *vcd_path) {
		cxxrtl::debug_items items;
		top.debug_info(&items, nullptr, "top ");
		vcd.timescale(1, "ns");
		vcd.add_without_memories(items);
		vcd_file.open(vcd_path);
	}
	auto sample = [&](uint64_t time) {
		if (!vcd_file.is_open())
			return;
		vcd.sample(time);
		vcd_file << vcd.buffer;
		vcd.buffer.clear();
	};
	uint64_t pending = 0, received = 0, cycle = 0;
	bool offering = false;
	const bool waves = vcd_file.is_open();
	for (; cycle < max_cycles && received < count; cycle++) {
		if (!offering && pending < count && source_pattern[cycle % source_length]) {
			offering = true;
			load(top.p_i____payload, inputs + pending * in_words);
		}
		top.p_i____valid.set<bool>(offering);
		const bool ready = sink_pattern[cycle % sink_length];
		top.p_o____ready.set<bool>(ready);
		if (waves) {
			// The falling edge settles with the new inputs, then the rising edge: a
			// waveform with its clock.
			top.p_clk.set<bool>(false);
			top.step();
			sample(10 * cycle);
		} else {
			// One evaluation a cycle: the rising edge's. eval() computes the combinational
			// logic from the registers and the new inputs (the outputs read below) and the
			// registers' next values, which only commit() makes current; the falling edge
			// is the previous clock value, set directly.
			top.prev_p_clk.set<bool>(false);
			top.p_clk.set<bool>(true);
			if (!top.eval()) {
				*cycles = cycle;
				return UNSETTLED;
			}
		}
		if (offering && top.p_i____ready.get<bool>()) {
			input_cycles[pending++] = cycle;
			offering = false;
		}
		if (ready && top.p_o____valid.get<bool>()) {
			store(top.p_o____payload, outputs + received * out_words);
			output_cycles[received++] = cycle;
		}
		if (waves) {
			top.p_clk.set<bool>(true);
			top.step();
			sample(10 * cycle + 5);
		} else {
			top.commit();
		}
	}
	*cycles = cycle;
	return received;
}

}  // extern "C"
