// The compiled backend's stream driver (robohw.sim.compiled): one C function that clocks a
// compiled model of a component with an `i` and an `o` stream through a whole workload, with
// the semantics of robohw.sim.harness.run_stream, so transfers fall on the same cycles.
//
// The build includes the simulator's adapter first (cxxrtl_model.h or verilator_model.h, with
// the generated model): a class `Model` that sets and reads the stream ports, moves the clock
// and writes waveforms. Payloads are flat words, 32 bits each, low word first, as both
// simulators store them.
#include <cstdint>
#include <memory>

extern "C" {

// Words of each payload, for the caller's check of its buffers.
uint64_t robohw_input_words() { return Model::input_words; }
uint64_t robohw_output_words() { return Model::output_words; }

// robohw_run's answer when one evaluation did not settle the combinational logic (a
// combinational loop: not in a design of ours).
const uint64_t UNSETTLED = ~uint64_t(0);

// Run `count` payloads through the design. In every cycle: a new payload is offered when none
// is and source_pattern[cycle % source_length] is set (once offered it stays valid until
// taken); o.ready is sink_pattern[cycle % sink_length]; the combinational outputs settle, the
// transfers are recorded, then the clock rises. Returns the results received (count, or fewer
// if max_cycles ran out first, UNSETTLED if the logic did not settle); *cycles gets the
// cycles simulated. With a vcd path (a model built for waveforms), every signal the model
// exposes is written there (a 10 ns clock, as robohw.sim.harness's).
uint64_t robohw_run(const uint32_t *inputs, uint64_t count,
                    const uint8_t *source_pattern, uint64_t source_length,
                    const uint8_t *sink_pattern, uint64_t sink_length,
                    uint32_t *outputs, uint64_t *input_cycles, uint64_t *output_cycles,
                    uint64_t max_cycles, uint64_t *cycles, const char *vcd_path) {
	// On the heap: a large design's model (its memories) outgrows a thread's stack.
	auto model = std::make_unique<Model>(vcd_path && *vcd_path ? vcd_path : nullptr);
	uint64_t pending = 0, received = 0, cycle = 0;
	bool offering = false;
	for (; cycle < max_cycles && received < count; cycle++) {
		if (!offering && pending < count && source_pattern[cycle % source_length]) {
			offering = true;
			model->load(inputs + pending * Model::input_words);
		}
		const bool ready = sink_pattern[cycle % sink_length];
		if (!model->settle(offering, ready, 10 * cycle)) {
			*cycles = cycle;
			return UNSETTLED;
		}
		if (offering && model->input_ready()) {
			input_cycles[pending++] = cycle;
			offering = false;
		}
		if (ready && model->output_valid()) {
			model->store(outputs + received * Model::output_words);
			output_cycles[received++] = cycle;
		}
		model->rise(10 * cycle + 5);
	}
	*cycles = cycle;
	return received;
}

// A session: one model kept between calls (robohw.sim.compiled.CompiledSession), so that a
// caller can answer what the design gives (a host waiting for replies) before offering more.
struct Session {
	std::unique_ptr<Model> model;
	uint64_t cycle = 0;
	bool offering = false;
};

void *robohw_session_new(const char *vcd_path) {
	auto session = new Session;
	session->model = std::make_unique<Model>(vcd_path && *vcd_path ? vcd_path : nullptr);
	return session;
}

void robohw_session_free(void *session) { delete static_cast<Session *>(session); }

// Go on clocking the session's model with o.ready high: offer `count` inputs in order (each
// valid until taken; the first is the one a previous call left offered, if any), record each
// output, and stop once `want` outputs came, once `quiet` cycles passed without one, or at
// max_cycles cycles of this call. Returns the outputs received (UNSETTLED if the logic did not
// settle); *taken gets the inputs taken, *cycles the session's cycles so far.
uint64_t robohw_session_run(void *handle, const uint32_t *inputs, uint64_t count,
                            uint64_t *taken, uint32_t *outputs, uint64_t want,
                            uint64_t quiet, uint64_t max_cycles, uint64_t *cycles) {
	auto session = static_cast<Session *>(handle);
	auto &model = session->model;
	uint64_t pending = 0, received = 0, silent = 0;
	for (uint64_t step = 0; step < max_cycles && received < want && silent < quiet; step++) {
		const uint64_t cycle = session->cycle++;
		if (!session->offering && pending < count) {
			session->offering = true;
			model->load(inputs + pending * Model::input_words);
		}
		if (!model->settle(session->offering, true, 10 * cycle)) {
			*taken = pending;
			*cycles = session->cycle;
			return UNSETTLED;
		}
		if (session->offering && model->input_ready()) {
			pending++;
			session->offering = false;
		}
		silent++;
		if (model->output_valid()) {
			model->store(outputs + received++ * Model::output_words);
			silent = 0;
		}
		model->rise(10 * cycle + 5);
	}
	*taken = pending;
	*cycles = session->cycle;
	return received;
}

}  // extern "C"
