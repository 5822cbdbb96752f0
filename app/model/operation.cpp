#include "model/operation.h"

#include <map>

#include "base/errors.h"
#include "model/op_context.h"

namespace kl {

int64_t Problem::size(const std::string& axis) const {
    auto it = sizes.find(axis);
    if (it == sizes.end()) throw InputError("problem has no size axis '" + axis + "'");
    return it->second;
}

std::string Problem::describe() const {
    std::string s;
    for (const auto& [k, v] : sizes) s += k + "=" + std::to_string(v) + " ";
    return s + to_string(dtype);
}

void Operation::make_inputs(const Problem& p, OpContext& gpu, uint64_t seed) const {
    uint64_t stream = 0;
    for (const auto& b : buffers(p))
        if (b.role == BufferDecl::Role::Input) gpu.fill_uniform(gpu.buffer(b.name), seed * 1000003u + (++stream));
}

Tolerance Operation::tolerance_of(const Problem& p, const std::string&) const { return tolerance(p); }

std::pair<int64_t, int64_t> Operation::output_shape(const Problem&, const std::string&) const { return {0, 0}; }

namespace {
std::map<std::string, OperationFactory>& registry() {
    static std::map<std::string, OperationFactory> r;
    return r;
}
std::map<std::string, std::unique_ptr<Operation>>& instances() {
    static std::map<std::string, std::unique_ptr<Operation>> r;
    return r;
}
}  // namespace

bool register_operation(const std::string& name, OperationFactory factory) {
    registry()[name] = std::move(factory);
    return true;
}

const Operation* find_operation(const std::string& name) {
    auto& inst = instances();
    auto it = inst.find(name);
    if (it != inst.end()) return it->second.get();
    auto f = registry().find(name);
    if (f == registry().end()) return nullptr;
    return (inst[name] = f->second()).get();
}

std::vector<std::string> operation_names() {
    std::vector<std::string> out;
    for (const auto& [k, v] : registry()) out.push_back(k);
    return out;
}

}  // namespace kl
