#include "hetbench/data/image.h"

// clang-format off
#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <jpeglib.h>
#include <jerror.h>
// clang-format on

#include <algorithm>
#include <cmath>
#include <csetjmp>
#include <cstdlib>
#include <stdexcept>

namespace hetbench::data {
namespace {

// libjpeg reports errors through a callback that must not return; it longjmps back to the
// stage that called libjpeg (below), which then throws. Only libjpeg's C frames lie between, so
// no C++ destructor is skipped.
struct ErrorManager {
  jpeg_error_mgr pub;  // first, so that libjpeg's pointer to it is one to the whole
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX];
};

[[noreturn]] void onError(j_common_ptr cinfo) {
  auto* err = reinterpret_cast<ErrorManager*>(cinfo->err);
  (*cinfo->err->format_message)(cinfo, err->message);
  std::longjmp(err->jump, 1);
}

void onMessage(j_common_ptr cinfo, int level) {
  // Warnings about corrupt bytes that libjpeg steps over are let through, as PIL lets them
  // through; data that ends early is an error, where libjpeg would paint the rest grey.
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) onError(cinfo);
}

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": " + what);
}

/// A decompressor and what its stages produce. Each stage function holds the setjmp for the
/// libjpeg calls it makes and keeps no C++ objects of its own.
struct Decompressor {
  Decompressor() {
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = onError;
    err.pub.emit_message = onMessage;
  }
  ~Decompressor() { jpeg_destroy_decompress(&cinfo); }
  Decompressor(const Decompressor&) = delete;
  Decompressor& operator=(const Decompressor&) = delete;

  jpeg_decompress_struct cinfo{};
  ErrorManager err{};
  /// Decoded rows [firstRow, firstRow + rowCount) of the scaled image, columns from xOffset,
  /// `components` bytes a pixel.
  std::vector<uint8_t> rows;
  int firstRow = 0;
  int rowCount = 0;
  int xOffset = 0;
  int width = 0;
  int components = 0;
};

bool readHeader(Decompressor& d, std::string_view bytes) {
  if (setjmp(d.err.jump)) return false;
  jpeg_create_decompress(&d.cinfo);
  jpeg_mem_src(&d.cinfo, reinterpret_cast<const unsigned char*>(bytes.data()),
               static_cast<unsigned long>(bytes.size()));
  jpeg_read_header(&d.cinfo, TRUE);
  return true;
}

bool setScale(Decompressor& d, int scaleNum, J_COLOR_SPACE out) {
  if (setjmp(d.err.jump)) return false;
  d.cinfo.scale_num = static_cast<unsigned int>(scaleNum);
  d.cinfo.scale_denom = 8;
  d.cinfo.out_color_space = out;
  jpeg_calc_output_dimensions(&d.cinfo);
  return true;
}

/// Decodes scaled rows [y0, y1) and at least columns [x0, x1).
bool decodeRows(Decompressor& d, int x0, int x1, int y0, int y1) {
  if (setjmp(d.err.jump)) return false;
  jpeg_start_decompress(&d.cinfo);
  JDIMENSION xOffset = 0;
  JDIMENSION width = d.cinfo.output_width;
  if (x0 > 0 || static_cast<JDIMENSION>(x1) < width) {
    xOffset = static_cast<JDIMENSION>(x0);
    width = static_cast<JDIMENSION>(x1 - x0);
    jpeg_crop_scanline(&d.cinfo, &xOffset, &width);  // widens to iMCU boundaries
  }
  if (y0 > 0) jpeg_skip_scanlines(&d.cinfo, static_cast<JDIMENSION>(y0));
  d.xOffset = static_cast<int>(xOffset);
  d.width = static_cast<int>(width);
  d.components = d.cinfo.output_components;
  d.firstRow = y0;
  d.rowCount = y1 - y0;
  const size_t stride = static_cast<size_t>(d.width) * static_cast<size_t>(d.components);
  d.rows.resize(stride * static_cast<size_t>(d.rowCount));
  JSAMPROW pointers[16];
  while (d.cinfo.output_scanline < static_cast<JDIMENSION>(y1)) {
    const int row = static_cast<int>(d.cinfo.output_scanline) - y0;
    const int n = std::min(16, y1 - y0 - row);
    for (int i = 0; i < n; ++i) pointers[i] = &d.rows[static_cast<size_t>(row + i) * stride];
    jpeg_read_scanlines(&d.cinfo, pointers, static_cast<JDIMENSION>(n));
  }
  return true;
}

/// Opens the JPEG and picks the output colour space libjpeg converts to.
J_COLOR_SPACE openImage(Decompressor& d, std::string_view bytes, const std::string& name) {
  if (!readHeader(d, bytes)) fail(name, std::string("not a readable JPEG: ") + d.err.message);
  switch (d.cinfo.jpeg_color_space) {
    case JCS_GRAYSCALE:
    case JCS_YCbCr:
    case JCS_RGB:
      return JCS_RGB;
    case JCS_CMYK:
    case JCS_YCCK:
      return JCS_CMYK;  // libjpeg converts YCCK to CMYK; RGB is ours to make (below)
    default:
      fail(name, "unsupported JPEG colour space with " + std::to_string(d.cinfo.num_components) +
                     " components");
  }
}

/// CMYK rows to RGB in place, as PIL converts: R = (255 - C)(255 - K) / 255. An Adobe marker
/// means that the stored values are inverted (255 - C), as Adobe's applications write them.
void cmykToRgb(Decompressor& d) {
  if (d.components != 4) return;
  const bool inverted = d.cinfo.saw_Adobe_marker != 0;
  const size_t pixels = d.rows.size() / 4;
  for (size_t p = 0; p < pixels; ++p) {
    const uint8_t* in = &d.rows[p * 4];
    const int k = inverted ? in[3] : 255 - in[3];
    for (int c = 0; c < 3; ++c) {
      const int ink = inverted ? in[c] : 255 - in[c];
      d.rows[p * 3 + static_cast<size_t>(c)] = static_cast<uint8_t>((ink * k + 127) / 255);
    }
  }
  d.rows.resize(pixels * 3);
  d.components = 3;
}

/// The source pixels and weights of each output pixel along one axis: PIL's bilinear
/// resampling (a triangle filter widened by the scale when shrinking, so that it averages
/// every source pixel), restricted to the source pixels [lo, hi).
struct Axis {
  std::vector<int> first;
  std::vector<int> count;
  std::vector<float> weights;  // `taps` per output pixel
  int taps = 0;
};

Axis axisWeights(double in0, double in1, int outSize, int lo, int hi) {
  const double scale = (in1 - in0) / outSize;
  const double filterScale = std::max(scale, 1.0);
  const double support = filterScale;  // the triangle reaches 1 pixel, times the scale
  Axis axis;
  axis.taps = static_cast<int>(std::ceil(support)) * 2 + 1;
  axis.first.resize(static_cast<size_t>(outSize));
  axis.count.resize(static_cast<size_t>(outSize));
  axis.weights.assign(static_cast<size_t>(outSize) * static_cast<size_t>(axis.taps), 0.0F);
  for (int o = 0; o < outSize; ++o) {
    const double center = in0 + (o + 0.5) * scale;
    const int first = std::max(lo, static_cast<int>(std::floor(center - support + 0.5)));
    const int last = std::min(hi, static_cast<int>(std::floor(center + support + 0.5)));
    float* w = &axis.weights[static_cast<size_t>(o) * static_cast<size_t>(axis.taps)];
    double sum = 0;
    for (int x = first; x < last; ++x) {
      const double t = std::abs((x + 0.5 - center) / filterScale);
      const double weight = t < 1 ? 1 - t : 0;
      w[x - first] = static_cast<float>(weight);
      sum += weight;
    }
    if (sum > 0) {
      for (int x = first; x < last; ++x) w[x - first] = static_cast<float>(w[x - first] / sum);
      axis.first[static_cast<size_t>(o)] = first;
      axis.count[static_cast<size_t>(o)] = last - first;
    } else {  // only at a clip edge that the centre lies beyond: take the nearest pixel
      axis.first[static_cast<size_t>(o)] =
          std::clamp(static_cast<int>(std::floor(center)), lo, hi - 1);
      axis.count[static_cast<size_t>(o)] = 1;
      w[0] = 1.0F;
    }
  }
  return axis;
}

int axisBegin(const Axis& a) { return *std::min_element(a.first.begin(), a.first.end()); }

int axisEnd(const Axis& a) {
  int end = 0;
  for (size_t o = 0; o < a.first.size(); ++o) end = std::max(end, a.first[o] + a.count[o]);
  return end;
}

/// Resamples the decoded region to [3, height, width] floats, normalised, flipped if asked.
void resample(const Decompressor& d, const Axis& xs, const Axis& ys, bool flip, float* out) {
  const int outW = static_cast<int>(xs.first.size());
  const int outH = static_cast<int>(ys.first.size());
  const size_t stride = static_cast<size_t>(d.width) * 3;
  // Horizontal pass over every decoded row, then vertical; both in float (PIL rounds to 8 bits
  // in between, a difference below one level).
  std::vector<float> rows(static_cast<size_t>(d.rowCount) * static_cast<size_t>(outW) * 3);
  for (int r = 0; r < d.rowCount; ++r) {
    const uint8_t* src = &d.rows[static_cast<size_t>(r) * stride];
    float* dst = &rows[static_cast<size_t>(r) * static_cast<size_t>(outW) * 3];
    for (int o = 0; o < outW; ++o) {
      const float* w = &xs.weights[static_cast<size_t>(o) * static_cast<size_t>(xs.taps)];
      const uint8_t* p =
          src + static_cast<size_t>(xs.first[static_cast<size_t>(o)] - d.xOffset) * 3;
      float r0 = 0, g0 = 0, b0 = 0;
      for (int k = 0; k < xs.count[static_cast<size_t>(o)]; ++k, p += 3) {
        r0 += w[k] * p[0];
        g0 += w[k] * p[1];
        b0 += w[k] * p[2];
      }
      dst[o * 3] = r0;
      dst[o * 3 + 1] = g0;
      dst[o * 3 + 2] = b0;
    }
  }
  const size_t plane = static_cast<size_t>(outW) * static_cast<size_t>(outH);
  float scale[3];
  float shift[3];
  for (int c = 0; c < 3; ++c) {
    scale[c] = 1.0F / (255.0F * kImageNetStd[c]);
    shift[c] = kImageNetMean[c] / kImageNetStd[c];
  }
  std::vector<float> line(static_cast<size_t>(outW) * 3);
  for (int o = 0; o < outH; ++o) {
    std::fill(line.begin(), line.end(), 0.0F);
    const float* w = &ys.weights[static_cast<size_t>(o) * static_cast<size_t>(ys.taps)];
    for (int k = 0; k < ys.count[static_cast<size_t>(o)]; ++k) {
      const int row = ys.first[static_cast<size_t>(o)] + k - d.firstRow;
      const float* src = &rows[static_cast<size_t>(row) * static_cast<size_t>(outW) * 3];
      for (size_t i = 0; i < line.size(); ++i) line[i] += w[k] * src[i];
    }
    for (int c = 0; c < 3; ++c) {
      float* dst = out + static_cast<size_t>(c) * plane + static_cast<size_t>(o) * outW;
      for (int x = 0; x < outW; ++x) {
        const int from = flip ? outW - 1 - x : x;
        dst[x] = line[static_cast<size_t>(from) * 3 + static_cast<size_t>(c)] * scale[c] - shift[c];
      }
    }
  }
}

// libjpeg's compressor, for fixtures; the same longjmp discipline as decompression.
struct Compressor {
  Compressor() {
    cinfo.err = jpeg_std_error(&err.pub);
    err.pub.error_exit = onError;
  }
  ~Compressor() {
    jpeg_destroy_compress(&cinfo);
    std::free(buffer);
  }
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;

  jpeg_compress_struct cinfo{};
  ErrorManager err{};
  unsigned char* buffer = nullptr;
  unsigned long size = 0;
};

bool compress(Compressor& c, const uint8_t* pixels, int width, int height, int components,
              J_COLOR_SPACE space, int quality) {
  if (setjmp(c.err.jump)) return false;
  jpeg_create_compress(&c.cinfo);
  jpeg_mem_dest(&c.cinfo, &c.buffer, &c.size);
  c.cinfo.image_width = static_cast<JDIMENSION>(width);
  c.cinfo.image_height = static_cast<JDIMENSION>(height);
  c.cinfo.input_components = components;
  c.cinfo.in_color_space = space;
  jpeg_set_defaults(&c.cinfo);
  jpeg_set_quality(&c.cinfo, quality, TRUE);
  jpeg_start_compress(&c.cinfo, TRUE);
  const size_t stride = static_cast<size_t>(width) * static_cast<size_t>(components);
  while (c.cinfo.next_scanline < c.cinfo.image_height) {
    JSAMPROW row = const_cast<JSAMPROW>(pixels + c.cinfo.next_scanline * stride);
    jpeg_write_scanlines(&c.cinfo, &row, 1);
  }
  jpeg_finish_compress(&c.cinfo);
  return true;
}

}  // namespace

int roundHalfEven(double x) {
  const double rounded = std::round(x);  // half away from zero
  if (std::abs(x - std::trunc(x)) == 0.5) return static_cast<int>(2.0 * std::round(x / 2.0));
  return static_cast<int>(rounded);
}

std::string encodeJpeg(const uint8_t* pixels, int width, int height, JpegColor color, int quality) {
  const int components = color == JpegColor::kGray ? 1 : color == JpegColor::kRgb ? 3 : 4;
  const J_COLOR_SPACE space = color == JpegColor::kGray  ? JCS_GRAYSCALE
                              : color == JpegColor::kRgb ? JCS_RGB
                                                         : JCS_CMYK;
  Compressor c;
  if (!compress(c, pixels, width, height, components, space, quality)) {
    throw std::runtime_error(std::string("cannot encode a JPEG: ") + c.err.message);
  }
  return std::string(reinterpret_cast<const char*>(c.buffer), c.size);
}

RgbImage decodeJpeg(std::string_view bytes, const std::string& name) {
  Decompressor d;
  const J_COLOR_SPACE out = openImage(d, bytes, name);
  if (!setScale(d, 8, out)) fail(name, d.err.message);
  const int width = static_cast<int>(d.cinfo.output_width);
  const int height = static_cast<int>(d.cinfo.output_height);
  if (!decodeRows(d, 0, width, 0, height)) fail(name, d.err.message);
  cmykToRgb(d);
  return RgbImage{width, height, std::move(d.rows)};
}

CropRect randomResizedCrop(int width, int height, SplitMix64& rng) {
  const double area = static_cast<double>(width) * height;
  constexpr double kMinRatio = 3.0 / 4.0;
  constexpr double kMaxRatio = 4.0 / 3.0;
  const double logMin = std::log(kMinRatio);
  const double logMax = std::log(kMaxRatio);
  for (int attempt = 0; attempt < 10; ++attempt) {
    const double target = area * rng.uniform(0.08, 1.0);
    const double ratio = std::exp(rng.uniform(logMin, logMax));
    const int w = roundHalfEven(std::sqrt(target * ratio));
    const int h = roundHalfEven(std::sqrt(target / ratio));
    if (w > 0 && w <= width && h > 0 && h <= height) {
      const int top = static_cast<int>(rng.below(height - h + 1));
      const int left = static_cast<int>(rng.below(width - w + 1));
      return CropRect{top, left, h, w};
    }
  }
  const double inRatio = static_cast<double>(width) / height;
  int w = width;
  int h = height;
  if (inRatio < kMinRatio) {
    h = roundHalfEven(w / kMinRatio);
  } else if (inRatio > kMaxRatio) {
    w = roundHalfEven(h * kMaxRatio);
  }
  return CropRect{(height - h) / 2, (width - w) / 2, h, w};
}

ImageSampleInfo decodeImageSample(std::string_view bytes, const std::string& name,
                                  const ImageTransform& t, uint64_t seed, float* out) {
  Decompressor d;
  const J_COLOR_SPACE space = openImage(d, bytes, name);
  ImageSampleInfo info;
  const int width = static_cast<int>(d.cinfo.image_width);
  const int height = static_cast<int>(d.cinfo.image_height);
  info.sourceWidth = width;
  info.sourceHeight = height;
  // The region to resample and the pixels its filter may reach, in source pixels.
  double clipX0 = 0, clipY0 = 0, clipX1 = width, clipY1 = height;
  if (t.train) {
    SplitMix64 rng(seed);
    const CropRect crop = randomResizedCrop(width, height, rng);
    info.flipped = rng.uniform() < 0.5;
    info.x0 = clipX0 = crop.left;
    info.y0 = clipY0 = crop.top;
    info.x1 = clipX1 = crop.left + crop.width;
    info.y1 = clipY1 = crop.top + crop.height;
  } else {
    const int64_t resize = static_cast<int64_t>(std::max(t.height, t.width)) * 256 / 224;
    const int64_t shorter = std::min(width, height);
    const int64_t longer = std::max(width, height);
    const int longSide = static_cast<int>(static_cast<double>(resize * longer) / shorter);
    const int newW = width <= height ? static_cast<int>(resize) : longSide;
    const int newH = width <= height ? longSide : static_cast<int>(resize);
    const int top = roundHalfEven((newH - t.height) / 2.0);
    const int left = roundHalfEven((newW - t.width) / 2.0);
    info.x0 = static_cast<double>(left) * width / newW;
    info.x1 = static_cast<double>(left + t.width) * width / newW;
    info.y0 = static_cast<double>(top) * height / newH;
    info.y1 = static_cast<double>(top + t.height) * height / newH;
  }
  if (t.dctScaling) {
    for (const int m : {1, 2, 4}) {  // libjpeg-turbo has SIMD for these scales only
      if ((info.x1 - info.x0) * m / 8 >= t.width && (info.y1 - info.y0) * m / 8 >= t.height) {
        info.dctScale = m;
        break;
      }
    }
  }
  if (!setScale(d, info.dctScale, space)) fail(name, d.err.message);
  const int scaledW = static_cast<int>(d.cinfo.output_width);
  const int scaledH = static_cast<int>(d.cinfo.output_height);
  const double sx = static_cast<double>(scaledW) / width;
  const double sy = static_cast<double>(scaledH) / height;
  const auto clipLo = [](double v, double s) { return static_cast<int>(std::floor(v * s)); };
  const auto clipHi = [](double v, double s, int size) {
    return std::min(size, static_cast<int>(std::ceil(v * s)));
  };
  const Axis xs = axisWeights(info.x0 * sx, info.x1 * sx, t.width, clipLo(clipX0, sx),
                              clipHi(clipX1, sx, scaledW));
  const Axis ys = axisWeights(info.y0 * sy, info.y1 * sy, t.height, clipLo(clipY0, sy),
                              clipHi(clipY1, sy, scaledH));
  // Cropping columns makes libjpeg upsample chroma without the neighbours beyond the crop, which
  // changes the edge columns; a margin of an iMCU (at most 16 pixels) on each side keeps the
  // columns we use equal to a full decode's.
  const int left = std::max(0, axisBegin(xs) - 16);
  const int right = std::min(scaledW, axisEnd(xs) + 16);
  if (!decodeRows(d, left, right, axisBegin(ys), axisEnd(ys))) {
    fail(name, d.err.message);
  }
  cmykToRgb(d);
  resample(d, xs, ys, info.flipped, out);
  return info;
}

}  // namespace hetbench::data
