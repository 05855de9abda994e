// The only entry points of the WebP decoder module (scripts/build-webp-wasm.sh builds it with
// libwebp's decoder sources; src/analysis/decoders/webp.ts calls it). Everything goes through
// libwebp's public advanced API (WebPDecoderConfig), so memory is bounded by the output the caller
// asks for: a scaled whole frame or a cropped region, written as RGB into the caller's buffer.
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "src/webp/decode.h"

// malloc/free for the caller's input and output buffers.
__attribute__((export_name("malloc"))) void* webp_malloc(size_t size) { return malloc(size); }
__attribute__((export_name("free"))) void webp_free(void* ptr) { free(ptr); }

// libwebp's version, 0xMMmmpp.
__attribute__((export_name("version"))) int webp_version(void) { return WebPGetDecoderVersion(); }

// The bitstream's features: out[0..4] = width, height, has_alpha, has_animation, format
// (0 mixed/undefined, 1 lossy, 2 lossless). Returns a VP8StatusCode (0 = OK).
__attribute__((export_name("features")))
int webp_features(const uint8_t* data, size_t size, int32_t* out) {
  WebPBitstreamFeatures f;
  const VP8StatusCode status = WebPGetFeatures(data, size, &f);
  if (status != VP8_STATUS_OK) return status;
  out[0] = f.width;
  out[1] = f.height;
  out[2] = f.has_alpha;
  out[3] = f.has_animation;
  out[4] = f.format;
  return VP8_STATUS_OK;
}

// Decodes the region (crop_x, crop_y, crop_w, crop_h) of the frame, scaled to out_w × out_h (not
// scaled when that is the region's size), as RGB rows `stride` bytes apart into `out` (`out_size`
// bytes). Returns a VP8StatusCode (0 = OK).
__attribute__((export_name("decode_rgb")))
int webp_decode_rgb(const uint8_t* data, size_t size, int crop_x, int crop_y, int crop_w, int crop_h,
                    int out_w, int out_h, uint8_t* out, int stride, size_t out_size) {
  WebPDecoderConfig config;
  if (!WebPInitDecoderConfig(&config)) return VP8_STATUS_INVALID_PARAM;
  config.options.use_cropping = 1;
  config.options.crop_left = crop_x;
  config.options.crop_top = crop_y;
  config.options.crop_width = crop_w;
  config.options.crop_height = crop_h;
  if (out_w != crop_w || out_h != crop_h) {
    config.options.use_scaling = 1;
    config.options.scaled_width = out_w;
    config.options.scaled_height = out_h;
  }
  config.output.colorspace = MODE_RGB;
  config.output.is_external_memory = 1;
  config.output.u.RGBA.rgba = out;
  config.output.u.RGBA.stride = stride;
  config.output.u.RGBA.size = out_size;
  const VP8StatusCode status = WebPDecode(data, size, &config);
  WebPFreeDecBuffer(&config.output);
  return status;
}
