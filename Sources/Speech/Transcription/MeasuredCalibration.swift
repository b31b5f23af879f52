// The per-engine confidence calibrations Capforge ships. Regenerate with Scripts/calibrate,
// which runs the real engines on the fixtures with reference transcripts and fits each map.
// Engines missing here use ConfidenceCalibration.unmeasured (marked as such in reports).
public enum MeasuredCalibration {
    public static let table = CalibrationTable(engines: [
        "pocketsphinx/en-us": ConfidenceCalibration(
            points: [
                .init(raw: 0.0009, calibrated: 0.0000),
                .init(raw: 0.0043, calibrated: 0.1154),
                .init(raw: 0.0507, calibrated: 0.2286),
                .init(raw: 0.2538, calibrated: 0.2667),
                .init(raw: 0.3664, calibrated: 0.4091),
                .init(raw: 0.5435, calibrated: 0.4516),
                .init(raw: 0.7335, calibrated: 0.5714),
                .init(raw: 0.8839, calibrated: 0.6809),
                .init(raw: 0.9908, calibrated: 0.9302),
                .init(raw: 0.9996, calibrated: 0.9588),
            ],
            measured: true,
            note: "Scripts/calibrate 2026-12-01: 2016 words, 909 correct (45.1%), PocketSphinx en-us on the held-out calibration recordings (20 files, 15.3 min, Benchmarks/heldout-corpus); correct = equals its Levenshtein-aligned reference word after normalisation; pool-adjacent-violators fit"),
        "vosk": ConfidenceCalibration(
            points: ConfidenceCalibration.unmeasured.points,
            measured: false,
            note: "not measured: no held-out Korean speech with a reference is available from Debian or PyPI; raw confidence is used as is"),
        "whisper/base": ConfidenceCalibration(
            points: [
                .init(raw: 0.1435, calibrated: 0.0000),
                .init(raw: 0.5427, calibrated: 0.4286),
                .init(raw: 0.7736, calibrated: 0.7818),
                .init(raw: 0.9157, calibrated: 0.9200),
                .init(raw: 0.9380, calibrated: 0.9265),
                .init(raw: 0.9475, calibrated: 0.9310),
                .init(raw: 0.9618, calibrated: 0.9495),
                .init(raw: 0.9759, calibrated: 0.9771),
                .init(raw: 0.9859, calibrated: 0.9958),
                .init(raw: 0.9955, calibrated: 1.0000),
            ],
            combination: EvidenceCombination(
                intercept: 2.829461,
                logMeanProbability: 1.661691,
                logMinimumProbability: 0.689781,
                segmentLogProbability: 3.384412,
                tokenCount: -0.239415,
                logSecondsPerLetter: -0.566533),
            measured: true,
            note: "Scripts/calibrate 2026-12-01: 1795 words, 1700 correct (94.7%), whisper.cpp with ggml-base on the held-out calibration recordings (20 files, 15.3 min, Benchmarks/heldout-corpus); correct = equals its Levenshtein-aligned reference word after normalisation; logistic model over the word evidence, then pool-adjacent-violators fit"),
        "whisper/tiny.en": ConfidenceCalibration(
            points: [
                .init(raw: 0.1990, calibrated: 0.0000),
                .init(raw: 0.4761, calibrated: 0.6190),
                .init(raw: 0.8364, calibrated: 0.7500),
                .init(raw: 0.8883, calibrated: 0.9200),
                .init(raw: 0.9198, calibrated: 0.9455),
                .init(raw: 0.9413, calibrated: 0.9505),
                .init(raw: 0.9673, calibrated: 0.9604),
                .init(raw: 0.9755, calibrated: 0.9783),
                .init(raw: 0.9849, calibrated: 0.9913),
                .init(raw: 0.9937, calibrated: 1.0000),
            ],
            combination: EvidenceCombination(
                intercept: 3.627844,
                logMeanProbability: 3.035961,
                logMinimumProbability: -0.624739,
                segmentLogProbability: 1.214418,
                tokenCount: -0.792995,
                logSecondsPerLetter: -0.363424),
            measured: true,
            note: "Scripts/calibrate 2026-12-01: 1789 words, 1685 correct (94.2%), whisper.cpp with ggml-tiny.en on the held-out calibration recordings (20 files, 15.3 min, Benchmarks/heldout-corpus); correct = equals its Levenshtein-aligned reference word after normalisation; logistic model over the word evidence, then pool-adjacent-violators fit"),
    ])
}
