import Media

/// Blends rendered captions straight into an 8-bit 4:2:0 picture, so pixels without captions
/// stay bit-exact (a round trip through RGB would degrade the whole picture).
struct OverlayBlender {
    let matrix: ColourMatrix

    func blend(_ image: CaptionImage, coverage: Span<UInt8>, into picture: Frame) {
        let x0 = max(0, image.x), y0 = max(0, image.y)
        let x1 = min(picture.width, image.x + image.width), y1 = min(picture.height, image.y + image.height)
        guard x0 < x1, y0 < y1 else { return }

        let opacity = 255 - Int(image.rgba & 0xFF)
        guard opacity > 0 else { return }
        let colour = matrix.convert(red: UInt8(image.rgba >> 24), green: UInt8((image.rgba >> 16) & 0xFF), blue: UInt8((image.rgba >> 8) & 0xFF))
        // The coverage of the part on the picture, row by row (a span cannot enter the closures).
        let visibleWidth = x1 - x0
        var visible = [Int](repeating: 0, count: visibleWidth * (y1 - y0))
        for y in y0..<y1 {
            for x in x0..<x1 { visible[(y - y0) * visibleWidth + (x - x0)] = Int(coverage[(y - image.y) * image.stride + (x - image.x)]) }
        }
        let mask = { (x: Int, y: Int) -> Int in visible[(y - y0) * visibleWidth + (x - x0)] }
        let full = 255 * 255

        picture.withPlane(0) { luma, stride, _, _ in
            for y in y0..<y1 {
                let row = y * stride
                for x in x0..<x1 {
                    let m = mask(x, y)
                    if m == 0 { continue }
                    let alpha = m * opacity
                    luma[row + x] = UInt8((Int(luma[row + x]) * (full - alpha) + colour.y * alpha + full / 2) / full)
                }
            }
        }

        // Each chroma sample takes the mean coverage of its 2x2 luma block.
        let (cx0, cx1, cy0, cy1) = (x0 / 2, (x1 + 1) / 2, y0 / 2, (y1 + 1) / 2)
        var alphas = [Int](repeating: 0, count: (cx1 - cx0) * (cy1 - cy0))
        for cy in cy0..<cy1 {
            for cx in cx0..<cx1 {
                var coverage = 0
                for y in (2 * cy)..<(2 * cy + 2) where y >= y0 && y < y1 {
                    for x in (2 * cx)..<(2 * cx + 2) where x >= x0 && x < x1 { coverage += mask(x, y) }
                }
                alphas[(cy - cy0) * (cx1 - cx0) + (cx - cx0)] = coverage * opacity / 4
            }
        }
        for (plane, value) in [(1, colour.cb), (2, colour.cr)] {
            picture.withPlane(plane) { chroma, stride, _, _ in
                for cy in cy0..<cy1 {
                    for cx in cx0..<cx1 {
                        let alpha = alphas[(cy - cy0) * (cx1 - cx0) + (cx - cx0)]
                        if alpha == 0 { continue }
                        let at = cy * stride + cx
                        chroma[at] = UInt8((Int(chroma[at]) * (full - alpha) + value * alpha + full / 2) / full)
                    }
                }
            }
        }
    }
}
