#include <alsa/asoundlib.h>
#include <stdarg.h>
#include <stdio.h>

// alsa-lib prints its own diagnostics to stderr ("ALSA lib pcm.c:2666:(...) Unknown PCM ...").
// In the daemon that noise would repeat on every retry and bypass the log's <N> level prefixes,
// so PuckDevices installs this handler: it keeps the first message of the current call, per
// thread, and ALSAError carries it as its detail. Swift cannot define a variadic C callback,
// which is why this lives here.
struct puck_alsa_message {
  int set;
  char text[256];
};

// A function-local static: Swift's importer emits inline functions it calls, but not
// file-scope statics of a header.
static inline struct puck_alsa_message *puck_alsa_message_slot(void) {
  static __thread struct puck_alsa_message slot;
  return &slot;
}

static inline void puck_alsa_record_message(
    const char *file, int line, const char *function, int err, const char *fmt, ...) {
  (void)file;
  (void)line;
  (void)function;
  (void)err;
  struct puck_alsa_message *slot = puck_alsa_message_slot();
  if (slot->set) return;
  va_list args;
  va_start(args, fmt);
  vsnprintf(slot->text, sizeof slot->text, fmt, args);
  va_end(args);
  slot->set = 1;
}

/// Routes alsa-lib's diagnostics to puck_alsa_record_message (snd_lib_error_set_handler).
static inline int puck_alsa_capture_messages(void) {
  return snd_lib_error_set_handler(puck_alsa_record_message);
}

/// Forgets the message recorded on this thread; call before an ALSA call.
static inline void puck_alsa_clear_message(void) {
  struct puck_alsa_message *slot = puck_alsa_message_slot();
  slot->set = 0;
  slot->text[0] = 0;
}

/// The first message alsa-lib reported on this thread since the last clear, or NULL.
static inline const char *puck_alsa_message_text(void) {
  struct puck_alsa_message *slot = puck_alsa_message_slot();
  return slot->set ? slot->text : NULL;
}
