// What Swift cannot import from FFmpeg 5.1 directly: function-like and compound-literal
// macros, variadic logging, fixed-size array fields and const-pointer casts.
#ifndef CAPFORGE_CFFMPEG_SHIM_H
#define CAPFORGE_CFFMPEG_SHIM_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>   // not pulled in by avformat.h since FFmpeg 5.0
#include <libavutil/avutil.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/display.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libavutil/pixdesc.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>
#include <stdio.h>

static const int SHIM_AVERROR_EOF = AVERROR_EOF;
static const int SHIM_AVERROR_EAGAIN = AVERROR(EAGAIN);
static const int SHIM_AVERROR_INVALIDDATA = AVERROR_INVALIDDATA;
static const int SHIM_AVERROR_DECODER_NOT_FOUND = AVERROR_DECODER_NOT_FOUND;
static const int SHIM_AVERROR_STREAM_NOT_FOUND = AVERROR_STREAM_NOT_FOUND;
static const int64_t SHIM_AV_NOPTS_VALUE = AV_NOPTS_VALUE;

static inline int shim_AVERROR(int e) { return AVERROR(e); }

static inline AVRational shim_time_base_q(void) { return AV_TIME_BASE_Q; }

static inline AVChannelLayout shim_channel_layout_mono(void) {
    AVChannelLayout l = AV_CHANNEL_LAYOUT_MONO;
    return l;
}

static inline void shim_err2str(int err, char *buf, size_t size) {
    av_make_error_string(buf, size, err);
}

static inline uint8_t *shim_frame_data(const AVFrame *f, int i) { return f->data[i]; }
static inline int shim_frame_linesize(const AVFrame *f, int i) { return f->linesize[i]; }
static inline uint8_t *const *shim_frame_planes(const AVFrame *f) { return f->data; }
static inline const uint8_t *const *shim_frame_planes_const(const AVFrame *f) { return (const uint8_t *const *)f->data; }
static inline const int *shim_frame_linesizes(const AVFrame *f) { return f->linesize; }
static inline void **shim_frame_extended_data_void(const AVFrame *f) { return (void **)f->extended_data; }
static const int SHIM_AVERROR_OPTION_NOT_FOUND = AVERROR_OPTION_NOT_FOUND;
static inline const uint8_t **shim_frame_extended_data_const(const AVFrame *f) {
    return (const uint8_t **)f->extended_data;
}

// FFmpeg's own logger, back: Swift cannot name it as the callback type it is.
static inline void shim_log_default(void) { av_log_set_callback(av_log_default_callback); }

#endif
