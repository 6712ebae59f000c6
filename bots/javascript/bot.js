#!/usr/bin/env node
// A bot for any game of the referee (protocol v1), in Node.js with no npm dependencies.
//
// It plays a random legal action, preferring to play rather than to pass or draw, and answers
// with the action itself (not its index) to show that form of reply. Its randomness is seeded
// from the match id and its seat, so a replayed match plays the same moves.
//
// Run it: referee play maumau -p "node bots/javascript/bot.js" -p random
//
// The protocol in short (docs/protocol.md): the referee writes one JSON object per line on our
// stdin; we answer "hello" with "ready" and each "act" with an "action" echoing its id, one line
// each on stdout. We ignore "event" and unknown types, and stop when stdin closes. Our ready
// declares "reuse": after "end" a tournament may send the next match's "hello" to this process,
// so each hello sets the match up afresh (here: the PRNG).
// Debug output goes to stderr (kept in the bot's log file), never to stdout.
"use strict";

const readline = require("readline");

const NAME = "js_bot";
const VERSION = "1.0";

// FNV-1a: a 32-bit hash of a string, to seed the PRNG from the match id and seat.
function hash(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

// mulberry32: a small seeded PRNG returning floats in [0, 1).
function prng(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = prng(0);

function send(message) {
  // Writes to a pipe are synchronous in Node on Linux: nothing waits in a buffer.
  process.stdout.write(JSON.stringify(message) + "\n");
}

// Our decision: one of the legal actions. `obs` (unused here) holds everything this seat may
// know now; see docs/protocol.md for its fields per game.
function choose(obs, legal) {
  const plays = legal.filter((a) => !a.pass && !a.draw);
  const pool = plays.length > 0 ? plays : legal;
  return pool[Math.floor(random() * pool.length)];
}

const input = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });

input.on("line", (line) => {
  let message;
  try {
    message = JSON.parse(line);
  } catch (err) {
    return; // not ours to judge: skip what we cannot read
  }
  if (message === null || typeof message !== "object") return;
  switch (message.type) {
    case "hello":
      random = prng(hash(`${message.match}/${message.seat}`)); // a new match: set up afresh
      send({ type: "ready", name: NAME, version: VERSION, reuse: true });
      break;
    case "act":
      send({ type: "action", id: message.id, action: choose(message.obs, message.legal) });
      break;
    // "end": the match is over, a next hello may follow; "event" and unknown types: ignored
  }
});

input.on("close", () => process.exit(0));
