// Linux interfaces Swift's Glibc module does not export: epoll, timerfd, signalfd, eventfd,
// adjtimex, inotify, getrandom, pipe2. Header-only; nothing to link.
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/timex.h>

// unistd.h declares it only under _GNU_SOURCE, which the Glibc module is built without.
int pipe2(int fds[2], int flags);
