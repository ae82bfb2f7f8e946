// Writes the seeds of the `sound` fuzz target (fuzz/corpus/sound) with libsndfile's own encoders:
//   gcc -o /tmp/make-sound-seeds fuzz/tools/make-sound-seeds.c -lsndfile -lm
//   /tmp/make-sound-seeds fuzz/corpus/sound
#include <sndfile.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
static int put(const char *path, int format, int rate, int channels, double seconds, double freq) {
  SF_INFO info; memset(&info, 0, sizeof info);
  info.samplerate = rate; info.channels = channels; info.format = format;
  SNDFILE *f = sf_open(path, SFM_WRITE, &info);
  if (!f) { fprintf(stderr, "%s: %s\n", path, sf_strerror(NULL)); return 1; }
  int frames = (int)(seconds * rate);
  for (int i = 0; i < frames; i++) {
    float frame[2];
    for (int c = 0; c < channels; c++) frame[c] = 0.5f * sinf(2 * M_PI * freq * i / rate);
    sf_writef_float(f, frame, 1);
  }
  sf_close(f);
  return 0;
}
int main(int argc, char **argv) {
  const char *d = argv[1]; char p[512]; int bad = 0;
  snprintf(p, sizeof p, "%s/wav-pcm16-mono", d); bad |= put(p, SF_FORMAT_WAV | SF_FORMAT_PCM_16, 8000, 1, 0.05, 440);
  snprintf(p, sizeof p, "%s/wav-float-stereo", d); bad |= put(p, SF_FORMAT_WAV | SF_FORMAT_FLOAT, 8000, 2, 0.02, 440);
  snprintf(p, sizeof p, "%s/wav-ulaw", d); bad |= put(p, SF_FORMAT_WAV | SF_FORMAT_ULAW, 8000, 1, 0.05, 440);
  snprintf(p, sizeof p, "%s/aiff-pcm24", d); bad |= put(p, SF_FORMAT_AIFF | SF_FORMAT_PCM_24, 8000, 1, 0.02, 440);
  snprintf(p, sizeof p, "%s/flac-stereo", d); bad |= put(p, SF_FORMAT_FLAC | SF_FORMAT_PCM_16, 8000, 2, 0.2, 440);
  snprintf(p, sizeof p, "%s/ogg-vorbis", d); bad |= put(p, SF_FORMAT_OGG | SF_FORMAT_VORBIS, 8000, 1, 0.2, 440);
  snprintf(p, sizeof p, "%s/ogg-opus", d); bad |= put(p, SF_FORMAT_OGG | SF_FORMAT_OPUS, 8000, 1, 0.1, 440);
  snprintf(p, sizeof p, "%s/mp3", d); bad |= put(p, SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III, 8000, 1, 0.3, 440);
  return bad;
}
