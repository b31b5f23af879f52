import CDNNL
import Foundation

/// Row-major matrix products through oneDNN, which dispatches to the widest kernels this CPU
/// has (AVX-512 and VNNI where present). The only code in the runtime that calls C.
enum MatrixProduct {
    /// c[m×n] = a[m×k] · (transposedB ? b[n×k]ᵀ : b[k×n]) · alpha + c · beta.
    static func float(
        m: Int, n: Int, k: Int, a: UnsafeBufferPointer<Float>, lda: Int? = nil, b: UnsafeBufferPointer<Float>, ldb: Int? = nil,
        transposedB: Bool, c: UnsafeMutableBufferPointer<Float>, ldc: Int? = nil, alpha: Float = 1, beta: Float = 0
    ) throws {
        precondition(m > 0 && n > 0 && k > 0)
        let status = dnnl_sgemm(
            CChar(UInt8(ascii: "N")), CChar(UInt8(ascii: transposedB ? "T" : "N")), Int64(m), Int64(n), Int64(k), alpha,
            a.baseAddress, Int64(lda ?? k), b.baseAddress, Int64(ldb ?? (transposedB ? k : n)), beta, c.baseAddress, Int64(ldc ?? n))
        try check(status, "dnnl_sgemm")
    }

    /// c[m×n] = a[m×k] · b[n×k]ᵀ in exact integer arithmetic, a unsigned and b signed. Offsets
    /// are left at zero: oneDNN's kernels for a one-row `a` are ten times slower with an offset
    /// (measured on this project's Zen 4 machines), so callers fold it into a correction term.
    static func integer(
        m: Int, n: Int, k: Int, a: UnsafeBufferPointer<UInt8>, b: UnsafeBufferPointer<Int8>, c: UnsafeMutableBufferPointer<Int32>
    ) throws {
        precondition(m > 0 && n > 0 && k > 0)
        var zero: Int32 = 0
        let status = dnnl_gemm_u8s8s32(
            CChar(UInt8(ascii: "N")), CChar(UInt8(ascii: "T")), CChar(UInt8(ascii: "F")), Int64(m), Int64(n), Int64(k), 1,
            a.baseAddress, Int64(k), 0, b.baseAddress, Int64(k), 0, 0, c.baseAddress, Int64(n), &zero)
        try check(status, "dnnl_gemm_u8s8s32")
    }

    private static func check(_ status: dnnl_status_t, _ call: String) throws {
        guard status == dnnl_success else { throw RuntimeError.library(call: call, status: Int(status.rawValue)) }
    }

    /// Whether this CPU has VNNI (AVX-512 or AVX), whose dot-product instructions add u8×s8
    /// products in 32 bits; without it oneDNN's int8 kernels add pairs in 16 bits, saturating.
    static let addsProductsExactly: Bool = {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
              let flags = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return false }
        return flags.split(separator: " ").contains { $0 == "avx512_vnni" || $0 == "avx_vnni" }
    }()

    /// How many threads oneDNN's products called from this thread use (OpenMP's count, which is per thread).
    static var threads: Int {
        get { Int(omp_get_max_threads()) }
        set { omp_set_num_threads(Int32(max(1, newValue))) }
    }
}
