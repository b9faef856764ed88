/* request_fields.c — a scanner over one JSON object's top-level members. */
#include "request_fields.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  const char *p, *end;
} cursor;

static void skip_space(cursor *c) {
  while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t')) ++c->p;
}

/* Reads a string at c->p into out (when out != NULL); 0 on malformed input or overflow. */
static int read_string(cursor *c, char *out, size_t cap) {
  size_t n = 0;
  if (c->p >= c->end || *c->p++ != '"') return 0;
  while (c->p < c->end && *c->p != '"') {
    char ch = *c->p++;
    if (ch == '\\') {
      if (c->p >= c->end) return 0;
      ch = *c->p++;
      switch (ch) {
        case 'n': ch = '\n'; break;
        case 't': ch = '\t'; break;
        case 'r': ch = '\r'; break;
        case 'b': ch = '\b'; break;
        case 'f': ch = '\f'; break;
        case 'u': { /* \u00XX only: anything wider is refused rather than mangled */
          if (c->end - c->p < 4 || strncmp(c->p, "00", 2) != 0) return 0;
          char hex[3] = {c->p[2], c->p[3], 0};
          ch = (char)strtol(hex, NULL, 16);
          c->p += 4;
          break;
        }
        default: break; /* \" \\ \/ stand for themselves */
      }
    }
    if (out != NULL) {
      if (n + 1 >= cap) return 0;
      out[n++] = ch;
    }
  }
  if (c->p >= c->end) return 0;
  ++c->p;
  if (out != NULL) out[n] = '\0';
  return 1;
}

/* Skips any value (nested objects and arrays too). */
static int skip_value(cursor *c) {
  int depth = 0;
  do {
    skip_space(c);
    if (c->p >= c->end) return 0;
    if (*c->p == '"') {
      if (!read_string(c, NULL, 0)) return 0;
      continue;
    }
    if (*c->p == '{' || *c->p == '[') ++depth;
    if (*c->p == '}' || *c->p == ']') --depth;
    if (depth < 0) return 0;
    ++c->p;
    if (depth == 0) while (c->p < c->end && strchr(",}] \n\r\t", *c->p) == NULL) ++c->p;
  } while (depth > 0);
  return 1;
}

/* Moves c to the value of member `key` (or walks the whole object when key is NULL). */
static int find_member(const char *doc, size_t len, const char *key, cursor *c) {
  char name[64];
  c->p = doc;
  c->end = doc + len;
  skip_space(c);
  if (c->p >= c->end || *c->p++ != '{') return 0;
  for (;;) {
    skip_space(c);
    if (c->p < c->end && *c->p == '}') return key == NULL;
    if (!read_string(c, name, sizeof name)) return 0;
    skip_space(c);
    if (c->p >= c->end || *c->p++ != ':') return 0;
    skip_space(c);
    if (key != NULL && strcmp(name, key) == 0) return 1;
    if (!skip_value(c)) return 0;
    skip_space(c);
    if (c->p < c->end && *c->p == ',') ++c->p;
  }
}

int request_is_object(const char *doc, size_t len) {
  cursor c;
  return doc != NULL && find_member(doc, len, NULL, &c);
}

int request_string(const char *doc, size_t len, const char *key, char *out, size_t cap) {
  cursor c;
  return doc != NULL && find_member(doc, len, key, &c) && read_string(&c, out, cap);
}

int request_bool(const char *doc, size_t len, const char *key, int *out) {
  cursor c;
  if (doc == NULL || !find_member(doc, len, key, &c)) return 0;
  size_t left = (size_t)(c.end - c.p);
  if (left >= 4 && memcmp(c.p, "true", 4) == 0) {
    *out = 1;
    return 1;
  }
  if (left >= 5 && memcmp(c.p, "false", 5) == 0) {
    *out = 0;
    return 1;
  }
  return 0;
}

int request_integer(const char *doc, size_t len, const char *key, int64_t *out) {
  cursor c;
  char digits[24];
  size_t n = 0;
  if (doc == NULL || !find_member(doc, len, key, &c)) return 0;
  while (c.p < c.end && n + 1 < sizeof digits && (*c.p == '-' || (*c.p >= '0' && *c.p <= '9'))) {
    digits[n++] = *c.p++;
  }
  digits[n] = '\0';
  if (n == 0 || (c.p < c.end && strchr(".eE", *c.p) != NULL)) return 0;
  errno = 0;
  *out = strtoll(digits, NULL, 10);
  return errno == 0;
}
