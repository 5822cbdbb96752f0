// Diagnosis of the layernorm ladder's 16-bit 90% line (issue 17; docs/tuning/layernorm.md, third
// section). Not part of the workbook: a stand-alone program built with nvcc for sm_90 and run on
// the GPU machine. It times, with the runner's protocol (timing.cpp: two warm-ups, then
// repetitions bracketed by events until 10 and 400 ms, the median; before each repetition a
// 2 x L2 memset, the runner's flush), at rows x cols in bf16 and fp16:
//   - the copy line as `kladder calibrate` measures it (1 GiB cudaMemcpy, no flush);
//   - a copy of exactly the LayerNorm's bytes (x and r read, s and y written) as one cudaMemcpy
//     and as a kernel with rung 4's geometry (a block per row, the same loads and stores);
//   - rung 4's kernel (the same code path, written as a template so that the cache policy of
//     every stream is a parameter) and variants: one-pass shifted statistics;
// each under three flushes: the runner's memset (dirty lines left in L2), a read of 2 x L2 (L2
// clean), none (three buffer sets in rotation, so every repetition is still cold). The difference
// between the memset and the clean flush is the harness's share; copy against LayerNorm in the
// same flush is the LayerNorm's own. Then one traced launch per kernel (globaltimer at each
// block's start, at the arrival of its loads, at its end): throughput over the launch in 0.5 us
// bins, the ramp and the drain, and the load bytes in flight per SM against Little's law.
//   ln_diag [rows cols]   (default 4096 4096)
//   ln_diag --ncu         each kernel once, no timing loop (for ncu)
//   ln_diag --second      the second call's list: rung 7's store policies one stream at a time
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#define CK(x)                                                                                                \
    do {                                                                                                     \
        cudaError_t e_ = (x);                                                                                \
        if (e_ != cudaSuccess) {                                                                             \
            std::fprintf(stderr, "ln_diag: %s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(2);                                                                                    \
        }                                                                                                    \
    } while (0)

// Load policies: 0 ld.global.cs (evict first: rung 4's), 1 ld.global.nc (normal),
// 2 ld.global.nc with an L2::evict_first policy, 3 with L2::evict_last.
// Store policies: 0 st.global (write-back, normal), 1 st.global.cs (streaming: rung 4's y),
// 2 st with an L2::evict_last policy, 3 with L2::evict_first, 4 st.global.cg.
template <int P>
__device__ __forceinline__ uint4 ld16(const uint4* p) {
    if constexpr (P == 0)
        return __ldcs(p);
    else if constexpr (P == 1)
        return __ldg(p);
    else {
        uint64_t pol;
        if constexpr (P == 2)
            asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        else
            asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
        uint4 v;
        asm volatile("ld.global.nc.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p), "l"(pol));
        return v;
    }
}
template <int P>
__device__ __forceinline__ void st16(uint4* p, uint4 v) {
    if constexpr (P == 0)
        *p = v;
    else if constexpr (P == 1)
        __stcs(p, v);
    else if constexpr (P == 4)
        __stcg(p, v);
    else {
        uint64_t pol;
        if constexpr (P == 2)
            asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
        else
            asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(pol));
        asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                     "r"(v.w), "l"(pol)
                     : "memory");
    }
}

__device__ __forceinline__ unsigned long long gtime() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ float tof(float x) { return x; }
__device__ __forceinline__ float tof(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float tof(__half x) { return __half2float(x); }
template <class T>
__device__ __forceinline__ T fromf(float x);
template <>
__device__ __forceinline__ __nv_bfloat16 fromf<__nv_bfloat16>(float x) {
    return __float2bfloat16(x);
}
template <>
__device__ __forceinline__ __half fromf<__half>(float x) {
    return __float2half(x);
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}
template <int TPB>
__device__ __forceinline__ float block_sum(float v, float* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < TPB / 32 ? sh[lane] : 0.f;
    return warp_sum(v);
}
template <int TPB>
__device__ __forceinline__ float2 block_sum2(float2 v, float2* sh) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v.x = warp_sum(v.x);
    v.y = warp_sum(v.y);
    __syncthreads();
    if (lane == 0) sh[warp] = v;
    __syncthreads();
    v = lane < TPB / 32 ? sh[lane] : make_float2(0.f, 0.f);
    return make_float2(warp_sum(v.x), warp_sum(v.y));
}

struct Trace {
    unsigned long long t0, t1, t2;
    unsigned sm, pad;
};

__device__ __forceinline__ unsigned smid() {
    unsigned s;
    asm volatile("mov.u32 %0, %smid;" : "=r"(s));
    return s;
}

// Rung 4's vector path (kernels/layernorm/04_row_regs_vec.cu) with the policies as parameters.
// STATS 0: mean, then the variance from registers (two block sums, rung 4's); 1: one block sum
// of (sum, sum of squares) of s - s[row, 0] (shifted: no cancellation when the mean is far from 0).
// COPY 1: no arithmetic at all, s = x and y = r with the same loads and stores (the copy of
// exactly the LayerNorm's bytes, in its geometry).
template <class E, int TPB, int MAXV, int LP, int SS, int SY, int STATS, int COPY, bool TRACE>
__global__ void __launch_bounds__(TPB)
    ln_t(E* __restrict__ s, E* __restrict__ y, const E* __restrict__ x, const E* __restrict__ r,
         const E* __restrict__ w, const E* __restrict__ b, int cols, Trace* tr) {
    constexpr int VEC = 16 / sizeof(E);
    union V {
        uint4 raw;
        E e[VEC];
    };
    __shared__ float2 sh[32];
    unsigned long long t0 = 0;
    if (TRACE) t0 = gtime();
    const long long o = (long long)blockIdx.x * cols;
    const uint4* x4 = reinterpret_cast<const uint4*>(x + o);
    const uint4* r4 = reinterpret_cast<const uint4*>(r + o);
    V xa[MAXV], ra[MAXV];
#pragma unroll
    for (int j = 0; j < MAXV; ++j) {
        const int q = j * TPB + threadIdx.x;
        if (q * VEC < cols) {
            xa[j].raw = ld16<LP>(x4 + q);
            ra[j].raw = ld16<LP>(r4 + q);
        }
    }
    if (COPY) {
#pragma unroll
        for (int j = 0; j < MAXV; ++j) {
            const int q = j * TPB + threadIdx.x;
            if (q * VEC < cols) {
                st16<SS>(reinterpret_cast<uint4*>(s + o) + q, xa[j].raw);
                st16<SY>(reinterpret_cast<uint4*>(y + o) + q, ra[j].raw);
            }
        }
        if (TRACE) {
            __syncthreads();
            if (threadIdx.x == 0) tr[blockIdx.x] = {t0, t0, gtime(), smid(), 0};
        }
        return;
    }
    float v[MAXV][VEC];
    float acc = 0.f, acc2 = 0.f;
    float shift = 0.f;
    if (STATS == 1) shift = tof(fromf<E>(tof(x[o]) + tof(r[o])));
#pragma unroll
    for (int j = 0; j < MAXV; ++j) {
        const int q = j * TPB + threadIdx.x;
        if (q * VEC < cols) {
            V out;
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                v[j][k] = tof(fromf<E>(tof(xa[j].e[k]) + tof(ra[j].e[k])));
                out.e[k] = fromf<E>(v[j][k]);
                const float d = v[j][k] - shift;
                acc += d;
                if (STATS == 1) acc2 += d * d;
            }
            st16<SS>(reinterpret_cast<uint4*>(s + o) + q, out.raw);
        } else {
#pragma unroll
            for (int k = 0; k < VEC; ++k) v[j][k] = 0.f;
        }
    }
    unsigned long long t1 = 0;
    if (TRACE) t1 = gtime();
    float mean, rstd;
    if (STATS == 0) {
        mean = block_sum<TPB>(acc, reinterpret_cast<float*>(sh)) / cols;
        acc = 0.f;
#pragma unroll
        for (int j = 0; j < MAXV; ++j)
#pragma unroll
            for (int k = 0; k < VEC; ++k) {
                const int c = (j * TPB + threadIdx.x) * VEC + k;
                const float d = v[j][k] - mean;
                if (c < cols) acc += d * d;
            }
        rstd = rsqrtf(block_sum<TPB>(acc, reinterpret_cast<float*>(sh)) / cols + 1e-5f);
    } else {
        const float2 t = block_sum2<TPB>(make_float2(acc, acc2), sh);
        const float md = t.x / cols;
        mean = shift + md;
        rstd = rsqrtf(fmaxf(t.y / cols - md * md, 0.f) + 1e-5f);
    }
#pragma unroll
    for (int j = 0; j < MAXV; ++j) {
        const int q = j * TPB + threadIdx.x;
        if (q * VEC < cols) {
            V wv, bv, out;
            wv.raw = reinterpret_cast<const uint4*>(w)[q];
            bv.raw = reinterpret_cast<const uint4*>(b)[q];
#pragma unroll
            for (int k = 0; k < VEC; ++k) out.e[k] = fromf<E>((v[j][k] - mean) * rstd * tof(wv.e[k]) + tof(bv.e[k]));
            st16<SY>(reinterpret_cast<uint4*>(y + o) + q, out.raw);
        }
    }
    if (TRACE) {
        __syncthreads();
        if (threadIdx.x == 0) tr[blockIdx.x] = {t0, t1, gtime(), smid(), 0};
    }
}

__global__ void read_flush(const float4* p, long long n, float* out) {
    float a = 0.f;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        float4 v = __ldcg(p + i);
        a += v.x + v.y + v.z + v.w;
    }
    if (a == 1234.5f) *out = a;  // keeps the loads; practically never true
}

// Host side ------------------------------------------------------------------------------------
struct Bufs {
    void *X, *S;  // x|r and s|y, each as one allocation so that one cudaMemcpy copies them
    void *w, *b;
};

static int g_rows = 4096, g_cols = 4096, g_sms = 132;
static bool g_second = false;  // --second: the second call's kernel list
static size_t g_l2 = 50 << 20;
static void* g_flush = nullptr;
static float* g_sink = nullptr;
static cudaStream_t g_st;

enum Flush { F_MEMSET = 0, F_READ = 1, F_NONE = 2 };
static const char* flush_name[] = {"memset", "read", "none"};

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

// timing.cpp's protocol; `launch(set)` enqueues the work on buffer set `set`.
static double time_it(Flush f, int nsets, const std::function<void(int)>& launch) {
    for (int i = 0; i < 2; ++i) launch(i % nsets);
    CK(cudaStreamSynchronize(g_st));
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    std::vector<double> ms;
    double total = 0;
    while (ms.size() < 300 && (ms.size() < 10 || total < 400)) {
        const int rep = (int)ms.size();
        if (f == F_MEMSET) CK(cudaMemsetAsync(g_flush, rep & 0xff, 2 * g_l2, g_st));
        if (f == F_READ)
            read_flush<<<g_sms * 8, 512, 0, g_st>>>((const float4*)g_flush, (long long)(2 * g_l2 / 16), g_sink);
        CK(cudaEventRecord(a, g_st));
        launch(f == F_NONE ? rep % nsets : 0);
        CK(cudaEventRecord(b, g_st));
        CK(cudaEventSynchronize(b));
        float t;
        CK(cudaEventElapsedTime(&t, a, b));
        ms.push_back(t);
        total += t;
    }
    CK(cudaGetLastError());
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    return median(ms) * 1e3;  // us
}

template <class E>
struct Kernels {
    using K = void (*)(E*, E*, const E*, const E*, const E*, const E*, int, Trace*);
    struct Entry {
        std::string name;
        K k, ktrace;
        int tpb;
        int smem = 0;  // dynamic shared memory, unused: only to cap the blocks per SM
    };
    std::vector<Entry> list;
};

#define LNK(E, TPB, MAXV, LP, SS, SY, ST, CP)                                                                \
    {                                                                                                        \
        "ln_t<" #TPB "x" #MAXV " ld" #LP " s" #SS " y" #SY " stats" #ST " copy" #CP ">",                     \
            ln_t<E, TPB, MAXV, LP, SS, SY, ST, CP, false>, ln_t<E, TPB, MAXV, LP, SS, SY, ST, CP, true>, TPB \
    }

template <class E>
static std::vector<typename Kernels<E>::Entry> kernels_for() {
    if (g_second) {  // the second call: rung 7's policies, one stream at a time, beside rung 4
        return {
            LNK(E, 256, 2, 0, 0, 1, 0, 1), LNK(E, 256, 2, 1, 0, 0, 0, 1), LNK(E, 256, 2, 0, 3, 1, 0, 1),
            LNK(E, 256, 2, 0, 0, 1, 0, 0),  // rung 4
            LNK(E, 256, 2, 0, 3, 1, 0, 0),  // rung 7's default: s evict-first
            LNK(E, 256, 2, 0, 0, 3, 0, 0), LNK(E, 256, 2, 0, 3, 3, 0, 0), LNK(E, 256, 2, 0, 3, 0, 0, 0),
            LNK(E, 256, 2, 1, 3, 1, 0, 0), LNK(E, 256, 2, 0, 2, 2, 0, 0), LNK(E, 256, 2, 0, 1, 3, 0, 0),
        };
    }
    return {
        // the copy of the LayerNorm's bytes in its geometry, rung 4's policies, then others
        LNK(E, 256, 2, 0, 0, 1, 0, 1),
        LNK(E, 256, 2, 1, 0, 0, 0, 1),
        LNK(E, 256, 2, 0, 1, 1, 0, 1),
        // rung 4 as recorded (loads cs, s write-back, y streaming), two-pass statistics
        LNK(E, 256, 2, 0, 0, 1, 0, 0),
        // one-pass shifted statistics
        LNK(E, 256, 2, 0, 0, 1, 1, 0),
        // cache policies of the four streams
        LNK(E, 256, 2, 1, 0, 1, 0, 0),
        LNK(E, 256, 2, 0, 0, 0, 0, 0),
        LNK(E, 256, 2, 0, 1, 1, 0, 0),
        LNK(E, 256, 2, 0, 2, 2, 0, 0),
        LNK(E, 256, 2, 0, 2, 1, 0, 0),
        LNK(E, 256, 2, 0, 0, 2, 0, 0),
        LNK(E, 256, 2, 2, 2, 2, 0, 0),
        LNK(E, 256, 2, 2, 0, 0, 0, 0),
        LNK(E, 256, 2, 0, 4, 4, 0, 0),
        LNK(E, 256, 2, 0, 3, 3, 0, 0),
        LNK(E, 256, 2, 1, 1, 1, 0, 0),
        LNK(E, 256, 2, 0, 2, 2, 1, 0),
        // shapes
        LNK(E, 128, 4, 0, 0, 1, 0, 0),
        LNK(E, 512, 1, 0, 0, 1, 0, 0),
        LNK(E, 128, 4, 0, 0, 1, 1, 0),
        LNK(E, 512, 1, 0, 0, 1, 1, 0),
    };
}

// rung 4 with its blocks per SM capped by unused dynamic shared memory (fewer bytes in flight,
// shorter queues: each block's loads wait less)
template <class E>
static void add_capped(std::vector<typename Kernels<E>::Entry>& ks) {
    for (int blocks : {5, 4, 3}) {
        typename Kernels<E>::Entry e = LNK(E, 256, 2, 0, 0, 1, 0, 0);
        e.smem = (227 << 10) / blocks - (2 << 10);
        e.name += " cap" + std::to_string(blocks);
        CK(cudaFuncSetAttribute(e.k, cudaFuncAttributeMaxDynamicSharedMemorySize, e.smem));
        CK(cudaFuncSetAttribute(e.ktrace, cudaFuncAttributeMaxDynamicSharedMemorySize, e.smem));
        ks.push_back(e);
    }
}

static void trace_report(const char* name, std::vector<Trace>& t, double event_us, FILE* log) {
    unsigned long long base = ~0ull, end = 0;
    for (auto& e : t) base = std::min(base, e.t0), end = std::max(end, e.t2);
    const double span = (end - base) * 1e-3;
    const size_t bytes_block = 4ull * g_cols * 2;  // x, r read; s, y written (16-bit)
    const int nb = (int)(span / 0.5) + 1;
    std::vector<double> arrive(nb, 0), done(nb, 0), waiting(nb, 0), active(nb, 0);
    double lat_sum = 0, life_sum = 0;
    for (auto& e : t) {
        const double a = (e.t0 - base) * 1e-3, l = (e.t1 - base) * 1e-3, z = (e.t2 - base) * 1e-3;
        arrive[std::min(nb - 1, (int)(l / 0.5))] += bytes_block / 2;
        done[std::min(nb - 1, (int)(z / 0.5))] += bytes_block / 2;
        for (int i = (int)(a / 0.5); i <= (int)(z / 0.5) && i < nb; ++i) active[i] += 1;
        for (int i = (int)(a / 0.5); i <= (int)(l / 0.5) && i < nb; ++i) waiting[i] += 1;
        lat_sum += l - a;
        life_sum += z - a;
    }
    const double lat = lat_sum / t.size(), life = life_sum / t.size();
    // load bytes outstanding per SM, averaged over the span: sum of (bytes x time) / span / SMs
    const double inflight = lat_sum * (bytes_block / 2) / span / g_sms;
    std::fprintf(log,
                 "trace %s: event %.2f us, blocks span %.2f us, mean load latency %.2f us, mean life %.2f us, "
                 "load bytes in flight per SM %.1f KB (Little at 3 TB/s x latency: %.1f KB)\n",
                 name, event_us, span, lat, life, inflight / 1024, 3e12 / g_sms * lat * 1e-6 / 1024);
    std::fprintf(log, "  bin(us)  loads-arrived GB/s  stores-issued GB/s  blocks-active  blocks-waiting-on-loads\n");
    for (int i = 0; i < nb; ++i)
        std::fprintf(log, "  %6.1f  %8.0f  %8.0f  %5.0f  %5.0f\n", i * 0.5, arrive[i] / 0.5e-6 / 1e9,
                     done[i] / 0.5e-6 / 1e9, active[i], waiting[i]);
    // ramp: first bin whose loads-arrived + stores reach 90% of the median of the middle bins
    std::vector<double> tot(nb);
    for (int i = 0; i < nb; ++i) tot[i] = (arrive[i] + done[i]) / 0.5e-6 / 1e9;
    std::vector<double> mid(tot.begin() + nb / 4, tot.begin() + 3 * nb / 4);
    const double steady = median(mid);
    int r = 0, d = nb - 1;
    while (r < nb && tot[r] < 0.9 * steady) ++r;
    while (d > 0 && tot[d] < 0.9 * steady) --d;
    std::fprintf(stdout,
                 "trace %-44s event %6.2f span %6.2f lat %5.2f life %5.2f inflight/SM %5.1f KB need %5.1f KB steady "
                 "%5.0f GB/s ramp %.1f us drain %.1f us\n",
                 name, event_us, span, lat, life, inflight / 1024, 3e12 / g_sms * lat * 1e-6 / 1024, steady, r * 0.5,
                 (nb - 1 - d) * 0.5);
}

template <class E>
static void run_dtype(const char* dt, bool ncu, FILE* log, double copy_gbps) {
    const size_t n = (size_t)g_rows * g_cols, eb = n * sizeof(E);
    const double ideal = (4.0 * n + 2.0 * g_cols) * sizeof(E);
    const int nsets = 3;
    Bufs B[nsets];
    for (auto& bb : B) {
        CK(cudaMalloc(&bb.X, 2 * eb));
        CK(cudaMalloc(&bb.S, 2 * eb));
        CK(cudaMalloc(&bb.w, g_cols * sizeof(E)));
        CK(cudaMalloc(&bb.b, g_cols * sizeof(E)));
        std::vector<E> h(n);
        for (size_t i = 0; i < n; ++i) h[i] = E(float((i * 2654435761u) % 2001) / 1000.f - 1.f);
        CK(cudaMemcpy(bb.X, h.data(), eb, cudaMemcpyHostToDevice));
        CK(cudaMemcpy((char*)bb.X + eb, h.data(), eb, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(bb.w, h.data(), g_cols * sizeof(E), cudaMemcpyHostToDevice));
        CK(cudaMemcpy(bb.b, h.data() + 7, g_cols * sizeof(E), cudaMemcpyHostToDevice));
    }
    Trace* tr;
    CK(cudaMalloc(&tr, g_rows * sizeof(Trace)));
    auto ks = kernels_for<E>();
    if (!g_second) add_capped<E>(ks);
    auto launch = [&](const typename Kernels<E>::Entry& k, bool trace, int set) {
        Bufs& bb = B[set];
        (trace ? k.ktrace : k.k)<<<g_rows, k.tpb, k.smem, g_st>>>((E*)bb.S, (E*)((char*)bb.S + eb), (const E*)bb.X,
                                                                  (const E*)((char*)bb.X + eb), (const E*)bb.w,
                                                                  (const E*)bb.b, g_cols, tr);
    };
    if (ncu) {
        for (auto& k : ks) {
            CK(cudaMemsetAsync(g_flush, 1, 2 * g_l2, g_st));
            launch(k, false, 0);
        }
        CK(cudaStreamSynchronize(g_st));
        CK(cudaGetLastError());
        return;
    }
    auto row = [&](const std::string& name, Flush f, double us) {
        const double gbps = ideal / (us * 1e-6) / 1e9;
        std::printf("%-5s %-46s %-6s %8.2f us %6.0f GB/s %6.1f%% of copy\n", dt, name.c_str(), flush_name[f], us, gbps,
                    100 * gbps / copy_gbps);
        std::fprintf(log, "%s,%s,%s,%.3f,%.1f,%.2f\n", dt, name.c_str(), flush_name[f], us, gbps,
                     100 * gbps / copy_gbps);
    };
    for (int f = 0; f < 3; ++f)
        row("cudaMemcpy x|r -> s|y", Flush(f), time_it(Flush(f), nsets, [&](int s) {
                CK(cudaMemcpyAsync(B[s].S, B[s].X, 2 * eb, cudaMemcpyDeviceToDevice, g_st));
            }));
    for (auto& k : ks)
        for (int f = 0; f < 3; ++f)
            row(k.name, Flush(f), time_it(Flush(f), nsets, [&](int s) { launch(k, false, s); }));
    // traced launches, after the runner's flush; the first five kernels (copies, rung 4, one-pass)
    // and the policies that keep outputs in L2
    for (size_t i = 0; i < ks.size(); ++i) {
        for (int rep = 0; rep < 3 * (g_second ? 2 : 1); ++rep) {
            // (second call: the last three after the read flush, L2 clean)
            if (rep < 3)
                CK(cudaMemsetAsync(g_flush, rep, 2 * g_l2, g_st));
            else
                read_flush<<<g_sms * 8, 512, 0, g_st>>>((const float4*)g_flush, (long long)(2 * g_l2 / 16), g_sink);
            cudaEvent_t a, b;
            CK(cudaEventCreate(&a));
            CK(cudaEventCreate(&b));
            CK(cudaEventRecord(a, g_st));
            launch(ks[i], true, 0);
            CK(cudaEventRecord(b, g_st));
            CK(cudaEventSynchronize(b));
            float ms;
            CK(cudaEventElapsedTime(&ms, a, b));
            if (rep == 2 || rep == 5) {
                std::vector<Trace> h(g_rows);
                CK(cudaMemcpy(h.data(), tr, g_rows * sizeof(Trace), cudaMemcpyDeviceToHost));
                trace_report((std::string(dt) + " " + ks[i].name + (rep == 5 ? " read-flush" : "")).c_str(), h,
                             ms * 1e3, log);
            }
            CK(cudaEventDestroy(a));
            CK(cudaEventDestroy(b));
        }
    }
    for (auto& bb : B) {
        CK(cudaFree(bb.X));
        CK(cudaFree(bb.S));
        CK(cudaFree(bb.w));
        CK(cudaFree(bb.b));
    }
    CK(cudaFree(tr));
}

int main(int argc, char** argv) {
    bool ncu = false;
    std::vector<int> pos;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--ncu"))
            ncu = true;
        else if (!std::strcmp(argv[i], "--second"))
            g_second = true;
        else
            pos.push_back(std::atoi(argv[i]));
    }
    if (pos.size() == 2) g_rows = pos[0], g_cols = pos[1];
    if (g_rows < 1 || g_cols < 64 || g_cols > 4096 || g_cols % 64) {
        std::fprintf(stderr, "ln_diag: cols must be a multiple of 64 up to 4096 (got %d x %d)\n", g_rows, g_cols);
        return 2;
    }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    g_sms = p.multiProcessorCount;
    g_l2 = std::max<size_t>(p.l2CacheSize, 32 << 20);
    CK(cudaStreamCreate(&g_st));
    CK(cudaMalloc(&g_flush, 2 * g_l2));
    CK(cudaMalloc(&g_sink, 4));
    FILE* log = std::fopen(ncu ? "/dev/null" : "ln_diag_full.txt", "w");
    if (!log) log = stdout;
    double copy_gbps = 0;
    if (!ncu) {  // the copy line as `kladder calibrate` measures it: 1 GiB, no flush, min 20 reps
        const size_t bytes = size_t(1) << 30;
        void *src, *dst;
        CK(cudaMalloc(&src, bytes));
        CK(cudaMalloc(&dst, bytes));
        CK(cudaMemset(src, 7, bytes));
        std::vector<double> ms;
        cudaEvent_t a, b;
        CK(cudaEventCreate(&a));
        CK(cudaEventCreate(&b));
        for (int i = 0; i < 2; ++i) CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_st));
        double total = 0;
        while (ms.size() < 300 && (ms.size() < 20 || total < 400)) {
            CK(cudaEventRecord(a, g_st));
            CK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_st));
            CK(cudaEventRecord(b, g_st));
            CK(cudaEventSynchronize(b));
            float t;
            CK(cudaEventElapsedTime(&t, a, b));
            ms.push_back(t);
            total += t;
        }
        copy_gbps = 2.0 * bytes / (median(ms) * 1e-3) / 1e9;
        std::printf("copy line (1 GiB cudaMemcpy, no flush): %.0f GB/s; %s, %d SMs, L2 %zu MB; %d x %d\n", copy_gbps,
                    p.name, g_sms, g_l2 >> 20, g_rows, g_cols);
        std::fprintf(log, "copy_gbps,%.1f\n", copy_gbps);
        CK(cudaFree(src));
        CK(cudaFree(dst));
    }
    run_dtype<__nv_bfloat16>("bf16", ncu, log, copy_gbps);
    run_dtype<__half>("fp16", ncu, log, copy_gbps);
    if (log != stdout) std::fclose(log);
    return 0;
}
