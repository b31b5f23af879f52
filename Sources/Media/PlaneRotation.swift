/// Turns one 8-bit plane clockwise by 90, 180 or 270 degrees, as players turn a picture whose
/// display matrix asks for it; captions are then drawn on the upright picture.
enum PlaneRotation {
    static func rotate(
        _ source: UnsafePointer<UInt8>, stride sourceStride: Int, width: Int, height: Int,
        into destination: UnsafeMutablePointer<UInt8>, stride destinationStride: Int, clockwise degrees: Int
    ) {
        switch degrees {
        case 90:
            // Output row r is source column r read bottom to top.
            for r in 0..<width {
                let out = destination + r * destinationStride
                for c in 0..<height { out[c] = source[(height - 1 - c) * sourceStride + r] }
            }
        case 180:
            for r in 0..<height {
                let out = destination + r * destinationStride
                let row = source + (height - 1 - r) * sourceStride
                for c in 0..<width { out[c] = row[width - 1 - c] }
            }
        case 270:
            // Output row r is source column (width-1-r) read top to bottom.
            for r in 0..<width {
                let out = destination + r * destinationStride
                let column = width - 1 - r
                for c in 0..<height { out[c] = source[c * sourceStride + column] }
            }
        default:
            for r in 0..<height { (destination + r * destinationStride).update(from: source + r * sourceStride, count: width) }
        }
    }
}
