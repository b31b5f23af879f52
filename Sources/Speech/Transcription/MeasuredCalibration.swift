// The per-engine confidence calibrations Capforge ships. Regenerate with Scripts/calibrate,
// which runs the real engines on the fixtures with reference transcripts and fits each map.
// Engines missing here use ConfidenceCalibration.unmeasured (marked as such in reports).
public enum MeasuredCalibration {
    public static let table = CalibrationTable(engines: [:])
}
