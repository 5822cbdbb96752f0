#include "model/ptx_instrument.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>

#include "base/errors.h"

namespace kl {

namespace {

std::string trimmed_ptx(const std::string& s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string::npos) return "";
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

std::vector<std::string> split_ptx_lines(const std::string& text) {
    std::vector<std::string> lines;
    std::string line;
    std::istringstream in(text);
    while (std::getline(in, line)) lines.push_back(line);
    return lines;
}

std::vector<std::string> dotted_parts(const std::string& opcode) {
    std::vector<std::string> parts;
    std::string part;
    std::istringstream in(opcode);
    while (std::getline(in, part, '.')) parts.push_back(part);
    return parts;
}

// One instruction line: an optional guard (@%p, @!%p), the opcode, the operands.
struct PtxInstruction {
    std::string guard;  // "%p3", or "" when unguarded
    bool guard_negated = false;
    std::string opcode;
    std::string operands;
};

bool parse_instruction(const std::string& line, PtxInstruction* out) {
    std::string t = trimmed_ptx(line);
    if (t.empty() || t[0] == '.' || t[0] == '/' || t[0] == '{' || t[0] == '}' || t[0] == '$') return false;
    if (t.back() != ';') return false;
    t.pop_back();
    if (t[0] == '@') {
        size_t sp = t.find_first_of(" \t");
        if (sp == std::string::npos) return false;
        std::string g = t.substr(1, sp - 1);
        out->guard_negated = !g.empty() && g[0] == '!';
        out->guard = out->guard_negated ? g.substr(1) : g;
        t = trimmed_ptx(t.substr(sp));
    }
    size_t sp = t.find_first_of(" \t");
    out->opcode = sp == std::string::npos ? t : t.substr(0, sp);
    out->operands = sp == std::string::npos ? "" : trimmed_ptx(t.substr(sp));
    return true;
}

// Bytes of one element of a PTX type suffix, 0 when the part is not a type.
int ptx_type_bytes(const std::string& p) {
    static const std::map<std::string, int> sizes = {{"b8", 1},  {"u8", 1},  {"s8", 1},    {"b16", 2},    {"u16", 2},
                                                     {"s16", 2}, {"f16", 2}, {"bf16", 2},  {"b32", 4},    {"u32", 4},
                                                     {"s32", 4}, {"f32", 4}, {"f16x2", 4}, {"bf16x2", 4}, {"b64", 8},
                                                     {"u64", 8}, {"s64", 8}, {"f64", 8},   {"b128", 16}};
    auto it = sizes.find(p);
    return it == sizes.end() ? 0 : it->second;
}

// Why an instruction that touches memory is left out, "" when it is not such an instruction.
std::string untraced_kind(const std::string& opcode) {
    auto starts = [&](const char* p) { return opcode.rfind(p, 0) == 0; };
    if (starts("cp.async") || starts("cp.reduce.async")) return "asynchronous copy";
    if (starts("wgmma.mma_async") || starts("tcgen05.mma") || starts("tcgen05.cp")) return "tensor-core operand access";
    if (starts("ldmatrix") || starts("stmatrix")) return "matrix load/store";
    if ((starts("atom.") || starts("red.")) &&
        (opcode.find(".global") != std::string::npos || opcode.find(".shared") != std::string::npos))
        return "atomic";
    return "";
}

// A traced access: what it is, or why it is not traced (`why`), or neither (not a memory access
// of interest: param, local, const, or not a load or store at all).
struct AccessKind {
    bool access = false;
    bool store = false, shared = false;
    int bytes = 0;
    std::string why;
};

AccessKind classify_access(const std::string& opcode) {
    AccessKind k;
    k.why = untraced_kind(opcode);
    if (!k.why.empty()) return k;
    const std::vector<std::string> parts = dotted_parts(opcode);
    if (parts.empty() || (parts[0] != "ld" && parts[0] != "ldu" && parts[0] != "st")) return k;
    bool global = false, shared = false, other_space = false;
    int elem = 0, width = 1;
    for (size_t i = 1; i < parts.size(); ++i) {
        const std::string& p = parts[i];
        if (p == "global") global = true;
        if (p == "shared" || p == "shared::cta") shared = true;
        if (p == "shared::cluster") return AccessKind{false, false, false, 0, "distributed shared memory (::cluster)"};
        if (p == "param" || p == "local" || p == "const" || p.rfind("param::", 0) == 0) other_space = true;
        if (p == "async" || p == "bulk") return AccessKind{false, false, false, 0, "asynchronous store"};
        if (p == "v2") width = 2;
        if (p == "v4") width = 4;
        if (p == "v8") width = 8;
        if (int b = ptx_type_bytes(p)) elem = b;
    }
    if (other_space) return k;
    if (!global && !shared) return AccessKind{false, false, false, 0, "generic address (no state space)"};
    k.access = true;
    k.store = parts[0] == "st";
    k.shared = shared;
    k.bytes = elem * width;
    if (k.bytes == 0) throw InputError("PTX: no element type in '" + opcode + "'");
    return k;
}

// The address operand [base], [base+off], [base+-off]: base a register or a symbol.
struct AddressOperand {
    std::string base;
    long long offset = 0;
};

AddressOperand parse_address(const std::string& operands, const std::string& line_text) {
    size_t a = operands.find('['), b = operands.find(']');
    if (a == std::string::npos || b == std::string::npos || b < a)
        throw InputError("PTX: no address operand in '" + line_text + "'");
    std::string in = trimmed_ptx(operands.substr(a + 1, b - a - 1));
    AddressOperand op;
    size_t plus = in.find_first_of("+-", 1);
    if (plus != std::string::npos) {
        std::string off = trimmed_ptx(in.substr(plus + (in[plus] == '+' ? 1 : 0)));
        try {
            size_t used = 0;
            op.offset = std::stoll(off, &used, 0);
            if (used != off.size()) throw std::invalid_argument(off);
        } catch (const std::exception&) {
            throw InputError("PTX: address offset '" + off + "' not understood in '" + line_text + "'");
        }
        in = trimmed_ptx(in.substr(0, plus));
    }
    if (in.empty()) throw InputError("PTX: empty address base in '" + line_text + "'");
    op.base = in;
    return op;
}

// Register widths from the entry's .reg declarations: "%rd" -> 64 (from ".reg .b64 %rd<71>;").
void note_register_widths(const std::string& t, std::map<std::string, int>* widths) {
    if (t.rfind(".reg", 0) != 0) return;
    std::istringstream in(t.substr(4));
    std::string type, rest;
    in >> type;
    std::getline(in, rest);
    int bits = 0;
    if (type.size() > 1) bits = ptx_type_bytes(type.substr(1)) * 8;
    if (type == ".pred") bits = 1;
    std::string name;
    for (char c : rest + ",") {
        if (c == ',' || c == ';' || c == '<') {
            name = trimmed_ptx(name);
            if (!name.empty() && bits) (*widths)[name] = bits;
            name.clear();
            if (c == '<') name = "\x01";  // skip the count up to the next separator
            continue;
        }
        if (name != "\x01") name += c;
    }
}

int register_width(const std::string& reg, const std::map<std::string, int>& widths) {
    if (auto it = widths.find(reg); it != widths.end()) return it->second;
    size_t end = reg.size();
    while (end > 1 && std::isdigit(static_cast<unsigned char>(reg[end - 1]))) --end;
    if (auto it = widths.find(reg.substr(0, end)); it != widths.end()) return it->second;
    return 0;
}

std::string entry_name_of(const std::string& t) {
    size_t e = t.find(".entry");
    size_t a = t.find_first_not_of(" \t", e + 6);
    size_t b = t.find_first_of("( \t", a);
    return t.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::string trace_param_name(const std::string& entry) { return entry + "_kl_trace"; }

// Declarations and the once-per-thread decision, placed right after the entry's opening brace.
void emit_trace_prologue(const std::string& entry, std::vector<std::string>* out) {
    const std::string p = trace_param_name(entry);
    const char* lines[] = {"\t// kladder trace: is this thread in the traced warp? (header: block x, y, z, warp)",
                           "\t.reg .pred %kl_on;", "\t.reg .b32 %kl_seq, %kl_lane, %kl_cap, %kl_t<6>;",
                           "\t.reg .b64 %kl_buf;", nullptr};
    for (int i = 0; lines[i]; ++i) out->push_back(lines[i]);
    out->push_back("\tld.param.u64 %kl_buf, [" + p + "];");
    const char* code[] = {"\tcvta.to.global.u64 %kl_buf, %kl_buf;",
                          "\tld.global.u32 %kl_cap, [%kl_buf+4];",
                          "\tld.global.v4.u32 {%kl_t0, %kl_t1, %kl_t2, %kl_t3}, [%kl_buf+16];",
                          "\tmov.u32 %kl_t4, %ctaid.x;",
                          "\tsetp.eq.u32 %kl_on, %kl_t4, %kl_t0;",
                          "\tmov.u32 %kl_t4, %ctaid.y;",
                          "\tsetp.eq.and.u32 %kl_on, %kl_t4, %kl_t1, %kl_on;",
                          "\tmov.u32 %kl_t4, %ctaid.z;",
                          "\tsetp.eq.and.u32 %kl_on, %kl_t4, %kl_t2, %kl_on;",
                          "\tmov.u32 %kl_t4, %tid.z;",
                          "\tmov.u32 %kl_t5, %ntid.y;",
                          "\tmov.u32 %kl_t0, %tid.y;",
                          "\tmad.lo.u32 %kl_t4, %kl_t4, %kl_t5, %kl_t0;",
                          "\tmov.u32 %kl_t5, %ntid.x;",
                          "\tmov.u32 %kl_t0, %tid.x;",
                          "\tmad.lo.u32 %kl_t4, %kl_t4, %kl_t5, %kl_t0;",
                          "\tand.b32 %kl_lane, %kl_t4, 31;",
                          "\tshl.b32 %kl_lane, %kl_lane, 24;",
                          "\tshr.u32 %kl_t4, %kl_t4, 5;",
                          "\tsetp.eq.and.u32 %kl_on, %kl_t4, %kl_t3, %kl_on;",
                          "\tmov.u32 %kl_seq, 0;",
                          nullptr};
    for (int i = 0; code[i]; ++i) out->push_back(code[i]);
}

// The record of one access, placed before the instruction (its address registers are still
// intact there: a load may overwrite them).
void emit_trace_record(const PtxInstruction& ins, const AddressOperand& addr, int addr_bits, int site,
                       std::vector<std::string>* out) {
    const std::string guard =
        ins.guard.empty() ? "" : "@" + std::string(ins.guard_negated ? "!" : "") + ins.guard + " ";
    out->push_back("\t{ // kladder trace: site " + std::to_string(site));
    out->push_back("\t.reg .pred %kl_go;");
    out->push_back("\t.reg .b64 %kl_a, %kl_r;");
    out->push_back("\t.reg .b32 %kl_i, %kl_s;");
    out->push_back("\t" + guard + "add.u32 %kl_seq, %kl_seq, 1;");
    if (ins.guard.empty()) {
        out->push_back("\tmov.pred %kl_go, %kl_on;");
    } else {
        out->push_back(ins.guard_negated ? "\tnot.pred %kl_go, " + ins.guard + ";"
                                         : "\tmov.pred %kl_go, " + ins.guard + ";");
        out->push_back("\tand.pred %kl_go, %kl_go, %kl_on;");
    }
    if (addr.base[0] != '%')
        out->push_back("\tmov.u64 %kl_a, " + addr.base + ";");
    else if (addr_bits == 64)
        out->push_back("\tmov.b64 %kl_a, " + addr.base + ";");
    else
        out->push_back("\tcvt.u64.u32 %kl_a, " + addr.base + ";");
    if (addr.offset != 0) out->push_back("\tadd.s64 %kl_a, %kl_a, " + std::to_string(addr.offset) + ";");
    const char* tail[] = {"\t@%kl_go atom.global.add.u32 %kl_i, [%kl_buf], 1;",
                          "\t@%kl_go setp.lt.u32 %kl_go, %kl_i, %kl_cap;",
                          "\t@%kl_go mul.wide.u32 %kl_r, %kl_i, 16;",
                          "\t@%kl_go add.s64 %kl_r, %kl_r, %kl_buf;",
                          "\t@%kl_go st.global.u64 [%kl_r+32], %kl_a;",
                          "\tand.b32 %kl_i, %kl_seq, 16777215;",
                          "\tor.b32 %kl_i, %kl_i, %kl_lane;",
                          nullptr};
    for (int i = 0; tail[i]; ++i) out->push_back(tail[i]);
    out->push_back("\tmov.u32 %kl_s, " + std::to_string(site) + ";");
    out->push_back("\t@%kl_go st.global.v2.u32 [%kl_r+40], {%kl_s, %kl_i};");
    out->push_back("\t}");
}

struct EntryState {
    std::string name;
    bool in_params = false, in_body = false, in_func = false;
    int depth = 0;
    std::map<std::string, int> widths;
};

// The parameter list: the trace buffer is appended as the last parameter.
bool rewrite_entry_header(const std::string& line, const std::string& t, EntryState& st,
                          std::vector<std::string>* out) {
    if (t.find(".entry") != std::string::npos) {
        st = EntryState{};
        st.name = entry_name_of(t);
        if (size_t e = line.find("()"); e != std::string::npos) {
            out->push_back(line.substr(0, e) + "(");
            out->push_back("\t.param .u64 " + trace_param_name(st.name));
            out->push_back(")" + line.substr(e + 2));
        } else {
            out->push_back(line);
            st.in_params = line.find('(') != std::string::npos;
        }
        return true;
    }
    if (st.in_params && !t.empty() && t[0] == ')') {
        for (auto it = out->rbegin(); it != out->rend(); ++it)
            if (!trimmed_ptx(*it).empty()) {
                if (trimmed_ptx(*it).back() != '(') *it += ",";
                break;
            }
        out->push_back("\t.param .u64 " + trace_param_name(st.name));
        out->push_back(line);
        st.in_params = false;
        return true;
    }
    return false;
}
}  // namespace

InstrumentedPtx instrument_ptx(const std::string& ptx) {
    InstrumentedPtx r;
    std::vector<std::string> out;
    EntryState st;
    const std::vector<std::string> lines = split_ptx_lines(ptx);
    for (size_t n = 0; n < lines.size(); ++n) {
        const std::string& line = lines[n];
        const std::string t = trimmed_ptx(line);
        const std::string where = "line " + std::to_string(n + 1) + ": ";
        const std::string shown = t.size() > 100 ? t.substr(0, 100) + "..." : t;
        if (st.depth == 0 && rewrite_entry_header(line, t, st, &out)) {
            if (std::find(r.entries.begin(), r.entries.end(), st.name) == r.entries.end()) r.entries.push_back(st.name);
            continue;
        }
        if (st.depth == 0 && t.find(".func") != std::string::npos) {
            st = EntryState{};
            st.in_func = true;
        }
        const bool entry_body = !st.name.empty() && !st.in_func;
        const int depth_before = st.depth;
        for (char c : t) {
            if (c == '{') ++st.depth;
            if (c == '}') --st.depth;
        }
        out.push_back(line);
        if (t == "{" && st.depth == 1 && entry_body && !st.in_body) {
            st.in_body = true;
            emit_trace_prologue(st.name, &out);
            continue;
        }
        if (st.depth == 0 && depth_before > 0) st = EntryState{};  // the body ended (a .section's braces follow)
        if (st.depth > 0) note_register_widths(t, &st.widths);
        PtxInstruction ins;
        if (st.depth == 0) continue;
        if (!parse_instruction(line, &ins)) {
            // Inline assembly may put several instructions on one line: said, not guessed at.
            if (t.rfind("//", 0) != 0 &&
                (t.find("ld.global") != std::string::npos || t.find("st.global") != std::string::npos ||
                 t.find("ld.shared") != std::string::npos || t.find("st.shared") != std::string::npos))
                r.not_traced.push_back(where + shown + " (not one instruction on its line)");
            continue;
        }
        const AccessKind k = classify_access(ins.opcode);
        if (!k.why.empty()) r.not_traced.push_back(where + shown + " (" + k.why + ")");
        if (!k.access) continue;
        if (!st.in_body) {
            r.not_traced.push_back(where + shown + " (inside a .func that was not inlined)");
            continue;
        }
        const AddressOperand addr = parse_address(ins.operands, t);
        const int bits = addr.base[0] == '%' ? register_width(addr.base, st.widths) : 64;
        if (bits != 32 && bits != 64) {
            r.not_traced.push_back(where + shown + " (address register of unknown width)");
            continue;
        }
        TracedSite s;
        s.id = static_cast<int>(r.sites.size());
        s.ptx_line = static_cast<int>(n + 1);
        s.entry = st.name;
        s.store = k.store;
        s.shared = k.shared;
        s.bytes = k.bytes;
        s.text = t;
        out.pop_back();  // the record goes before the instruction
        emit_trace_record(ins, addr, bits, s.id, &out);
        out.push_back(line);
        r.sites.push_back(std::move(s));
    }
    if (r.entries.empty()) throw InputError("PTX: no .entry to instrument");
    for (const auto& l : out) r.ptx += l + "\n";
    return r;
}

}  // namespace kl
