// OpenSSL's libcrypto: HMAC-SHA256 for the messages between the dock and its reader nodes,
// constant-time comparison and the random bytes of a new reader key.
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
