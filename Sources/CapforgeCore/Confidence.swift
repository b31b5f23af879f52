/// The shared scale of calibrated confidence: the measured probability that a word is right.
public enum Confidence {
    /// Words below this are marked low-confidence (ASS colour, report share). Chosen on the
    /// held-out calibration recordings (Scripts/calibrate) so that most wrong words fall below
    /// it and few right ones do.
    public static let defaultThreshold = 0.5
}
