#include "gpu/gpu_context.h"

#include <cublas_v2.h>

#include <cstring>

#include "base/paths.h"
#include "gpu/builtins.h"
#include "gpu/cublas_library.h"
#include "gpu/cuda_check.h"
#include "gpu/kernel_cache.h"
#include "model/device_profile.h"

namespace kl {

// [SECTION] Availability and device facts

bool GpuContext::available(std::string* why_not) {
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err == cudaSuccess && count > 0) return true;
    if (why_not) {
        if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
            *why_not = "no CUDA GPU found on this machine";
        else if (err == cudaErrorInsufficientDriver)
            *why_not = "no NVIDIA driver (or one too old for CUDA 13) is installed";
        else
            *why_not = std::string("CUDA is not usable here: ") + cudaGetErrorString(err);
    }
    cudaGetLastError();
    return false;
}

namespace {
DeviceInfo query_device(int ordinal) {
    DeviceInfo d;
    d.ordinal = ordinal;
    cudaDeviceProp p{};
    KL_CUDA_CALL(cudaGetDeviceProperties(&p, ordinal));
    d.name = p.name;
    char uuid[64];
    std::string hexid;
    for (int i = 0; i < 16; ++i) {
        std::snprintf(uuid, sizeof uuid, "%02x", static_cast<unsigned char>(p.uuid.bytes[i]));
        hexid += uuid;
    }
    d.uuid = hexid;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.sm_count = p.multiProcessorCount;
    d.l2_bytes = p.l2CacheSize;
    d.global_mem_bytes = static_cast<int64_t>(p.totalGlobalMem);
    d.smem_per_block_optin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
    d.smem_per_sm = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
    d.mem_bus_bits = p.memoryBusWidth;
    // What the occupancy calculator and the launch check need (occupancy.h); the allocation
    // units are the architecture's, as in cuda_occupancy.h.
    DeviceLimits& l = d.limits;
    fill_arch_constants(l, d.cc());
    l.warp_size = p.warpSize;
    l.max_threads_per_block = p.maxThreadsPerBlock;
    l.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    l.max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    l.regs_per_sm = p.regsPerMultiprocessor;
    l.regs_per_block = p.regsPerBlock;
    l.smem_per_sm = static_cast<int64_t>(p.sharedMemPerMultiprocessor);
    l.smem_per_block = static_cast<int64_t>(p.sharedMemPerBlock);
    l.smem_per_block_optin = static_cast<int64_t>(p.sharedMemPerBlockOptin);
    l.reserved_smem_per_block = static_cast<int64_t>(p.reservedSharedMemPerBlock);
    for (int i = 0; i < 3; ++i) l.max_grid[i] = p.maxGridSize[i], l.max_block[i] = p.maxThreadsDim[i];
    d.has_limits = true;
    // CUDA 13 removed the clock fields from cudaDeviceProp; attributes still report them.
    KL_CUDA_CALL(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, ordinal));
    KL_CUDA_CALL(cudaDeviceGetAttribute(&d.mem_clock_khz, cudaDevAttrMemoryClockRate, ordinal));
    KL_CUDA_CALL(cudaDriverGetVersion(&d.driver_version));
    KL_CUDA_CALL(cudaRuntimeGetVersion(&d.runtime_version));
    return d;
}
}  // namespace

GpuContext::GpuContext(int device) : kernels_(std::make_unique<KernelCache>()) {
    std::string why;
    if (!available(&why)) throw GpuError(why);
    KL_CUDA_CALL(cudaSetDevice(device));
    info_ = query_device(device);
    KL_CUDA_CALL(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

GpuContext::~GpuContext() {
    buffers_.clear();
    kernels_.reset();
    if (cublas_) cublas_library().cublasDestroy(cublas_);
    if (stream_) cudaStreamDestroy(stream_);
}

cublasHandle_t GpuContext::cublas() {
    if (!cublas_) {
        KL_CUBLAS_CALL(cublas_library().cublasCreate(&cublas_));
        KL_CUBLAS_CALL(cublas_library().cublasSetStream(cublas_, stream_));
    }
    return cublas_;
}

// [SECTION] Buffers

DeviceBuffer& GpuContext::buffer(const std::string& name) {
    auto it = buffers_.find(name);
    if (it == buffers_.end()) throw InputError("no buffer named '" + name + "' in the current problem");
    return it->second;
}

DeviceBuffer& GpuContext::add_buffer(const std::string& name, DType dtype, int64_t elements) {
    buffers_.erase(name);
    return buffers_.emplace(name, DeviceBuffer(name, dtype, elements)).first->second;
}

// [SECTION] Helpers

cudaKernel_t GpuContext::helper_kernel(const std::string& file, const std::string& entry,
                                       const std::vector<std::string>& defines) {
    CompileRequest req;
    req.source_path = kernels_dir() + "/" + file;
    req.defines = defines;
    req.arch = info_.arch();
    req.label = file;
    return kernels_->get(req, entry);
}

void GpuContext::launch_kernel(cudaKernel_t kernel, const std::string& what, dim3 grid, dim3 block,
                               std::vector<KernelArg> args, size_t smem_bytes) {
    std::vector<void*> ptrs;
    for (auto& a : args) ptrs.push_back(a.address());
    ScopedContext ctx(what);
    KL_CUDA_CALL(
        cudaLaunchKernel(reinterpret_cast<const void*>(kernel), grid, block, ptrs.data(), smem_bytes, stream_));
}

void GpuContext::launch_helper(const std::string& file, const std::string& entry, dim3 grid, dim3 block,
                               std::vector<KernelArg> args, const std::vector<std::string>& defines,
                               size_t smem_bytes) {
    launch_kernel(helper_kernel(file, entry, defines), "helper " + file + ":" + entry, grid, block, std::move(args),
                  smem_bytes);
}

void GpuContext::fill_uniform(DeviceArray& buf, uint64_t seed, float lo, float hi) {
    if (buf.elements() == 0) return;
    int64_t blocks = std::min<int64_t>((buf.elements() + 255) / 256, int64_t(info_.sm_count) * 32);
    launch_helper("common/fill.cu", "kl_fill_uniform", dim3(static_cast<unsigned>(blocks)), dim3(256),
                  {KernelArg::pointer(buf.data()), KernelArg::i64v(buf.elements()),
                   KernelArg::i64v(static_cast<int64_t>(seed)), KernelArg::f32v(lo), KernelArg::f32v(hi)},
                  {"ELEM=" + dtype_cuda_name(buf.dtype())});
}

void GpuContext::poison(DeviceArray& buf) { KL_CUDA_CALL(cudaMemsetAsync(buf.data(), 0xFF, buf.bytes(), stream_)); }

std::vector<unsigned char> GpuContext::download_bytes(const DeviceArray& buf, size_t offset, size_t count) {
    if (offset > buf.bytes() || count > buf.bytes() - offset)
        throw InputError("download of " + std::to_string(count) + " bytes at " + std::to_string(offset) +
                         " from buffer '" + buf.name() + "' (" + std::to_string(buf.bytes()) + " bytes)");
    std::vector<unsigned char> out(count);
    copy_on_stream(out.data(), static_cast<const unsigned char*>(buf.data()) + offset, count, cudaMemcpyDeviceToHost);
    return out;
}

void GpuContext::run_builtin(const std::string& name, const std::vector<KernelArg>& args) {
    ::kl::run_builtin(name, args, RoutineTarget{stream_, [this] { return cublas(); }, checking_});
}

std::vector<float> GpuContext::download_as_float(const DeviceArray& buf) {
    std::vector<float> out(static_cast<size_t>(buf.elements()));
    if (buf.dtype() == DType::F32) {
        copy_on_stream(out.data(), buf.data(), buf.bytes(), cudaMemcpyDeviceToHost);
        return out;
    }
    if (buf.dtype() == DType::E4M3) {
        std::vector<uint8_t> bytes(out.size());
        copy_on_stream(bytes.data(), buf.data(), buf.bytes(), cudaMemcpyDeviceToHost);
        for (size_t i = 0; i < bytes.size(); ++i) out[i] = e4m3_to_float(bytes[i]);
        return out;
    }
    std::vector<uint16_t> raw(out.size());
    copy_on_stream(raw.data(), buf.data(), buf.bytes(), cudaMemcpyDeviceToHost);
    for (size_t i = 0; i < raw.size(); ++i)
        out[i] = buf.dtype() == DType::BF16 ? bf16_to_float(raw[i]) : half_to_float(raw[i]);
    return out;
}

void GpuContext::upload_from_float(DeviceArray& buf, const std::vector<float>& values) {
    if (static_cast<int64_t>(values.size()) != buf.elements())
        throw InputError("upload to '" + buf.name() + "': " + std::to_string(values.size()) + " values for " +
                         std::to_string(buf.elements()) + " elements");
    if (buf.dtype() == DType::F32) {
        copy_on_stream(buf.data(), values.data(), buf.bytes(), cudaMemcpyHostToDevice);
        return;
    }
    if (buf.dtype() == DType::E4M3) {
        std::vector<uint8_t> bytes(values.size());
        for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = float_to_e4m3(values[i]);
        copy_on_stream(buf.data(), bytes.data(), buf.bytes(), cudaMemcpyHostToDevice);
        return;
    }
    std::vector<uint16_t> raw(values.size());
    for (size_t i = 0; i < raw.size(); ++i)
        raw[i] = buf.dtype() == DType::BF16 ? float_to_bf16(values[i]) : float_to_half(values[i]);
    copy_on_stream(buf.data(), raw.data(), buf.bytes(), cudaMemcpyHostToDevice);
}

void GpuContext::upload_bytes(DeviceArray& buf, size_t offset, const std::vector<unsigned char>& bytes) {
    if (offset > buf.bytes() || bytes.size() > buf.bytes() - offset)
        throw InputError("upload of " + std::to_string(bytes.size()) + " bytes at " + std::to_string(offset) +
                         " to buffer '" + buf.name() + "' (" + std::to_string(buf.bytes()) + " bytes)");
    copy_on_stream(static_cast<unsigned char*>(buf.data()) + offset, bytes.data(), bytes.size(),
                   cudaMemcpyHostToDevice);
}

void GpuContext::copy_on_stream(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    KL_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, kind, stream_));
    synchronize();  // the host buffer may go away on return, and the caller reads what came back
}

void GpuContext::synchronize() { KL_CUDA_CALL(cudaStreamSynchronize(stream_)); }

}  // namespace kl
