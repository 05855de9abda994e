// Native harness for scripts/webp-wasm/native-check/run.sh: decodes a WebP (optionally cropped and
// scaled, optionally through WebPIDecode in INCREMENTAL-byte steps) to raw RGB with the libwebp it is
// built against, and exits with the VP8StatusCode.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "src/webp/decode.h"
// harness in.webp out.rgb [cx cy cw ch [ow oh]] : decodes (cropped, scaled) RGB; prints status.
int main(int argc, char** argv) {
  FILE* f = fopen(argv[1], "rb"); if (!f) return 2;
  fseek(f, 0, SEEK_END); long n = ftell(f); fseek(f, 0, SEEK_SET);
  uint8_t* data = malloc(n); if (fread(data, 1, n, f) != (size_t)n) return 2; fclose(f);
  WebPDecoderConfig config; WebPInitDecoderConfig(&config);
  if (WebPGetFeatures(data, n, &config.input) != VP8_STATUS_OK) { printf("features failed\n"); return 3; }
  int w = config.input.width, h = config.input.height;
  if (argc >= 7) {
    config.options.use_cropping = 1;
    config.options.crop_left = atoi(argv[3]); config.options.crop_top = atoi(argv[4]);
    config.options.crop_width = w = atoi(argv[5]); config.options.crop_height = h = atoi(argv[6]);
  }
  if (argc >= 9) {
    config.options.use_scaling = 1;
    config.options.scaled_width = w = atoi(argv[7]); config.options.scaled_height = h = atoi(argv[8]);
  }
  config.output.colorspace = MODE_RGB;
  int status;
  if (getenv("INCREMENTAL")) {
    WebPIDecoder* idec = WebPIDecode(NULL, 0, &config);
    size_t step = atoi(getenv("INCREMENTAL")), at = 0;
    status = VP8_STATUS_SUSPENDED;
    while (at < (size_t)n && status == VP8_STATUS_SUSPENDED) {
      size_t k = at + step > (size_t)n ? n - at : step;
      status = WebPIAppend(idec, data + at, k); at += k;
    }
    WebPIDelete(idec);
  } else {
    status = WebPDecode(data, n, &config);
  }
  printf("status %d %dx%d\n", status, w, h);
  if (status == 0 && argc > 2 && strcmp(argv[2], "-")) {
    FILE* o = fopen(argv[2], "wb");
    for (int y = 0; y < h; ++y) fwrite(config.output.u.RGBA.rgba + (size_t)y * config.output.u.RGBA.stride, 1, w * 3, o);
    fclose(o);
  }
  WebPFreeDecBuffer(&config.output);
  free(data);
  return status;
}
