import CFFmpeg

extension Frame {
    /// Lays a solid colour over an 8-bit 4:2:0 picture of ours (`PictureAdapter` makes them)
    /// through a coverage mask (one byte a pixel, 255 = covered, rows `stride` apart) whose
    /// top-left pixel lands at `x`, `y`; `opacity` 0–255 scales the whole mask. Pixels the mask
    /// does not cover keep their bytes: a round trip through RGB would degrade the picture.
    package func blend(
        _ coverage: Span<UInt8>, stride: Int, x: Int, y: Int, width: Int, height: Int,
        colour: (y: Int, cb: Int, cr: Int), opacity: Int
    ) {
        let frameWidth = self.width, frameHeight = self.height
        let x0 = max(0, x), y0 = max(0, y)
        let x1 = min(frameWidth, x + width), y1 = min(frameHeight, y + height)
        guard x0 < x1, y0 < y1, opacity > 0, stride >= width, coverage.count >= stride * (height - 1) + width else { return }
        precondition(shim_frame_linesize(pointer, 0) >= frameWidth, "blend needs a picture PictureAdapter allocated")
        coverage.withUnsafeBufferPointer { bitmap in
            let mask = { (px: Int, py: Int) -> Int in Int(bitmap[(py - y) * stride + (px - x)]) }
            let full = 255 * 255

            let luma = shim_frame_data(pointer, 0)!, lumaStride = Int(shim_frame_linesize(pointer, 0))
            for py in y0..<y1 {
                let row = luma + py * lumaStride
                for px in x0..<x1 {
                    let m = mask(px, py)
                    if m == 0 { continue }
                    let alpha = m * opacity
                    row[px] = UInt8((Int(row[px]) * (full - alpha) + colour.y * alpha + full / 2) / full)
                }
            }

            // Each chroma sample takes the mean coverage of its 2x2 luma block.
            let cb = shim_frame_data(pointer, 1)!, cr = shim_frame_data(pointer, 2)!
            let cbStride = Int(shim_frame_linesize(pointer, 1)), crStride = Int(shim_frame_linesize(pointer, 2))
            for cy in (y0 / 2)..<((y1 + 1) / 2) {
                for cx in (x0 / 2)..<((x1 + 1) / 2) {
                    var covered = 0
                    for py in (2 * cy)..<(2 * cy + 2) where py >= y0 && py < y1 {
                        for px in (2 * cx)..<(2 * cx + 2) where px >= x0 && px < x1 { covered += mask(px, py) }
                    }
                    if covered == 0 { continue }
                    let alpha = covered * opacity / 4
                    let u = cb + cy * cbStride + cx, v = cr + cy * crStride + cx
                    u.pointee = UInt8((Int(u.pointee) * (full - alpha) + colour.cb * alpha + full / 2) / full)
                    v.pointee = UInt8((Int(v.pointee) * (full - alpha) + colour.cr * alpha + full / 2) / full)
                }
            }
        }
    }
}
