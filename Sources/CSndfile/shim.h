// libsndfile: decodes the user's ring sound (WAV, FLAC, Ogg Vorbis, Ogg Opus, MP3, ...).
#include <sndfile.h>
