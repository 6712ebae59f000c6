/* A bot for any game of the referee (protocol v1) in C99, with the bundled JSON reader.
 *
 * It plays a random legal action, preferring to play rather than to pass or draw, and answers
 * with the action's index in `legal`. Its randomness is seeded from the match id and its seat,
 * so a replayed match plays the same moves.
 *
 * Build: make -C bots/c    (or: cc -O2 -std=c99 -o bots/c/bot bots/c/bot.c bots/c/json.c)
 * Run:   referee play maumau -p bots/c/bot -p random
 *
 * The protocol in short (docs/protocol.md): the referee writes one JSON object per line on our
 * stdin; we answer "hello" with "ready" and each "act" with an "action" echoing its id, one line
 * each on stdout, flushed at once. We ignore "event" and unknown types, and stop when stdin
 * closes. Our ready declares "reuse": after "end" a tournament may send the next match's "hello"
 * to this process, so each hello sets the match up afresh (here: the PRNG).
 * Debug output goes to stderr (kept in the bot's log file), never to stdout. */
#define _POSIX_C_SOURCE 200809L

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"

#define NAME "c_bot"
#define VERSION "1.0"

static uint64_t rng_state = 0x9E3779B97F4A7C15u;

/* splitmix64: a small seeded PRNG. */
static uint64_t next_random(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* FNV-1a over the match id, "/", and the seat: the seed. */
static void seed_from(const char *match, long long seat) {
    char text[64];
    uint64_t h = 0xCBF29CE484222325u;
    for (const char *s = match ? match : ""; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001B3u;
    snprintf(text, sizeof text, "/%lld", seat);
    for (const char *s = text; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001B3u;
    rng_state = h;
}

/* Our decision: the index of an action in `legal`, a JSON array of action objects.
 * `obs` (unused here) holds everything this seat may know now; see docs/protocol.md. */
static size_t choose(const json_value *obs, const json_value *legal) {
    size_t plays[1024], n = 0;
    (void)obs;
    for (size_t i = 0; i < legal->count && n < sizeof plays / sizeof plays[0]; i++)
        if (!json_get(&legal->items[i], "pass") && !json_get(&legal->items[i], "draw")) plays[n++] = i;
    if (n > 0) return plays[next_random() % n];
    return (size_t)(next_random() % legal->count);
}

int main(void) {
    char *line = NULL;
    size_t size = 0;
    while (getline(&line, &size, stdin) != -1) {
        json_value *message = json_parse(line);
        const char *type = json_string(json_get(message, "type"));
        if (!type) {
            json_free(message); /* not ours to judge: skip what we cannot read */
            continue;
        }
        if (strcmp(type, "hello") == 0) {
            const json_value *seat = json_get(message, "seat");
            /* a new match: set up afresh */
            seed_from(json_string(json_get(message, "match")),
                      seat && seat->type == JSON_NUMBER ? (long long)seat->number : 0);
            printf("{\"type\":\"ready\",\"name\":\"%s\",\"version\":\"%s\",\"reuse\":true}\n", NAME, VERSION);
            fflush(stdout);
        } else if (strcmp(type, "act") == 0) {
            const json_value *id = json_get(message, "id");
            const json_value *legal = json_get(message, "legal");
            if (id && id->type == JSON_NUMBER && legal && legal->type == JSON_ARRAY && legal->count > 0) {
                size_t index = choose(json_get(message, "obs"), legal);
                printf("{\"type\":\"action\",\"id\":%lld,\"index\":%zu}\n", (long long)id->number, index);
                fflush(stdout);
            }
        }
        /* "end": the match is over, a next hello may follow; "event" and unknown types: ignored */
        json_free(message);
    }
    free(line);
    return 0;
}
