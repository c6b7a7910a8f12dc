// The compiled backend's adapter for Verilator (see driver.cc): the model `verilator --cc`
// generates from the exported Verilog (Vtop.h; Verilator spells the ports' "__" "___05F")
// behind the interface driver.cc uses.
#include <cstring>
#include <memory>
#include "Vtop.h"
#include "verilated.h"
#ifdef ROBOHW_TRACE
#include "verilated_vcd_c.h"
#endif

class Model {
	std::unique_ptr<VerilatedContext> context{new VerilatedContext};
	std::unique_ptr<Vtop> top{new Vtop{context.get()}};
#ifdef ROBOHW_TRACE
	std::unique_ptr<VerilatedVcdC> vcd;
#endif

	void sample(uint64_t time) {
#ifdef ROBOHW_TRACE
		if (vcd)
			vcd->dump(time);
#endif
	}

public:
	// A port of up to 64 bits is one integer, a wider one an array of 32-bit words.
	static constexpr uint64_t input_words = (sizeof(Vtop::i___05Fpayload) + 3) / 4;
	static constexpr uint64_t output_words = (sizeof(Vtop::o___05Fpayload) + 3) / 4;

	explicit Model(const char *vcd_path) {
		top->rst = 0;
#ifdef ROBOHW_TRACE
		if (vcd_path) {
			context->traceEverOn(true);
			vcd.reset(new VerilatedVcdC);
			top->trace(vcd.get(), 99);
			vcd->open(vcd_path);
		}
#endif
	}
	~Model() {
#ifdef ROBOHW_TRACE
		if (vcd)
			vcd->close();
#endif
		top->final();
	}

	// Little-endian: the low bytes of the words are the port's value.
	void load(const uint32_t *words) {
		std::memcpy(&top->i___05Fpayload, words, sizeof(top->i___05Fpayload));
	}
	void store(uint32_t *words) const {
		std::memset(words, 0, output_words * 4);
		std::memcpy(words, &top->o___05Fpayload, sizeof(top->o___05Fpayload));
	}
	bool input_ready() const { return top->i___05Fready; }
	bool output_valid() const { return top->o___05Fvalid; }

	bool settle(bool valid, bool ready, uint64_t time) {
		top->i___05Fvalid = valid;
		top->o___05Fready = ready;
		top->clk = 0;
		top->eval();
		sample(time);
		return true;
	}

	void rise(uint64_t time) {
		top->clk = 1;
		top->eval();
		sample(time);
	}
};
