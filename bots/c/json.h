/* A tiny JSON reader for bots: parses one JSON text into a tree of values (no external
 * libraries, C99). Enough for protocol v1 messages; see json.c for the limits. */
#ifndef BOT_JSON_H
#define BOT_JSON_H

#include <stddef.h>

typedef enum { JSON_NULL, JSON_BOOL, JSON_NUMBER, JSON_STRING, JSON_ARRAY, JSON_OBJECT } json_type;

typedef struct json_value {
    json_type type;
    int boolean;              /* JSON_BOOL: 0 or 1 */
    double number;            /* JSON_NUMBER */
    char *string;             /* JSON_STRING: UTF-8, NUL-terminated */
    struct json_value *items; /* JSON_ARRAY, JSON_OBJECT: the elements / member values, in order */
    char **keys;              /* JSON_OBJECT: the member names, parallel to items */
    size_t count;             /* JSON_ARRAY, JSON_OBJECT: how many */
} json_value;

/* Parse a whole JSON text; NULL if it is not valid JSON (or nests deeper than 64 levels). */
json_value *json_parse(const char *text);

/* Free a value returned by json_parse (NULL is fine). */
void json_free(json_value *value);

/* The member `key` of an object, or NULL (not an object, or no such member). */
const json_value *json_get(const json_value *object, const char *key);

/* The string of a JSON_STRING value, or NULL for anything else (NULL included). */
const char *json_string(const json_value *value);

#endif
