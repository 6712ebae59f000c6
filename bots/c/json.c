/* A tiny JSON reader (RFC 8259): a recursive-descent parser building a tree with malloc.
 * Strings are decoded to UTF-8 (\uXXXX escapes and surrogate pairs included); numbers are
 * doubles (strtod); nesting is limited to 64 levels so a hostile line cannot blow the stack.
 * Duplicate object keys are kept (json_get returns the first). */
#include "json.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *at;
    int depth;
} parser;

static int parse_value(parser *p, json_value *out);

static void skip_space(parser *p) {
    while (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r') p->at++;
}

static int literal(parser *p, const char *word) {
    size_t n = strlen(word);
    if (strncmp(p->at, word, n) != 0) return 0;
    p->at += n;
    return 1;
}

static int hex4(const char *s, unsigned *out) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        v <<= 4;
        if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
        else return 0;
    }
    *out = v;
    return 1;
}

static size_t put_utf8(char *dst, unsigned cp) {
    if (cp < 0x80) { dst[0] = (char)cp; return 1; }
    if (cp < 0x800) {
        dst[0] = (char)(0xC0 | (cp >> 6)); dst[1] = (char)(0x80 | (cp & 0x3F)); return 2;
    }
    if (cp < 0x10000) {
        dst[0] = (char)(0xE0 | (cp >> 12)); dst[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        dst[2] = (char)(0x80 | (cp & 0x3F)); return 3;
    }
    dst[0] = (char)(0xF0 | (cp >> 18)); dst[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    dst[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); dst[3] = (char)(0x80 | (cp & 0x3F)); return 4;
}

/* A string starting at the opening quote; the decoded text is never longer than the source. */
static char *parse_string(parser *p) {
    const char *s = ++p->at;
    size_t room = 0;
    while (s[room] && s[room] != '"') room += (s[room] == '\\' && s[room + 1]) ? 2 : 1;
    char *out = malloc(room + 1);
    if (!out) return NULL;
    size_t n = 0;
    for (;;) {
        unsigned char c = (unsigned char)*p->at;
        if (c == '"') { p->at++; break; }
        if (c < 0x20) goto fail; /* end of text, or a raw control character */
        if (c != '\\') { out[n++] = (char)c; p->at++; continue; }
        char e = p->at[1];
        p->at += 2;
        switch (e) {
        case '"': out[n++] = '"'; break;
        case '\\': out[n++] = '\\'; break;
        case '/': out[n++] = '/'; break;
        case 'b': out[n++] = '\b'; break;
        case 'f': out[n++] = '\f'; break;
        case 'n': out[n++] = '\n'; break;
        case 'r': out[n++] = '\r'; break;
        case 't': out[n++] = '\t'; break;
        case 'u': {
            unsigned cp, low;
            if (!hex4(p->at, &cp)) goto fail;
            p->at += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && p->at[0] == '\\' && p->at[1] == 'u' && hex4(p->at + 2, &low)
                && low >= 0xDC00 && low <= 0xDFFF) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p->at += 6;
            }
            n += put_utf8(out + n, cp); /* 6 or 12 source bytes give at most 4 */
            break;
        }
        default: goto fail;
        }
    }
    out[n] = '\0';
    return out;
fail:
    free(out);
    return NULL;
}

static int parse_number(parser *p, json_value *out) {
    const char *s = p->at;
    if (*s == '-') s++;
    if (*s == '0') s++;
    else if (*s >= '1' && *s <= '9') while (*s >= '0' && *s <= '9') s++;
    else return 0;
    if (*s == '.') {
        s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-') s++;
        if (!(*s >= '0' && *s <= '9')) return 0;
        while (*s >= '0' && *s <= '9') s++;
    }
    out->type = JSON_NUMBER;
    out->number = strtod(p->at, NULL);
    p->at = s;
    return 1;
}

/* Append one element (and its key, for objects) to a container being built. */
static json_value *grow(json_value *v, size_t *cap, char *key) {
    if (v->count == *cap) {
        size_t more = *cap ? *cap * 2 : 8;
        json_value *items = realloc(v->items, more * sizeof *items);
        if (!items) return NULL;
        v->items = items;
        if (v->type == JSON_OBJECT) {
            char **keys = realloc(v->keys, more * sizeof *keys);
            if (!keys) return NULL;
            v->keys = keys;
        }
        *cap = more;
    }
    if (v->type == JSON_OBJECT) v->keys[v->count] = key;
    json_value *slot = &v->items[v->count++];
    memset(slot, 0, sizeof *slot);
    return slot;
}

static void clear(json_value *v);

static int parse_container(parser *p, json_value *out, char close) {
    size_t cap = 0;
    out->type = close == '}' ? JSON_OBJECT : JSON_ARRAY;
    if (++p->depth > MAX_DEPTH) return 0;
    p->at++;
    skip_space(p);
    if (*p->at == close) { p->at++; p->depth--; return 1; }
    for (;;) {
        char *key = NULL;
        if (out->type == JSON_OBJECT) {
            skip_space(p);
            if (*p->at != '"' || !(key = parse_string(p))) return 0;
            skip_space(p);
            if (*p->at != ':') { free(key); return 0; }
            p->at++;
        }
        json_value *slot = grow(out, &cap, key);
        if (!slot) { free(key); return 0; }
        if (!parse_value(p, slot)) return 0;
        skip_space(p);
        if (*p->at == ',') { p->at++; continue; }
        if (*p->at == close) { p->at++; p->depth--; return 1; }
        return 0;
    }
}

static int parse_value(parser *p, json_value *out) {
    skip_space(p);
    switch (*p->at) {
    case '{': return parse_container(p, out, '}');
    case '[': return parse_container(p, out, ']');
    case '"': out->type = JSON_STRING; return (out->string = parse_string(p)) != NULL;
    case 't': out->type = JSON_BOOL; out->boolean = 1; return literal(p, "true");
    case 'f': out->type = JSON_BOOL; out->boolean = 0; return literal(p, "false");
    case 'n': out->type = JSON_NULL; return literal(p, "null");
    default: return parse_number(p, out);
    }
}

static void clear(json_value *v) {
    for (size_t i = 0; i < v->count; i++) {
        clear(&v->items[i]);
        if (v->keys) free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->string);
}

json_value *json_parse(const char *text) {
    parser p = {text, 0};
    json_value *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    int ok = parse_value(&p, v);
    skip_space(&p);
    if (!ok || *p.at != '\0') {
        json_free(v);
        return NULL;
    }
    return v;
}

void json_free(json_value *value) {
    if (!value) return;
    clear(value);
    free(value);
}

const json_value *json_get(const json_value *object, const char *key) {
    if (!object || object->type != JSON_OBJECT) return NULL;
    for (size_t i = 0; i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0) return &object->items[i];
    return NULL;
}

const char *json_string(const json_value *value) {
    return value && value->type == JSON_STRING ? value->string : NULL;
}
