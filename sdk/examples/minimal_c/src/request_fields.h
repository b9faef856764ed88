/* request_fields.h — reading top-level fields of a request document without a JSON library.
 *
 * Enough for this example's flat requests: finds a member of the top-level object by name and
 * decodes a string (escapes included), an integer or a boolean; nested values are skipped. A
 * real plugin in C would rather link a JSON library. */
#ifndef MINIMAL_C_REQUEST_FIELDS_H
#define MINIMAL_C_REQUEST_FIELDS_H

#include <stddef.h>
#include <stdint.h>

/* Return 1 when `key` is a member of the object in `doc`, of the right type; 0 otherwise. A
 * string is NUL-terminated into out (at most cap-1 bytes; longer ones count as absent). */
int request_string(const char *doc, size_t len, const char *key, char *out, size_t cap);
int request_integer(const char *doc, size_t len, const char *key, int64_t *out);
int request_bool(const char *doc, size_t len, const char *key, int *out);
/* 1 when `doc` is a JSON object whose members this reader can walk. */
int request_is_object(const char *doc, size_t len);

#endif /* MINIMAL_C_REQUEST_FIELDS_H */
