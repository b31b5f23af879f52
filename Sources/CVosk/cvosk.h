#ifndef CAPFORGE_CVOSK_H
#define CAPFORGE_CVOSK_H
/*
 * Project-written declarations for the subset of libvosk's C API that Capforge calls.
 * The PyPI wheel (vosk==0.3.45) ships libvosk.so without a header; these prototypes follow
 * the library's public API documentation; cvosk_bind checks each is exported.
 */

#include <dlfcn.h>
#include <stddef.h>

typedef struct VoskModel VoskModel;
typedef struct VoskRecognizer VoskRecognizer;

/* The functions Capforge calls, looked up in libvosk when it is opened (cvosk_bind), so a
 * machine without the library still starts and runs what else is installed. */
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-completeness"
struct cvosk_functions {
    /* Negative silences informational logging; Kaldi errors still reach stderr. */
    void (* _Nonnull vosk_set_log_level)(int log_level);
    /* NULL when the directory holds no readable model. */
    VoskModel *(* _Nonnull vosk_model_new)(const char *model_path);
    void (* _Nonnull vosk_model_free)(VoskModel *model);
    /* NULL on failure. The recognizer keeps its own reference to the model. */
    VoskRecognizer *(* _Nonnull vosk_recognizer_new)(VoskModel *model, float sample_rate);
    void (* _Nonnull vosk_recognizer_set_words)(VoskRecognizer *recognizer, int words);
    /* Samples are floats in the int16 range (not -1...1). Returns 1 at an endpoint (fetch the
     * utterance with vosk_recognizer_result before feeding more), 0 to go on, -1 on error. */
    int (* _Nonnull vosk_recognizer_accept_waveform_f)(VoskRecognizer *recognizer, const float *data, int length);
    /* JSON owned by the recognizer, valid until its next call. */
    const char *(* _Nonnull vosk_recognizer_result)(VoskRecognizer *recognizer);
    const char *(* _Nonnull vosk_recognizer_final_result)(VoskRecognizer *recognizer);
    void (* _Nonnull vosk_recognizer_free)(VoskRecognizer *recognizer);
};
#pragma clang diagnostic pop

/* Fills `functions` from a library opened with dlopen; returns the name of the first function
 * the library lacks, or NULL when it has them all. */
static inline const char *cvosk_bind(void *library, struct cvosk_functions *functions) {
#define CVOSK_BIND(name) if (!(functions->name = (__typeof__(functions->name))dlsym(library, #name))) return #name
    CVOSK_BIND(vosk_set_log_level);
    CVOSK_BIND(vosk_model_new);
    CVOSK_BIND(vosk_model_free);
    CVOSK_BIND(vosk_recognizer_new);
    CVOSK_BIND(vosk_recognizer_set_words);
    CVOSK_BIND(vosk_recognizer_accept_waveform_f);
    CVOSK_BIND(vosk_recognizer_result);
    CVOSK_BIND(vosk_recognizer_final_result);
    CVOSK_BIND(vosk_recognizer_free);
#undef CVOSK_BIND
    return NULL;
}

#endif
