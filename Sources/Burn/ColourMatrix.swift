import Media

/// RGB to 8-bit Y'CbCr for one video's matrix and range.
struct ColourMatrix: Equatable {
    var kr: Double
    var kb: Double
    var fullRange: Bool

    static let bt601 = (kr: 0.299, kb: 0.114)
    static let bt709 = (kr: 0.2126, kb: 0.0722)
    static let bt2020 = (kr: 0.2627, kb: 0.0593)

    /// Honours the stream's tags; untagged video gets what players assume: BT.709 for HD, BT.601 for SD.
    init(_ matrix: VideoFormat.Matrix?, fullRange: Bool, width: Int, height: Int) {
        let k: (kr: Double, kb: Double)
        switch matrix {
        case .bt709: k = Self.bt709
        case .bt601: k = Self.bt601
        case .bt2020: k = Self.bt2020
        case nil: k = min(width, height) >= 720 ? Self.bt709 : Self.bt601
        }
        kr = k.kr
        kb = k.kb
        self.fullRange = fullRange
    }

    init(_ video: VideoFormat) {
        self.init(video.matrix, fullRange: video.fullRange, width: video.width, height: video.height)
    }

    /// 8-bit code values for an sRGB-encoded (gamma) colour.
    func convert(red: UInt8, green: UInt8, blue: UInt8) -> (y: Int, cb: Int, cr: Int) {
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        let luma = kr * r + (1 - kr - kb) * g + kb * b
        let pb = (b - luma) / (2 * (1 - kb))
        let pr = (r - luma) / (2 * (1 - kr))
        func clamp(_ v: Double) -> Int { Int(min(255, max(0, v.rounded()))) }
        if fullRange {
            return (clamp(luma * 255), clamp(128 + pb * 255), clamp(128 + pr * 255))
        }
        return (clamp(16 + luma * 219), clamp(128 + pb * 224), clamp(128 + pr * 224))
    }
}
