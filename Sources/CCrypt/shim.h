// libcrypt (libxcrypt): the system's password hashing, yescrypt by default on Debian.
#include <crypt.h>
